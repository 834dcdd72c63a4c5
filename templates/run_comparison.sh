#!/bin/sh
# Reproduce the llm-d comparison "{{ a.label }}" (A) vs "{{ b.label }}" (B).
#
# Written by llmdlua {{ prog | default("compare.lua") }} on {{ generated }}
# Workspace: {{ workspace }}
# (as it was written: the script works on the folder it is in, COMPARISON_DIR below, so a
# copied or moved workspace's script works on the copy)
#
# Text from the runs (labels, paths, commands) is quoted or commented line by line.
# REVIEW BEFORE RUNNING. The commands of each run are shown commented out, exactly as
# they ran (paths inside the workspace written "$COMPARISON_DIR"/...), or, for an imported
# run, what is known of it. Uncomment what you want to repeat; every cluster command is
# scoped to the namespace below.
set -eu

export NAMESPACE={{ namespace | sh }}
export BENCHMARK_PVC={{ pvc | sh }}
export GATEWAY_SVC={{ gateway_svc | sh }}
export RUN_A_LABEL={{ a.label | sh }}
export RUN_B_LABEL={{ b.label | sh }}
# the workspace: the folder this script is in (CDPATH left out: cd would print the folder)
COMPARISON_DIR=$(CDPATH='' cd -- "$(dirname -- "$0")" && pwd -P) ||
    { printf 'run_comparison.sh: cannot find the folder this script is in (%s)\n' "$0" >&2; exit 1; }
# (sourced, or copied out of its workspace, it would work on another folder: refused)
if [ ! -d "$COMPARISON_DIR/run-a" ] || [ ! -d "$COMPARISON_DIR/run-b" ]; then
    printf 'run_comparison.sh: %s holds no run-a/ and run-b/: run the script as a file in its workspace (sh WORKSPACE/run_comparison.sh), not sourced or copied out of it\n' "$COMPARISON_DIR" >&2
    exit 1
fi
export COMPARISON_DIR
# the llmdlua that wrote this script (set LLMDLUA to use another one): deploy() below reads
# run-X/deployed.json with it, and the last line re-generates the report with it
LLMDLUA=${LLMDLUA:-{{ llmdlua | sh }}}

# shq WORD: WORD as one shell word, for a command this script prints for the user to paste
# ('...', each ' in it written '\'')
shq() {
    printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"
}

# One line on stderr, and the script stops: nothing after a failed step runs.
fail() {
    printf 'run_comparison.sh: %s\n' "$*" >&2
    exit 1
}

# What this script deployed in this run of it and has not torn down (left_a, left_b: one
# entry per deploy() or service() line), and each run's teardown commands, as its teardown
# lines below run them (the baseline Service's apart, said only when service() made it): a
# stop before those lines ran (a failed step, Ctrl-C) says what it left deployed and how to
# remove it.
left_a=''
left_b=''
# the namespace's pods before run X's first deploy line here (a file of kubectl get pods -o
# json; wait_ready), and how long wait_ready waits (the plan's timeouts.ready, poll)
pods_before_a=''
pods_before_b=''
READY_TIMEOUT={{ ready_timeout | sh }}
READY_POLL={{ ready_poll | sh }}
torn_a=0
torn_b=0
svc_a=''
svc_b=''
{% for side in sides %}
TEARDOWN_{{ side.x }}={{ side.teardown_raw | sh }}
TEARDOWN_SVC_{{ side.x }}={{ side.teardown_svc | sh }}
TEARDOWN_LINES_{{ side.x }}={{ len(side.teardown) }}
{% end %}
deployed_here() {
    case $1 in
    a) left_a="${left_a:+$left_a; }$2" ;;
    b) left_b="${left_b:+$left_b; }$2" ;;
    esac
}
said_left() {
    rc=$1
    rm -f -- "$pods_before_a" "$pods_before_b"
    let_go
    [ "$rc" = 0 ] && return 0
    for s in a b; do
        case $s in
        a) what=$left_a teardown=$TEARDOWN_a svc=${svc_a:+$TEARDOWN_SVC_a} ;;
        b) what=$left_b teardown=$TEARDOWN_b svc=${svc_b:+$TEARDOWN_SVC_b} ;;
        esac
        teardown=$(printf '%s\n%s\n' "$teardown" "$svc" | sed '/^$/d')
        [ -n "$what" ] || continue
        if [ -n "$teardown" ]; then
            printf 'run_comparison.sh: stopped with run %s left deployed in namespace %s by this script (%s); remove it with run %s'"'"'s teardown:\n%s\n' \
                "$s" "$NAMESPACE" "$what" "$s" "$(printf '%s\n' "$teardown" | sed 's/^/    /')" >&2
        else
            printf 'run_comparison.sh: stopped with run %s left deployed in namespace %s by this script (%s); this comparison recorded no teardown for it\n' \
                "$s" "$NAMESPACE" "$what" >&2
        fi
    done
    return 0
}
# take_lock: before the script's first cluster command (its deploy, wait_ready, service,
# benchmark or teardown lines), the locks compare.lua takes - the workspace's (the flock on
# $COMPARISON_DIR/.llmdlua.lock) and the namespace's (ConfigMap llmdlua-lock in it) -, held by
# an llmdlua in the background until the script ends (let_go, at its exit or before its last
# line), so that this script and a compare.lua --resume of the workspace, or another llmdlua run
# in the namespace, never act at once. Held already by another: the script stops, saying whose.
# Before them, the cluster: kubectl's current context must be the one the workspace was made in
# (its cluster.json), as compare.lua --resume checks; another stops the script, unless run with
# LLMDLUA_USE_CURRENT_CONTEXT=1 - then a re-run's run_state.json records the cluster it ran on
# and compare.lua says its run and it ran on different clusters.
holder=''
take_lock() {
    [ -z "$holder" ] || return 0
    tmpd=$(mktemp -d) || fail "cannot make a temporary folder for the lock's answer"
    mkfifo "$tmpd/said" || { rm -rf "$tmpd"; fail "cannot make a fifo in $tmpd for the lock's answer"; }
    PARENT=$$ "$LLMDLUA" -e 'require("llmd.rerun_script").hold()' >"$tmpd/said" &
    holder=$!
    said=$(head -n 1 "$tmpd/said") || said=''
    rm -rf "$tmpd"
    case $said in
    locked) ;;
    refused\ *) wait "$holder" 2>/dev/null || :; holder=''; fail "not acting on namespace $NAMESPACE: ${said#refused }" ;;
    *) let_go; fail "cannot take the lock of $COMPARISON_DIR and of namespace $NAMESPACE (the llmdlua that holds it said: ${said:-nothing})" ;;
    esac
}
let_go() {
    [ -n "$holder" ] || return 0
    kill "$holder" 2>/dev/null || :
    wait "$holder" 2>/dev/null || :
    holder=''
}

# results_pvc: before the first deploy or benchmark line, the results PVC the benchmark writes
# to must be in the namespace (the benchmark, after the whole deploy and wait, fails without
# it). llmdlua's own (llmd-benchmark-results) is made as compare.lua's step 60 makes it -
# kubectl create (never over another's), ReadWriteMany, 200Gi, labelled as llmdlua's -;
# another name, absent, stops the script before anything is deployed.
pvc_checked=''
results_pvc() {
    [ -z "$pvc_checked" ] || return 0
    [ -n "$BENCHMARK_PVC" ] || fail "no results PVC recorded for this comparison (BENCHMARK_PVC above is empty): set it to the PVC the benchmark writes to; not deploying"
    there=$(kubectl -n "$NAMESPACE" get pvc "$BENCHMARK_PVC" --ignore-not-found -o name) ||
        fail "cannot read the PVCs of namespace $NAMESPACE (kubectl -n $NAMESPACE get pvc $BENCHMARK_PVC); not deploying"
    if [ -z "$there" ]; then
        [ "$BENCHMARK_PVC" = llmd-benchmark-results ] ||
            fail "the results PVC $BENCHMARK_PVC is not in namespace $NAMESPACE: the benchmark would fail after the deploy; create it (ReadWriteMany) or set BENCHMARK_PVC above to one there; not deploying"
        printf 'apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: llmd-benchmark-results\n  labels: {app.kubernetes.io/managed-by: llmdlua}\nspec:\n  accessModes: [ReadWriteMany]\n  resources: {requests: {storage: 200Gi}}\n' |
            kubectl -n "$NAMESPACE" create -f - >/dev/null ||
            fail "the results PVC llmd-benchmark-results is not in namespace $NAMESPACE and cannot be made (kubectl -n $NAMESPACE create -f -, a PersistentVolumeClaim); not deploying"
        echo "results PVC llmd-benchmark-results made in namespace $NAMESPACE (ReadWriteMany, 200Gi, as compare.lua makes it): it was not there"
    fi
    pvc_checked=1
}

# owner OP SIDE NAMES: what llmdlua says of whose NAMES are in the namespace, or records
# (lua/llmd/rerun_script.lua; the record is run-SIDE/rerun_deployed.json)
owner() {
    OP=$1 SIDE=$2 NAMES=$3 NAME=$3 "$LLMDLUA" -e 'require("llmd.rerun_script").main()'
}
trap 'said_left $?' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# releases_in_namespace: sets $releases to every helm release in $NAMESPACE, one name a line,
# whatever its state. Without --all helm 3 lists only deployed and failed releases (one
# being installed, upgraded or uninstalled is left out), and without --max 0 at most 256;
# helm 4 has no --all (it lists every state): asked again without it.
releases_in_namespace() {
    err=$(mktemp) || fail "cannot make a temporary file for helm's output"
    if releases=$(helm list --all --max 0 --short -n "$NAMESPACE" 2>"$err"); then
        :
    elif grep -q 'unknown flag: --all' "$err" && releases=$(helm list --max 0 --short -n "$NAMESPACE" 2>"$err"); then
        :
    else
        said=$(tr '\n' ' ' <"$err")
        rm -f "$err"
        fail "cannot list the releases in namespace $NAMESPACE (helm list --all --max 0 --short -n $NAMESPACE): $said"
    fi
    rm -f "$err"
}

# command_verb TOOL ARGS...: the first word of ARGS that is neither a flag nor a flag's value
# (helmfile -n NS apply -e ENV: apply), printed.
command_verb() {
    shift
    while [ $# -gt 0 ]; do
        case $1 in
        -n | -e | -f | -l | --namespace | --environment | --file | --selector | --kube-context | --state-values-file | \
            --state-values-set | --kubeconfig) shift ;;
        -*) ;;
        *)
            printf '%s\n' "$1"
            return 0
            ;;
        esac
        shift
    done
}

# deploy X DIR RELEASES COMMAND...: one of run X's deploy commands (its lines below, once
# uncommented), run in DIR as compare.lua ran it; RELEASES are the helm releases it installs
# or upgrades (or removes). Before it runs, the namespace's releases are listed: one of
# RELEASES that is there and that this comparison did not deploy - not the release recorded
# in run-X/deployed.json (or by this script's own deploy lines, run-X/rerun_deployed.json)
# as deployed and not torn down since, the same one (helm status's first_deployed and
# revision), so what is there now is someone else's - stops the script with one line naming
# it and what the command would do to it (helm upgrade: its next revision, from this run's
# chart and values; helmfile apply: an upgrade wherever the helmfile's release differs), and
# that the teardown lines would then remove it. A
# command that fails stops the script too. What it deployed is recorded (rerun_deployed.json),
# for the teardown lines.
deploy() {
    side=$1
    dir=$2
    names=$3
    shift 3
    take_lock
    record="$COMPARISON_DIR/run-$side/deployed.json"
    if [ -n "$names" ]; then
        releases_in_namespace
        set -f
        there=''
        for name in $names; do
            if printf '%s\n' "$releases" | grep -Fqx -e "$name"; then there="$there $name"; fi
        done
        set +f
        if [ -n "$there" ]; then
            whose=$(owner releases "$side" "$there") ||
                fail "run $side: cannot tell whose releases$there in namespace $NAMESPACE are; not deploying ($*)"
            theirs=$(printf '%s\n' "$whose" | sed -n 's/^theirs \([^ ]*\) \(.*\)$/\1 (\2)/p' | head -n 1)
            if [ -n "$theirs" ]; then
                # (what the command would do to it, said: "would change it" named no change)
                rev=$(printf '%s\n' "$theirs" | sed -n 's/^[^(]*(first deployed [^,]*, revision \([0-9][0-9]*\).*/\1/p')
                verb=$(command_verb "$@")
                case "$1 $verb" in
                'helm upgrade' | 'helm install')
                    if [ -n "$rev" ]; then next="revision $((rev + 1))"; else next="a new revision"; fi
                    change="helm $verb would make $next of it, from this run's chart and values" ;;
                'helmfile apply') change="helmfile apply would upgrade it wherever this helmfile's release differs from it" ;;
                'helmfile sync') change="helmfile sync would upgrade it to this helmfile's release" ;;
                'helm uninstall' | 'helmfile destroy' | 'helmfile delete') change="$1 $verb would uninstall it" ;;
                *) change="$1 $verb may change it" ;;
                esac
                fail "run $side: release ${theirs%% *} already exists in namespace $NAMESPACE and was not deployed by" \
                    "this comparison ${theirs#* }: $change, and run $side's teardown lines would then uninstall it;" \
                    "not deploying ($*)"
            fi
        fi
    fi
    results_pvc
    note_pods_before "$side"
    case $names in
    '') made="what $* made" ;;
    *' '*) made="releases $names" ;;
    *) made="release $names" ;;
    esac
    # (kept before it runs: a kill -9 during the command leaves the next run of this script
    # able to tell the releases it installed, as its own)
    owner deploying "$side" "$names" ||
        fail "run $side: cannot record in $COMPARISON_DIR/run-$side/rerun_deployed.json that its deploy starts; not deploying ($*)"
    if (cd "$dir" && "$@"); then
        deployed_here "$side" "$made"
        owner deployed "$side" "$names" ||
            fail "run $side: cannot record what it deployed in $COMPARISON_DIR/run-$side/rerun_deployed.json; stopping here"
    else
        deployed_here "$side" "$made, as far as it went"
        owner deployed "$side" "$names" || :
        fail "run $side: the deploy command failed: $*; stopping here"
    fi
}

# note_pods_before X: the namespace's pods as they are before run X's first deploy line here,
# kept for wait_ready X (a file named by pods_before_X): those, and pods of their controllers,
# are another stack's, as compare.lua's step 30 takes the pods there before a run's deploy.
note_pods_before() {
    case $1 in
    a) [ -z "$pods_before_a" ] || return 0 ;;
    b) [ -z "$pods_before_b" ] || return 0 ;;
    esac
    f=$(mktemp) || fail "run $1: cannot make a temporary file for the pods before its deploy"
    if ! kubectl -n "$NAMESPACE" get pods -o json >"$f"; then
        rm -f "$f"
        fail "run $1: cannot list the pods of namespace $NAMESPACE (kubectl -n $NAMESPACE get pods -o json); not deploying"
    fi
    case $1 in
    a) pods_before_a=$f ;;
    b) pods_before_b=$f ;;
    esac
}

# wait_ready X: waits after run X's deploy lines, as compare.lua's step 30 waited before the
# Service, smoke test and benchmark, until the stack is ready: every pod of run X Ready - not
# the harness launcher, not a finished one, not one that was in the namespace before its first
# deploy line here nor one whose controller was (another stack's), nor one whose chain of
# owners (ReplicaSet, Deployment, StatefulSet ... up to what helm stamped for a release) does
# not lead to a release or object run X deployed (run-X/deployed.json: another team's pods
# starting meanwhile; one whose owners cannot be read is not counted either) - and every InferencePool,
# Gateway and HTTPRoute condition (Programmed, Accepted, Ready) True; it looks every
# READY_POLL seconds for up to READY_TIMEOUT (the plan's timeouts). A pod in CrashLoopBackOff,
# ImagePullBackOff, ErrImagePull or OOMKilled, or no ready stack in time, stops the script.
wait_ready() {
    side=$1
    take_lock
    case $side in
    a) before=$pods_before_a ;;
    b) before=$pods_before_b ;;
    esac
    podsf=$(mktemp) || fail "run $side: cannot make a temporary file for kubectl's output"
    objsf=$(mktemp) || { rm -f "$podsf"; fail "run $side: cannot make a temporary file for kubectl's output"; }
    # (the InferencePool resources the cluster serves, fully qualified as step 30 lists them - a
    # bare inferencepool is kubectl's first group by name, on a cluster with GAIE's v1 and older
    # x-k8s.io groups maybe not the deploy's one; empty when none is served)
    pools=$("$LLMDLUA" -e '
        local ns = os.getenv("NAMESPACE")
        io.write(require("llmd.cluster").pool_resources({ k = require("llmd.k8s").new { namespace = ns }, ns = ns })
          or "")') || { rm -f "$podsf" "$objsf"; fail "run $side: cannot read the API resources of the cluster; stopping here"; }
    t0=$(date +%s)
    last=''
    while :; do
        if ! kubectl -n "$NAMESPACE" get pods -o json >"$podsf"; then
            rm -f "$podsf" "$objsf"
            fail "run $side: cannot list the pods of namespace $NAMESPACE (kubectl -n $NAMESPACE get pods -o json); stopping here"
        fi
        # (a cluster that serves none of these kinds has none to wait for, as step 30 takes it)
        kubectl -n "$NAMESPACE" get "${pools:+$pools,}gateways.gateway.networking.k8s.io,httproutes.gateway.networking.k8s.io" -o json >"$objsf" 2>/dev/null || : >"$objsf"
        state=$(PODS=$podsf OBJS=$objsf BEFORE=$before RECORD="$COMPARISON_DIR/run-$side/deployed.json" "$LLMDLUA" -e '
            local json, c = require("llmd.json"), require("llmd.cluster")
            local function items(p)
              local f = p ~= "" and io.open(p)
              if not f then return {} end
              local s = f:read("a")
              f:close()
              if not s:match("%S") then return {} end
              local v = json.decode(s)
              return type(v) == "table" and v.items or {}
            end
            local names, owners = {}, {}
            for _, p in ipairs(items(os.getenv("BEFORE") or "")) do
              names[tostring((p.metadata or {}).name)] = true
              owners[c.owner_key(p)] = true
            end
            -- whose each pod is, by its chain of owners up to a release or object this run
            -- deployed (its record: the same names this script deploys again), as step 30
            local ok, d = pcall(json.read, os.getenv("RECORD"))
            local chain
            if ok and type(d) == "table" and type(d.applied) == "table" and type(d.releases) == "table"
              and (#d.releases > 0 or #d.applied > 0) then
              local ns = os.getenv("NAMESPACE")
              chain = c.chain_resolver({ k = require("llmd.k8s").new { namespace = ns }, ns = ns },
                { releases = d.releases, applied = d.applied })
            end
            local r = c.readiness(items(os.getenv("PODS")), items(os.getenv("OBJS")), function(p)
              return names[tostring((p.metadata or {}).name)] or owners[c.owner_key(p)]
                or (chain ~= nil and chain(p) ~= "ours")
            end)
            if r.problem then
              print(("problem|pod %s is in %s (see kubectl -n %s describe pod %s)"):format(r.problem.pod,
                r.problem.reason, os.getenv("NAMESPACE"), r.problem.pod))
            else
              print(("%s|%s|%s"):format(r.done and "ready" or "waiting", r.line, r.why or ""))
            end') || { rm -f "$podsf" "$objsf"; fail "run $side: cannot read the pods of namespace $NAMESPACE; stopping here"; }
        kind=${state%%|*}
        rest=${state#*|}
        line=${rest%%|*}
        why=${rest#*|}
        case $kind in
        problem)
            rm -f "$podsf" "$objsf"
            fail "run $side: $rest; stopping here"
            ;;
        ready)
            rm -f "$podsf" "$objsf"
            printf 'run %s: the stack is ready (%s)\n' "$side" "$line"
            return 0
            ;;
        esac
        [ "$line" = "$last" ] || printf 'run %s: %s\n' "$side" "$line"
        last=$line
        if [ $(($(date +%s) - t0)) -ge "$READY_TIMEOUT" ]; then
            rm -f "$podsf" "$objsf"
            fail "run $side: the stack was not ready within $READY_TIMEOUT s ($why); stopping here"
        fi
        sleep "$READY_POLL"
    done
}

# service X NAME COMMAND...: run X's baseline Service NAME (its line below, once
# uncommented): the Service in front of the plain vLLM pods that compare.lua's step 40 made,
# created (kubectl create: never written over) from the manifest it kept
# (run-X/deploy/baseline-service.yaml); the benchmark reaches the pods through it. One this
# comparison made and did not tear down (run-X/deployed.json) is there already: kept, not
# made again. A Service NAME in the namespace that this comparison did not make (someone
# else's, or left by an earlier run of this script) stops the script with one line: it
# could select other pods, and the teardown lines would delete it.
service() {
    side=$1
    name=$2
    shift 2
    take_lock
    record="$COMPARISON_DIR/run-$side/deployed.json"
    whose=$(owner service "$side" "$name") ||
        fail "run $side: cannot read the Services of namespace $NAMESPACE or $record; not applying ($*)"
    case $whose in
    theirs\ *)
        fail "run $side: Service $name already exists in namespace $NAMESPACE and was not made by this comparison" \
            "(not recorded in $record or run-$side/rerun_deployed.json as made and not torn down since): it is not" \
            "this script's to use; not creating it ($*)"
        ;;
    ours\ *)
        echo "run $side: Service $name is there already, made by this comparison (recorded in $record): kept"
        ;;
    *)
        "$@" || fail "run $side: the Service command failed: $*; stopping here"
        owner service_made "$side" "$name" ||
            fail "run $side: cannot record the Service it made in $COMPARISON_DIR/run-$side/rerun_deployed.json; stopping here"
        ;;
    esac
    deployed_here "$side" "Service $name"
    case $side in a) svc_a=1 ;; b) svc_b=1 ;; esac
}

# benchmark X COMMAND...: run X's benchmark command (its line below, once uncommented).
# It stops the script when the command fails, or exits 0 without leaving results of its
# own on the results PVC (folders named with the experiment id it printed, else with a
# start time within its run); otherwise it copies them into
# $COMPARISON_DIR/reruns/run-X-<id>/results/, writes beside them the re-run's
# run_state.json (run X's configuration, its label with -rerun-<id> added, the time now,
# and the SLO run X's comparison was held to: the plan's slo: when run X's state has none),
# and says how to compare it. The re-run is outside run-X/, so run-X/ still holds run X's
# results alone. The report at the end is the saved one: compare a re-run with
# compare.lua --a "$COMPARISON_DIR"/run-X --b "$COMPARISON_DIR"/reruns/run-X-<id>.
benchmark() {
    side=$1
    shift
    take_lock
    results_pvc
    log=$(mktemp) || fail "run $side: cannot make a temporary file for the benchmark's output"
    # what the PVC held before (none where it cannot be listed yet): a folder already there
    # is not this run's, even when its id falls in the same second as the start
    before=$(kubectl -n "$NAMESPACE" exec llmdbench-harness-launcher -- ls /requests 2>/dev/null) || before=''
    t0=$(date +%s)
    { rc=0; "$@" 2>&1 || rc=$?; echo "$rc" >"$log.rc"; } | tee "$log"
    rc=$(cat "$log.rc" 2>/dev/null || echo "unknown")
    t1=$(date +%s)
    uid=$(sed -n -e 's/.*LLMDBENCH_RUN_EXPERIMENT_ID="\{0,1\}\([0-9][0-9]*\)_.*/\1/p' \
        -e 's/.*verify-model-\([0-9][0-9]*\).*/\1/p' \
        -e 's/.*[Ee]xperiment[ _]\{0,1\}[Ii][Dd][: =]*"\{0,1\}\([0-9][0-9]*\).*/\1/p' "$log" | head -n 1)
    rm -f "$log" "$log.rc"
    [ "$rc" = 0 ] || fail "run $side: the benchmark command failed (exit $rc): $*; stopping here"
    names=$(kubectl -n "$NAMESPACE" exec llmdbench-harness-launcher -- ls /requests) ||
        fail "run $side: the benchmark command exited 0, but the results on the PVC cannot be listed" \
            "(kubectl -n $NAMESPACE exec llmdbench-harness-launcher -- ls /requests); stopping here"
    new=$(printf '%s\n' "$names" | BEFORE=$before awk -F_ -v uid="$uid" -v t0="$t0" -v t1="$t1" '
        BEGIN { n = split(ENVIRON["BEFORE"], old, "\n"); for (i = 1; i <= n; i++) seen[old[i]] = 1 }
        $0 in seen { next }
        NF >= 3 && $2 ~ /^[0-9]+$/ { id = $2 }
        NF < 3 || $2 !~ /^[0-9]+$/ { id = ($1 ~ /^[0-9]+$/ && NF >= 2) ? $1 : "" }
        id != "" && ((uid != "" && id == uid) || (uid == "" && id + 0 >= t0 && id + 0 <= t1)) { print }')
    [ -n "$new" ] || fail "run $side: the benchmark command exited 0 but left no results of its own on the PVC" \
        "(experiment ${uid:-started at $t0}; there: $(printf '%s' "$names" | tr '\n' ' ')); stopping here"
    id=${uid:-$t0}
    dest="$COMPARISON_DIR/reruns/run-$side-$id"
    mkdir -p "$dest/results" || fail "run $side: cannot make $dest/results"
    printf '%s\n' "$new" | while IFS= read -r name; do
        kubectl -n "$NAMESPACE" cp "llmdbench-harness-launcher:/requests/$name" "$dest/results/$name" ||
            fail "run $side: cannot copy /requests/$name from the PVC into $dest/results"
    done || exit 1
    # the re-run's record: run X's (what compare.lua reads of a run folder's run_state.json:
    # its configuration, so that a comparison with run X is like for like, and its SLO)
    RECORD="$COMPARISON_DIR/run-$side/run_state.json" PLAN="$COMPARISON_DIR/plan.yaml" OUT="$dest/run_state.json" \
        ID=$id RESULTS="$dest/results" "$LLMDLUA" -e '
        local json = require "llmd.json"
        local st = json.read(os.getenv("RECORD"))
        st.label = st.label .. "-rerun-" .. os.getenv("ID")
        st.timestamp = os.date("!%Y-%m-%dT%H:%M:%SZ")
        st.results_path = os.getenv("RESULTS")
        -- (the metrics were run X'"'"'s: the re-run'"'"'s are read from its results)
        st.metrics, st.metrics_reasons, st.status, st.status_reasons = nil, nil, nil, nil
        local f = io.open(os.getenv("PLAN"))
        if f then
            f:close()
            local plan = require("llmd.yaml").load_file(os.getenv("PLAN"))
            if st.slo == nil and type(plan) == "table" and type(plan.slo) == "table" then st.slo = plan.slo end
        end
        -- (the cluster it ran on: a re-run elsewhere is no run-to-run variation of run X)
        require("llmd.rerun_script").stamp_cluster(st, os.getenv("COMPARISON_DIR"), os.getenv("NAMESPACE"))
        json.write(os.getenv("OUT"), st)' ||
        fail "run $side: cannot write the re-run's run_state.json into $dest (from $COMPARISON_DIR/run-$side/run_state.json)"
    # (the llmdlua this script runs, by its path: a bare llmdlua need not be on PATH, or be this one)
    printf 'run %s: results of the re-run in %s/results; compare it with run %s: %s compare.lua --a %s --b %s\n' \
        "$side" "$dest" "$side" "$(shq "$LLMDLUA")" "$(shq "$COMPARISON_DIR/run-$side")" "$(shq "$dest")"
}

# teardown X WHAT COMMAND...: one of run X's teardown commands (its lines below, once
# uncommented), as compare.lua ran them after the run: they remove only what the run's
# deploy created (WHAT), and each says what it removed. Only what this comparison deployed
# and has not torn down is removed: a release named only where the one in the namespace is
# the one recorded as deployed by compare.lua (run-X/deployed.json) or by this script's deploy
# lines (run-X/rerun_deployed.json) - the same first_deployed and revision (helm status) -, the
# baseline Service only where its uid is the one recorded so, any other line only where run X's
# stack is recorded so. Anything else of the same name (someone else's, or one torn down
# already) is left, said in one line. What it removed is recorded (rerun_deployed.json), so a
# second run of the script does not act on it again. The results PVC and the namespace are
# kept. A command that fails stops the script with one line.
teardown() {
    side=$1
    what=$2
    shift 2
    take_lock
    # (the option words of helm uninstall and kubectl delete that take a value: not a name)
    tool=${1##*/}
    verb=''
    res=''
    names=''
    i=0
    skip=''
    for a in "$@"; do
        i=$((i + 1))
        [ "$i" -gt 1 ] || continue
        if [ -n "$skip" ]; then skip=''; continue; fi
        case $a in
        -n | --namespace | --kube-context | --context | --kubeconfig | --timeout | --cascade | --description | -l | --selector)
            skip=1 ;;
        -*) ;;
        *)
            if [ -z "$verb" ]; then verb=$a
            elif [ "$tool" = kubectl ] && [ -z "$res" ]; then res=$a
            else names="${names:+$names }$a"; fi
            ;;
        esac
    done
    kind=other
    case $tool:$verb:$res in
    helm:uninstall:) [ -z "$names" ] || kind=releases ;;
    kubectl:delete:service | kubectl:delete:services | kubectl:delete:svc) case $names in *' '* | '') ;; *) kind=service ;; esac ;;
    esac
    ran=''
    case $kind in
    releases)
        whose=$(owner releases "$side" "$names") ||
            fail "run $side: cannot tell whose releases $names in namespace $NAMESPACE are; not removing them ($*)"
        ours=$(printf '%s\n' "$whose" | sed -n 's/^ours //p')
        printf '%s\n' "$whose" | sed -n 's/^theirs \([^ ]*\) \(.*\)$/\1 (\2)/p' | while IFS= read -r l; do
            printf 'run_comparison.sh: run %s: release %s in namespace %s is not this script'"'"'s to remove %s: left\n' \
                "$side" "${l%% *}" "$NAMESPACE" "${l#* }" >&2
        done
        gone=$(printf '%s\n' "$whose" | sed -n 's/^gone //p' | tr '\n' ' ' | sed 's/ $//')
        [ -z "$gone" ] || printf 'run %s: no release %s in namespace %s: nothing to remove\n' "$side" "$gone" "$NAMESPACE"
        if [ -n "$ours" ]; then
            # (the command with only those release names)
            i=0
            skip=''
            verb=''
            for a in "$@"; do
                [ "$i" -gt 0 ] || set --
                i=$((i + 1))
                keep=1
                if [ -n "$skip" ]; then
                    skip=''
                elif [ "$i" -gt 1 ]; then
                    case $a in
                    -n | --namespace | --kube-context | --context | --kubeconfig | --timeout | --cascade | --description) skip=1 ;;
                    -*) ;;
                    *)
                        if [ -z "$verb" ]; then verb=$a
                        else printf '%s\n' "$ours" | grep -Fqx -e "$a" || keep=''; fi
                        ;;
                    esac
                fi
                [ -z "$keep" ] || set -- "$@" "$a"
            done
            "$@" || fail "run $side: the teardown command failed: $*; $what may be left in namespace $NAMESPACE; stopping here"
            ours=$(printf '%s\n' "$ours" | tr '\n' ' ' | sed 's/ $//')
            owner uninstalled "$side" "$ours" ||
                fail "run $side: cannot record what it removed in $COMPARISON_DIR/run-$side/rerun_deployed.json"
            # (the line's WHAT when it removed every release it names, else those it did)
            if [ "$ours" = "$names" ]; then ran=$what; else
                case $ours in *' '*) ran="releases $(printf '%s' "$ours" | sed 's/ /, /g')" ;; *) ran="release $ours" ;; esac
            fi
        fi
        ;;
    service)
        whose=$(owner service "$side" "$names") ||
            fail "run $side: cannot tell whose Service $names in namespace $NAMESPACE is; not removing it ($*)"
        case $whose in
        ours\ *)
            "$@" || fail "run $side: the teardown command failed: $*; $what may be left in namespace $NAMESPACE; stopping here"
            owner service_deleted "$side" "$names" ||
                fail "run $side: cannot record what it removed in $COMPARISON_DIR/run-$side/rerun_deployed.json"
            ran="Service $names"
            ;;
        theirs\ *)
            printf 'run_comparison.sh: run %s: Service %s in namespace %s is not this script'"'"'s to remove (%s): left\n' \
                "$side" "$names" "$NAMESPACE" "${whose#theirs * }" >&2
            ;;
        *) printf 'run %s: no Service %s in namespace %s: nothing to remove\n' "$side" "$names" "$NAMESPACE" ;;
        esac
        ;;
    *)
        whose=$(owner stack "$side" "") ||
            fail "run $side: cannot tell whether this comparison's run $side is deployed; not removing $what ($*)"
        if [ "$whose" = ours ]; then
            "$@" || fail "run $side: the teardown command failed: $*; $what may be left in namespace $NAMESPACE; stopping here"
            ran=$what
        else
            printf 'run_comparison.sh: run %s: %s: run %s is not recorded as deployed by this comparison and not torn down (run-%s/deployed.json, run-%s/rerun_deployed.json): not this script'"'"'s to remove: left (%s)\n' \
                "$side" "$what" "$side" "$side" "$side" "$*" >&2
        fi
        ;;
    esac
    # (every teardown line of the run ran: nothing of its deploy is left)
    case $side in
    a) torn_a=$((torn_a + 1)); [ "$torn_a" -lt "$TEARDOWN_LINES_a" ] || left_a='' ;;
    b) torn_b=$((torn_b + 1)); [ "$torn_b" -lt "$TEARDOWN_LINES_b" ] || left_b='' ;;
    esac
    case $side in
    a) all=$((torn_a >= TEARDOWN_LINES_a)) ;;
    b) all=$((torn_b >= TEARDOWN_LINES_b)) ;;
    esac
    [ "$all" = 0 ] || owner torn_down "$side" "" ||
        fail "run $side: cannot record its teardown in $COMPARISON_DIR/run-$side/rerun_deployed.json"
    [ -n "$ran" ] || return 0
    printf 'run %s: %s removed (where still there); the results PVC and namespace %s are kept\n' "$side" "$ran" \
        "$NAMESPACE"
}
{% for side in sides %}

# ---- Run {{ side.x | upper }}: {{ side.label }} ----------------------------------------
{% if side.imported %}
# Imported, not benchmarked by this comparison: results from
#   {{ side.source }}
{% end %}
# What is known of its configuration (run-{{ side.x }}/run_state.json):
{{ side.state_text | comment }}
{% if side.config_text != "" %}
# Benchmark configuration:
{{ side.config_text | comment }}
{% end %}
{% if len(side.commands) > 0 %}
# Commands (the deploy's through deploy() above, then wait_ready() for its pods, as the
# comparison waited, a baseline's Service through service(), the benchmark's through
# benchmark(){% if len(side.teardown) > 0 %}, then its teardown, as it ran, through teardown(): each says what it
# removed{% end %}); every line of this block is a command, to uncomment as a whole or line by line:
{% for c in side.commands %}
{{ c | comment }}
{% end %}
{% for c in side.teardown %}
{{ c | comment }}
{% end %}
{% elif len(side.recorded_commands) > 0 %}
# Commands of the original run, as its own comparison ran them (recorded in
#   {{ side.commands_from }}
# its paths that comparison's workspace); not this comparison's: shown, not to be run from here
{% for c in side.recorded_commands %}
{{ c | comment }}
{% end %}
{% else %}
# No commands recorded for this run.
{% end %}
{% if len(side.teardown) > 0 and len(side.commands) == 0 %}
# Teardown, as it ran (through teardown() above: each says what it removed):
{% for c in side.teardown %}
{{ c | comment }}
{% end %}
{% end %}
{% end %}

# ---- Re-generate the report from the saved workspace (its saved results) ----------------
# (the locks this script took are let go first: analyze.lua takes the workspace's)
let_go
{{ analyze }}
