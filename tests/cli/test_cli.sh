#!/bin/sh
# The llmdlua binary's command line: exit codes, error wording, script lookup in a
# build tree and an installed prefix, package.path, strict globals, Ctrl-C.
#
# usage: tests/cli/test_cli.sh BIN     (ends with "N passed, N failed")
set -u
BIN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
REPO=$(cd "$(dirname "$0")/../.." && pwd)
TMP_STEM=llmdlua-cli
# shellcheck source=tests/testlib.sh
. "$REPO/tests/testlib.sh"

# run CMD...: sets $out, $err, $rc
run() {
    "$@" >"$TMP/out" 2>"$TMP/err"
    rc=$?
    out=$(cat "$TMP/out")
    err=$(cat "$TMP/err")
}

expect_rc() {
    if [ "$rc" -eq "$1" ]; then ok; else fail "exit code $rc, want $1 (stderr: $err)"; fi
}
expect_out() {
    if [ "$out" = "$1" ]; then ok; else fail "stdout '$out', want '$1'"; fi
}
expect_err_has() {
    case "$err" in *"$1"*) ok ;; *) fail "stderr '$err' lacks '$1'" ;; esac
}
expect_err_first() {
    first=$(printf '%s\n' "$err" | head -n 1)
    if [ "$first" = "$1" ]; then ok; else fail "stderr first line '$first', want '$1'"; fi
}

cd "$TMP" || exit 1

name="no arguments: usage on stderr, exit 2"
run "$BIN"
expect_rc 2
expect_err_has "usage: llmdlua [options] SCRIPT [args...]"

name="-h: usage on stdout, exit 0"
run "$BIN" -h
expect_rc 0
case "$out" in *"exit status: 0 ok, 1 script error, 2 usage error, 130 interrupted"*) ok ;; *) fail "$out" ;; esac

# newuser50b F13: -h named 8 of the modules. Every module the README's Modules headings
# name is in -h's list, and every Lua one listed is a file of lua/llmd (the list is
# main.c's preloads and LUA_MODULES)
name="-h: lists every module the README documents, each one that exists"
run "$BIN" -h
listed=$(printf '%s\n' "$out" | sed -n '/^modules (README: Modules):$/,/^$/p' | tr ' ,' '\n' |
    sed 's/\.$//' | grep -E '^(llmd\.[a-z_]+|lfs)$')
documented=$(sed -n '/^## Modules$/,/^## Metric catalogue$/p' "$REPO/README.md" | grep '^### ' |
    grep -oE "\`(llmd\\.[a-z_]+|lfs)\`" | tr -d "\`" | sort -u)
missing=""
for m in $documented; do
    printf '%s\n' "$listed" | grep -qx "$m" || missing="$missing $m"
done
for m in $listed; do
    case "$m" in
    llmd.json | llmd.yaml | llmd.proc | llmd.http | llmd.stats | llmd.scan | llmd.prom | llmd.host | lfs) ;;
    *)
        f="$REPO/lua/$(printf '%s' "$m" | tr . /)"
        [ -f "$f.lua" ] || [ -f "$f/init.lua" ] || missing="$missing no-file:$m"
        ;;
    esac
done
if [ -z "$missing" ] && [ "$(printf '%s\n' "$listed" | wc -l)" -ge 18 ]; then ok; else fail "missing:$missing; listed: $listed"; fi

name="-v: versions of llmdlua, Lua, libyaml, libcurl"
run "$BIN" -v
expect_rc 0
case "$out" in "llmdlua "[0-9]*"
Lua 5.4."*"
libyaml "*"
libcurl "*) ok ;; *) fail "$out" ;; esac

# libcurl is loaded on first use (lhttp.c): a script without HTTP runs without it, and
# llmd.http says which library it could not load
name="no libcurl: scripts without HTTP run, llmd.http names what it could not load"
printf 'print(require("llmd.json").encode({1}))\n' >"$TMP/nohttp.lua"
LLMDLUA_LIBCURL=/nonexistent/libcurl.so.4 run "$BIN" "$TMP/nohttp.lua"
expect_rc 0
expect_out "[1]"
printf 'require("llmd.http")\n' >"$TMP/http.lua"
LLMDLUA_LIBCURL=/nonexistent/libcurl.so.4 run "$BIN" "$TMP/http.lua"
expect_rc 1
expect_err_has "llmd.http: cannot load /nonexistent/libcurl.so.4"
expect_err_has "LLMDLUA_LIBCURL"
LLMDLUA_LIBCURL=libz.so.1 run "$BIN" "$TMP/http.lua"
expect_rc 1
expect_err_has "llmd.http: libz.so.1 has no curl_global_init"
LLMDLUA_LIBCURL=/nonexistent/libcurl.so.4 run "$BIN" -v
expect_rc 0
case "$out" in *"libcurl not available: cannot load /nonexistent/libcurl.so.4"*) ok ;; *) fail "$out" ;; esac

name="unknown option, -e without code: exit 2"
run "$BIN" --bogus
expect_rc 2
expect_err_first "llmdlua: unknown option '--bogus'"
run "$BIN" -e
expect_rc 2
expect_err_first "llmdlua: '-e' needs an argument"

name="missing script: exit 2, named"
run "$BIN" nope.lua
expect_rc 2
expect_err_first "llmdlua: cannot find script 'nope.lua' (looked in . and $(dirname "$BIN")/lua)"

name="a script named without .lua: the one meant said (newuser54 F5)"
run "$BIN" compare
expect_rc 2
expect_err_first "llmdlua: cannot find script 'compare' (looked in . and $(dirname "$BIN")/lua); did you mean compare.lua? (llmdlua compare.lua --help)"
run "$BIN" nope
expect_rc 2
expect_err_first "llmdlua: cannot find script 'nope' (looked in . and $(dirname "$BIN")/lua)"

name="a misspelt script: the nearest of lua/'s scripts said, as for options (newuser56 #4)"
run "$BIN" compre.lua
expect_rc 2
expect_err_first "llmdlua: cannot find script 'compre.lua' (looked in . and $(dirname "$BIN")/lua); did you mean compare.lua? (llmdlua compare.lua --help)"
run "$BIN" analyse.lua --help
expect_rc 2
expect_err_first "llmdlua: cannot find script 'analyse.lua' (looked in . and $(dirname "$BIN")/lua); did you mean analyze.lua? (llmdlua analyze.lua --help)"
run "$BIN" extrct
expect_rc 2
expect_err_first "llmdlua: cannot find script 'extrct' (looked in . and $(dirname "$BIN")/lua); did you mean extract.lua? (llmdlua extract.lua --help)"

name="--slo with a unit: drop the unit, the limit is in the key's (newuser54 F5)"
run "$BIN" treatments.lua --run a=/tmp --run b=/tmp --slo ttft_p90_ms=500ms
expect_rc 2
expect_err_first "treatments.lua: --slo: ttft_p90_ms: expected a plain number, got '500ms': drop the unit (the limit is in ms, as the key says): ttft_p90_ms=500"
run "$BIN" treatments.lua --run a=/tmp --run b=/tmp --slo ttft_p90_ms=0.5s
expect_rc 2
expect_err_first "treatments.lua: --slo: ttft_p90_ms: expected a plain number, got '0.5s': drop the unit (the limit is in ms, as the key says)"
# (tidy55) a space before the unit: the same advice, not "expected key=value"
run "$BIN" treatments.lua --run a=/tmp --run b=/tmp --slo 'ttft_p90_ms=500 ms'
expect_rc 2
expect_err_first "treatments.lua: --slo: ttft_p90_ms: expected a plain number, got '500 ms': drop the unit (the limit is in ms, as the key says): ttft_p90_ms=500"

name="-e runs code; the json example from the README works anywhere"
run "$BIN" -e 'print(require"llmd.json".encode{a=1})'
expect_rc 0
expect_out '{"a":1}'

name="arg table: script at 0, arguments from 1, options below"
printf 'print(arg[-2], arg[-1], arg[0], arg[1], arg[2], #arg, ...)\n' >args.lua
run "$BIN" -e 'x=1' args.lua one "two words"
expect_out "-e	x=1	args.lua	one	two words	2	one	two words"

name="an uncaught error: file:line: message, a traceback, exit 1"
printf 'local x = 1\nerror("bad thing")\n' >err.lua
run "$BIN" err.lua
expect_rc 1
expect_err_first "llmdlua: err.lua:2: bad thing"
expect_err_has "stack traceback:"
printf 'error({code = 1})\n' >errtab.lua
run "$BIN" errtab.lua
expect_rc 1
expect_err_first "llmdlua: (error object is a table value)"
printf 'local x = \n' >syntax.lua
run "$BIN" syntax.lua
expect_rc 1
expect_err_first "llmdlua: syntax.lua:2: unexpected symbol near <eof>"

# issue 17 item 10: a user's mistake is one message naming their file; a traceback only
# for internal errors (a Lua position in front, "bad argument") or with LLMDLUA_TRACE=1
name="a user's mistake: the message, no traceback; LLMDLUA_TRACE=1 adds it"
printf 'error("plan.yaml:3: runs.a: missing", 0)\n' >user.lua
run "$BIN" user.lua
expect_rc 1
expect_err_first "llmdlua: plan.yaml:3: runs.a: missing"
case "$err" in *"stack traceback"*) fail "traceback for a user's mistake: $err" ;; *) ok ;; esac
LLMDLUA_TRACE=1 run "$BIN" user.lua
expect_err_has "stack traceback:"
name="a native module's failure names the user's file, not the Lua line that called it"
printf '{"a":\n' >bad.json
printf 'local json = require "llmd.json"\nlocal v = json.read(arg[1])\n' >reader.lua
run "$BIN" reader.lua bad.json
expect_rc 1
expect_err_first "llmdlua: bad.json:2:1: unexpected end of input, expected a value"
case "$err" in *"stack traceback"*|*"reader.lua"*) fail "internal detail shown: $err" ;; *) ok ;; esac
# issue api item 1: our API refusing what a script passed is one line at the script's line
# (not a traceback, not "bad argument #-1"); the script's own errors keep theirs
name="a script's bad argument to our API: one line at its line, no traceback"
printf 'local stats = require "llmd.stats"\nlocal s = stats.new { method = "median" }\n' >badopt.lua
run "$BIN" badopt.lua
expect_rc 1
expect_err_first "llmdlua: badopt.lua:2: stats.new: option method: expected 'linear' or 'nearest', got 'median'"
if [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ]; then ok; else fail "more than one line: $err"; fi
LLMDLUA_TRACE=1 run "$BIN" badopt.lua
expect_err_has "stack traceback:"
printf 'local m = require "llmd.metrics"\n\nm.get("ttft_p9_ms")\n' >badkey.lua
run "$BIN" badkey.lua
expect_rc 1
expect_err_first "llmdlua: badkey.lua:3: metrics.get: unknown metric 'ttft_p9_ms' (did you mean 'ttft_p90_ms'?)"
if [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ]; then ok; else fail "more than one line: $err"; fi
name="an internal error keeps its position and traceback"
printf 'local t\nreturn t.x\n' >bug.lua
run "$BIN" bug.lua
expect_err_first "llmdlua: bug.lua:2: attempt to index a nil value (local 't')"
expect_err_has "stack traceback:"
run "$BIN" -e 'io.open(nil)'
expect_err_has "stack traceback:"
name="compare.lua: a missing folder, a malformed plan: one line each"
printf 'runs: [\n' >plan.yaml
run "$BIN" compare.lua --plan plan.yaml
expect_rc 1
expect_err_first "llmdlua: plan.yaml:2:1: did not find expected node content while parsing a flow node (started at line 2, column 1)"
if [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ]; then ok; else fail "more than one line: $err"; fi
# a command line naming nothing is a usage error (exit 2, the script's name), as the
# README's "Errors before anything is created" and "Exit status" say
run "$BIN" compare.lua --a nope --b nope2
expect_rc 2
expect_err_first "compare.lua: --a nope: no such folder (expected the run's results folder)"
if [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ]; then ok; else fail "more than one line: $err"; fi
run "$BIN" compare.lua --a plan.yaml --b nope2
expect_rc 2
expect_err_first "compare.lua: --a plan.yaml: a file, not a folder (expected the run's results folder)"

name="compare.lua: the same folder twice, the same label twice, a missing --a-info: usage errors, exit 2"
mkdir -p runA
run "$BIN" compare.lua --a runA --b "$TMP/runA/"
expect_rc 2
expect_err_first "compare.lua: --a runA and --b $TMP/runA/ are the same folder: a run compared with itself shows nothing; give the other configuration's results folder"
mkdir -p runB
run "$BIN" compare.lua --a runA --b runB --a-label x --b-label x
expect_rc 2
expect_err_first "compare.lua: both runs are labelled 'x'; give them different labels with --a-label and --b-label"
# an empty label made "| (A)" headings and "offered for , ..." sentences
run "$BIN" compare.lua --a runA --b runB --b-label ""
expect_rc 2
expect_err_first "compare.lua: --b-label: empty; give the run a name (the default is its folder's name)"
run "$BIN" compare.lua --a runA --b runB --a-info nope.yaml
expect_rc 2
expect_err_first "compare.lua: --a-info nope.yaml: cannot open: No such file or directory"
if [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ]; then ok; else fail "more than one line: $err"; fi
name="compare.lua: an info file's unknown key is an error in the data (exit 1), at its line, with the key it most likely meant"
printf 'model: m\ngpu: 2\n' >gpu.info.yaml
run "$BIN" compare.lua --a runA --b runB --a-info gpu.info.yaml
expect_rc 1
expect_err_has "llmdlua: --a-info gpu.info.yaml:2: unknown key 'gpu' (did you mean 'gpus'? known: "

name="compare.lua: a misspelt key under stack: is kept as an extra row, with a warning naming the key it most likely meant"
printf 'stack:\n  replicas: 2\n  gpu: 2\n' >stackgpu.info.yaml
run "$BIN" compare.lua --a "$REPO/tests/fixtures/kubecon-na-2025_vllm" \
    --b "$REPO/tests/fixtures/kubecon-na-2025_vllm_chunking_and_prefix_caching" --a-info stackgpu.info.yaml \
    --parent "$TMP" --quiet
expect_rc 0
expect_err_has "warning: stackgpu.info.yaml:3: stack: 'gpu' is kept as an extra row, not read as 'gpus' (did you mean 'gpus'?)"
# replicas is no near miss of a key llmdlua reads: said nothing of
case "$err" in *"'replicas'"*) fail "warned of replicas: $err" ;; *) ok ;; esac

name="compare.lua: a --parent that does not exist is made, and said (a mistyped one held the workspace silently)"
run "$BIN" compare.lua --a "$REPO/tests/fixtures/kubecon-na-2025_vllm" \
    --b "$REPO/tests/fixtures/kubecon-na-2025_vllm_chunking_and_prefix_caching" --parent "$TMP/nope/deeper"
expect_rc 0
expect_err_has "note: $TMP/nope/deeper did not exist; made it for the workspace"

name="an error comes after what the script printed before it, on one pipe too"
"$BIN" -e 'io.write("Workspace: here\n"); error("boom", 0)' >"$TMP/both" 2>&1
if [ "$(cat "$TMP/both")" = "$(printf 'Workspace: here\nllmdlua: boom')" ]; then ok; else fail "order: $(cat "$TMP/both")"; fi

name="os.exit propagates its code"
run "$BIN" -e 'os.exit(7)'
expect_rc 7
run "$BIN" -e 'os.exit(false)'
expect_rc 1
run "$BIN" -e 'os.exit(true)'
expect_rc 0

name="strict globals: reading an undefined one raises"
run "$BIN" -e 'local v = undefined_thing'
expect_rc 1
expect_err_first "llmdlua: (command line):1: undefined global 'undefined_thing'"
run "$BIN" -e 'newglobal = 1; assert(newglobal == 1)'
expect_rc 0

name="no globals added by any native module"
run "$BIN" -e '
local before = {}
for k in pairs(_G) do before[k] = true end
for _, m in ipairs{"llmd.json", "llmd.yaml", "llmd.proc", "llmd.http", "lfs"} do require(m) end
for k in pairs(_G) do if not before[k] then print("new global: " .. k) end end
print(rawget(_G, "lfs"), rawget(_G, "llmd"))'
expect_out "nil	nil"

name="script from stdin with -"
out=$(echo 'print(1 + 1)' | "$BIN" -)
if [ "$out" = 2 ]; then ok; else fail "got '$out'"; fi

name="modules beside the script and from LLMDLUA_PATH (;; = defaults)"
mkdir -p proj/lib other
printf 'return {v = "beside"}\n' >proj/mod_a.lua
printf 'return {v = "env"}\n' >other/mod_b.lua
printf 'print(require("mod_a").v, require("mod_b").v, require("llmd.json") ~= nil)\n' >proj/main.lua
LLMDLUA_PATH="$TMP/other/?.lua;;" run "$BIN" proj/main.lua
expect_rc 0
expect_out "beside	env	true"
root=$(dirname "$BIN")
LLMDLUA_PATH=";;$TMP/other/?.lua" run "$BIN" -e 'print(package.path)'
expect_out "$root/lua/?.lua;$root/lua/?/init.lua;$TMP/other/?.lua"
LLMDLUA_PATH="$TMP/other/?.lua" run "$BIN" proj/main.lua
expect_out "beside	env	true"

# A copy of the binary in each install layout, with a script only there.
name="lookup: build-tree layout (lua/ beside the binary), from any folder"
mkdir -p tree/lua
cp "$BIN" tree/llmdlua
printf 'print("tree", arg[1])\n' >tree/lua/hello.lua
mkdir -p elsewhere && cd elsewhere || exit 1
run "$TMP/tree/llmdlua" hello.lua x
expect_rc 0
expect_out "tree	x"
cd "$TMP" || exit 1

name="lookup: installed layout (PREFIX/bin + PREFIX/share/llmdlua/lua)"
mkdir -p prefix/bin prefix/share/llmdlua/lua/llmd
cp "$BIN" prefix/bin/llmdlua
printf 'print("installed", (require("llmd.greet")))\n' >prefix/share/llmdlua/lua/hello.lua
printf 'return "hi"\n' >prefix/share/llmdlua/lua/llmd/greet.lua
cd elsewhere || exit 1
run "$TMP/prefix/bin/llmdlua" hello.lua
expect_out "installed	hi"
name="lookup: ./SCRIPT in the working folder wins over the installed one"
printf 'print("local copy")\n' >hello.lua
run "$TMP/prefix/bin/llmdlua" hello.lua
expect_out "local copy"
cd "$TMP" || exit 1

name="make install PREFIX=... gives a working install"
if [ -z "${SKIP_INSTALL_TEST:-}" ]; then
    if make -s -C "$REPO" install PREFIX="$TMP/inst" >"$TMP/install.log" 2>&1; then
        cd elsewhere || exit 1
        run "$TMP/inst/bin/llmdlua" -e 'print(require"llmd.json".encode{a=1})'
        expect_out '{"a":1}'
        if [ -f "$TMP/inst/share/llmdlua/lua/doctor.lua" ] &&
            [ -d "$TMP/inst/share/llmdlua/templates" ]; then
            ok
        else
            fail "share/llmdlua/lua or templates missing"
        fi
        run "$TMP/inst/bin/llmdlua" doctor.lua
        case "$out" in *"root      $TMP/inst/bin/../share/llmdlua"*) ok ;; *) fail "doctor: $out" ;; esac
        cd "$TMP" || exit 1
    else
        fail "make install failed: $(cat "$TMP/install.log")"
    fi
fi

name="Ctrl-C (SIGINT) stops the script and its children, exit 130"
cat >sleepy.lua <<'LUA'
local proc = require "llmd.proc"
proc.run({ "sh", "-c", "echo $$ > " .. arg[1] .. "; sleep 30 & sleep 30; wait" })
LUA
"$BIN" sleepy.lua "$TMP/child.pid" >/dev/null 2>"$TMP/err" &
host=$!
i=0
while [ ! -s "$TMP/child.pid" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
kill -INT $host
wait $host
rc=$?
err=$(cat "$TMP/err")
expect_rc 130
expect_err_first "llmdlua: interrupted"
child=$(cat "$TMP/child.pid")
if kill -0 -- "-$child" 2>/dev/null; then fail "process group $child survived"; else ok; fi

FIX=${LLMDLUA_FIXTURES:-$REPO/../shared/fixtures}

name="extract.lua --br 0.3: a usage error naming the option"
run "$BIN" "$REPO/lua/extract.lua" "$FIX/inferencemax" --br 0.3
expect_rc 2
expect_err_first "extract.lua: --br: expected 0.2 or 0.1, got 0.3"

name="extract.lua on a path that does not exist: one line saying no file or folder, exit 2 (a usage error, as in every script)"
run "$BIN" "$REPO/lua/extract.lua" "$TMP/no-such-dir/result.json"
expect_rc 2
expect_err_first "extract.lua: $TMP/no-such-dir/result.json: no such file or folder (expected a benchmark results folder or one result file)"

# a folder without results: "llmdlua: ..." as every script's error in the data (it said
# "extract.lua: ..."), naming the folder; what was looked for on the second line; nothing made
name="extract.lua --br on a folder without results: one llmdlua: line naming the folder, exit 1"
mkdir -p "$TMP/no-results"
run "$BIN" "$REPO/lua/extract.lua" "$TMP/no-results" --br 0.2 --out "$TMP/br-none"
expect_rc 1
first=$(printf '%s\n' "$err" | head -n 1)
case "$first" in
"llmdlua: no benchmark report written: no benchmark results under $TMP/no-results (no file of "*) ok ;;
*) fail "first line: $first" ;;
esac
case "$(printf '%s\n' "$err" | sed -n 2p)" in "looked for: "*) ok ;; *) fail "second line: $err" ;; esac
if [ -e "$TMP/br-none" ]; then fail "--out folder made"; else ok; fi

name="extract.lua --br 0.2: one report per load point, paths on stdout"
run "$BIN" "$REPO/lua/extract.lua" "$FIX/vllm-benchmark/exp-7_H100/llm-d-1p1d" --br 0.2 --out "$TMP/br"
expect_rc 0
if [ "$(printf '%s\n' "$out" | wc -l)" -eq 3 ] && [ -s "$TMP/br/benchmark_report_v0.2,_benchmark_2025-05-13_04-37-51.json.yaml" ]; then
    ok
else
    fail "$out"
fi

name="experiment.lua: a missing experiment file is one line naming it, exit 2 (a usage error, as in compare.lua)"
run "$BIN" "$REPO/lua/experiment.lua" "$TMP/nope.yaml" --show
expect_rc 2
expect_err_first "experiment.lua: $TMP/nope.yaml: no such file (expected the experiment, a YAML file)"
if [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ]; then ok; else fail "more than one line: $err"; fi

# compare.lua's checks of what the user gave, before anything is made (the new user's
# walkthrough): the fixture runs have 3 stages each (3 files, one load point each: counted
# with ls)
V7="$FIX/vllm-benchmark/exp-7_H100"
mkdir -p "$TMP/cw"
made() { find "$TMP/cw" -mindepth 1 -maxdepth 1 | head -n 1; }

name="compare.lua --warmup marking every stage: a usage error, nothing made"
run "$BIN" compare.lua --a "$V7/llm-d-2p1d" --b "$V7/vllm-2replicas" --warmup 0,1,2 --parent "$TMP/cw"
expect_rc 2
expect_err_first "compare.lua: --warmup 0,1,2 marks every stage of run A 'llm-d-2p1d' (3 stages: 0-2): nothing would be measured"
if [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ]; then ok; else fail "more than one line: $err"; fi
if [ -z "$(made)" ]; then ok; else fail "made: $(made)"; fi
run "$BIN" compare.lua --a "$V7/llm-d-2p1d" --b "$V7/vllm-2replicas" --b-warmup 0-2 --parent "$TMP/cw"
expect_rc 2
expect_err_first "compare.lua: --b-warmup 0-2 marks every stage of run B 'vllm-2replicas' (3 stages: 0-2): nothing would be measured"

name="compare.lua --warmup naming a stage the run does not have: a usage error naming the stage count"
run "$BIN" compare.lua --a "$V7/llm-d-2p1d" --b "$V7/vllm-2replicas" --warmup 7 --parent "$TMP/cw"
expect_rc 2
expect_err_first "compare.lua: --warmup 7: run A 'llm-d-2p1d' has no stage 7 (3 stages: 0-2)"
run "$BIN" compare.lua --a "$V7/llm-d-2p1d" --b "$V7/vllm-2replicas" --a-warmup 0 --b-warmup 3 --parent "$TMP/cw"
expect_rc 2
expect_err_first "compare.lua: --b-warmup 3: run B 'vllm-2replicas' has no stage 3 (3 stages: 0-2)"
if [ -z "$(made)" ]; then ok; else fail "made: $(made)"; fi

name="compare.lua: an empty folder is one line, what was looked for a second at most"
mkdir -p "$TMP/emptyrun"
run "$BIN" compare.lua --a "$TMP/emptyrun" --b "$V7/vllm-2replicas" --parent "$TMP/cw"
expect_rc 1
expect_err_first "llmdlua: --a $TMP/emptyrun: no benchmark results under $TMP/emptyrun (no file of benchmark-report, guidellm, inference-perf, inferencemax, vllm-benchmark; README \"llmd.harness\": what each harness reads)"
if [ "$(printf '%s\n' "$err" | wc -l)" -le 2 ]; then ok; else fail "more than two lines: $err"; fi
expect_err_has "looked for: benchmark-report: "

name="compare.lua: repeats of one harness side by side: the advice names what helps, never --harness"
mkdir -p "$TMP/reps/x_wl_run1" "$TMP/reps/x_wl_run2"
for r in 1 2; do
    cp "$FIX/inference-perf/kubecon-na-2025_vllm/stage_0_lifecycle_metrics.json" "$TMP/reps/x_wl_run$r/"
done
for h in "" "--harness inference-perf"; do
    # shellcheck disable=SC2086 # $h is an option and its value, or nothing
    run "$BIN" compare.lua --a "$TMP/reps" --b "$V7/vllm-2replicas" $h --parent "$TMP/cw"
    expect_rc 1
    expect_err_first "llmdlua: $TMP/reps holds 2 inference-perf runs, in different folders:"
    expect_err_has "choose one: pass the folder of one run (one of those above; compare.lua compares one run with one run: --a $TMP/reps/x_wl_run1 --b $TMP/reps/x_wl_run2); to compare them all, treatments.lua takes one --run per run, each under its own name (treatments.lua --run x_wl_run1=$TMP/reps/x_wl_run1 --run x_wl_run2=$TMP/reps/x_wl_run2); only repeats of one configuration share a name (README: Comparing N treatments)"
    case "$err" in *"--harness"*) fail "advises --harness: $err" ;; *) ok ;; esac
done
if [ -z "$(made)" ]; then ok; else fail "made: $(made)"; fi

# newuserd51 3: exp-7_H100 holds four configurations (llm-d-1p1d, llm-d-2p1d, vllm-2replicas,
# vllm-3replicas); the advice pooled two of them under one --run NAME. Each gets its own name now,
# and the suggested treatments.lua command runs.
name="compare.lua --a a folder of four configurations: one --run per configuration, each its own name"
run "$BIN" compare.lua --a "$V7" --b "$FIX/inference-perf/kubecon-na-2025_vllm" --parent "$TMP/cw"
expect_rc 1
expect_err_first "llmdlua: $V7 holds 4 vllm-benchmark runs, in different folders:"
expect_err_has "(treatments.lua --run llm-d-1p1d=$V7/llm-d-1p1d --run llm-d-2p1d=$V7/llm-d-2p1d --run vllm-2replicas=$V7/vllm-2replicas --run vllm-3replicas=$V7/vllm-3replicas)"
case "$err" in *"NAME="*) fail "one name for several folders: $err" ;; *) ok ;; esac
run "$BIN" treatments.lua --run "llm-d-1p1d=$V7/llm-d-1p1d" --run "llm-d-2p1d=$V7/llm-d-2p1d" --run "vllm-2replicas=$V7/vllm-2replicas" --run "vllm-3replicas=$V7/vllm-3replicas" --out "$TMP/tr4" --quiet
expect_rc 0
if [ -z "$(made)" ]; then ok; else fail "made: $(made)"; fi

name="compare.lua --a a comparison's workspace: give WORKSPACE/run-a"
mkdir -p "$TMP/cwws"
run "$BIN" compare.lua --a "$V7/llm-d-2p1d" --b "$V7/vllm-2replicas" --parent "$TMP/cwws" --quiet
expect_rc 0
cws=$(find "$TMP/cwws" -mindepth 1 -maxdepth 1 -name 'llm-d-comparison-*' | head -n 1)
run "$BIN" compare.lua --a "$cws" --b "$V7/vllm-3replicas" --parent "$TMP/cw"
expect_rc 2
expect_err_first "compare.lua: --a $cws: a comparison's workspace (compare.lua's), which holds two runs, run-a and run-b; give the folder of one of them: --a $cws/run-a (or $cws/run-b)"
run "$BIN" compare.lua --a "$cws/run-a" --b "$V7/vllm-3replicas" --parent "$TMP/cw2" --quiet
expect_rc 0
if [ -z "$(made)" ]; then ok; else fail "made: $(made)"; fi

name="extract.lua --warmup marking every stage or a missing one: a bad option value, exit 2"
run "$BIN" "$REPO/lua/extract.lua" "$V7/llm-d-2p1d" --warmup 0-2
expect_rc 2
expect_err_first "extract.lua: --warmup 0-2 marks every stage of $V7/llm-d-2p1d (3 stages: 0-2): nothing would be measured"
run "$BIN" "$REPO/lua/extract.lua" "$V7/llm-d-2p1d" --warmup 7
expect_rc 2
expect_err_first "extract.lua: --warmup 7: $V7/llm-d-2p1d has no stage 7 (3 stages: 0-2)"

name="compare.lua: a bad option value is exit 2, one line, nothing made"
run "$BIN" compare.lua --a "$V7/llm-d-2p1d" --b "$V7/vllm-2replicas" --warmup x --parent "$TMP/cw"
expect_rc 2
expect_err_first "compare.lua: --warmup: expected stage numbers or ranges like 0,2-4, got 'x'"
run "$BIN" compare.lua --a "$V7/llm-d-2p1d" --b "$V7/vllm-2replicas" --percentile-method median --parent "$TMP/cw"
expect_rc 2
expect_err_first "compare.lua: --percentile-method: expected linear or nearest, got 'median'"
run "$BIN" compare.lua --a "$V7/llm-d-2p1d" --b "$V7/vllm-2replicas" --min-effect -1 --parent "$TMP/cw"
expect_rc 2
expect_err_first "compare.lua: --min-effect: expected a percentage >= 0, got '-1'"
run "$BIN" compare.lua --a "$V7/llm-d-2p1d" --b "$V7/vllm-2replicas" --slo ttft_p90_ms=x --parent "$TMP/cw"
expect_rc 2
expect_err_first "compare.lua: --slo: ttft_p90_ms: expected a limit >= 0, got 'x'"
if [ -z "$(made)" ]; then ok; else fail "made: $(made)"; fi

# Long loops in C, where no Lua instruction runs for the interrupt hook to fire, check
# the flag the handler sets: loading 15 MB of YAML (about 13 s before), dumping or
# encoding a value of 10^10 nodes built from shared tables (what a "billion laughs"
# YAML used to load into). Each must end within 5 s of SIGTERM, with exit 130.
cat >big.lua <<'LUA'
local rows = {}
for i = 1, 400000 do rows[i] = ("- {a: %d, b: x%d, c: [1, 2, 3]}\n"):format(i, i) end
local text = table.concat(rows)
io.open(arg[1], "w"):close()
print(#require("llmd.yaml").load(text, "big.yaml"))
LUA
for what in "yaml.load" "yaml.dump" "json.encode"; do
    name="SIGTERM during $what of a huge value stops it within 5 s, exit 130"
    script=big.lua
    if [ "$what" != "yaml.load" ]; then
        script=laughs.lua
        cat >laughs.lua <<LUA
local t = { "lol" }
for _ = 1, 10 do
  local n = {}
  for i = 1, 10 do n[i] = t end
  t = n
end
io.open(arg[1], "w"):close()
print(#require("llmd.${what%%.*}").${what#*.}(t))
LUA
    fi
    rm -f "$TMP/started"
    "$BIN" "$script" "$TMP/started" >/dev/null 2>"$TMP/err" &
    host=$!
    i=0
    while [ ! -e "$TMP/started" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
    sleep 0.3
    kill -TERM $host
    (sleep 5 && kill -KILL $host 2>/dev/null) & # the watchdog: exit 137 fails the test
    dog=$!
    wait $host
    rc=$?
    kill $dog 2>/dev/null
    err=$(cat "$TMP/err")
    expect_rc 130
    expect_err_has "interrupted"
done

# make demo's script (scripts/demo.sh) in a TMPDIR of its own: whatever happens, no
# llmdlua-demo-* folder is left behind
demo_left() { find "$TMP/demo" -mindepth 1 -maxdepth 1 | head -n 1; }
# demo_sh [VAR=value...] CMD...: CMD in the checkout, with TMPDIR "$TMP/demo"
demo_sh() { (cd "$REPO" && exec env TMPDIR="$TMP/demo" "$@"); }
mkdir -p "$TMP/demo"

name="make demo: the report printed, its temporary workspace removed"
run demo_sh sh scripts/demo.sh "$BIN"
expect_rc 0
case "$out" in *"Comparison report written to: $TMP/demo/llmdlua-demo-"*"make demo DEMO_DIR=DIR"*) ok ;;
    *) fail "stdout lacks the report's path or the note: $(printf '%s' "$out" | tail -n 3)" ;; esac
left=$(demo_left)
if [ -z "$left" ]; then ok; else fail "left behind: $left"; fi

name="make demo DEMO_DIR=DIR: the workspace kept there"
run demo_sh DEMO_DIR="$TMP/kept" sh scripts/demo.sh "$BIN"
expect_rc 0
if ls -d "$TMP/kept"/llm-d-comparison-*/comparison_report.html >/dev/null 2>&1; then ok; else fail "nothing kept"; fi
left=$(demo_left)
if [ -z "$left" ]; then ok; else fail "left behind: $left"; fi

name="make demo failing: no workspace left behind"
run demo_sh sh scripts/demo.sh false
expect_rc 1
left=$(demo_left)
if [ -z "$left" ]; then ok; else fail "left behind: $left"; fi

name="make demo stopped (SIGTERM): no workspace left behind"
# a stand-in for llmdlua that says it started, then takes a while
cat >"$TMP/slow" <<'SH'
#!/bin/sh
: >"$SLOW_STARTED"
sleep 1
SH
chmod +x "$TMP/slow"
rm -f "$TMP/slow-started"
# (one subshell that execs the script, so that $! is the script's own pid)
(cd "$REPO" && exec env TMPDIR="$TMP/demo" SLOW_STARTED="$TMP/slow-started" sh scripts/demo.sh "$TMP/slow") \
    >/dev/null 2>&1 &
demo=$!
i=0
while [ ! -e "$TMP/slow-started" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
kill -TERM $demo
wait $demo
rc=$?
expect_rc 143
left=$(demo_left)
if [ -z "$left" ]; then ok; else fail "left behind: $left"; fi

report
