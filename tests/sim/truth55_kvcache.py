#!/usr/bin/python3
"""truth55: what does compare.lua's report claim about the prefix cache where the hit rates of A and B
differ by construction?

Writes OUTDIR/A and OUTDIR/B: inference-perf v0.6.1 results of one serving each (tests/sim/audit53_harness.py,
ip/: the same FIFO server, A and B alike, so the hit rate causes nothing in the latencies) and beside them
llm-d-benchmark's raw scrapes, metrics/raw/<pod>_<epoch>_metrics.log every 15 s over the run, of --pods vLLM
pods each (the real families' names and layout: vllm:prefix_cache_queries_total / _hits_total in tokens,
their _created gauges, request_success_total, num_preemptions_total, kv_cache_usage_perc), whose counters
rise with the requests' input tokens at a KNOWN hit rate (--hit-a, --hit-b). --restart X: pod 0 of run X
restarts at mid-run (its counters start again from 0 and its _created moves to the restart).

OUTDIR/truth.json: per run the hits and queries the run really added (summed over pods, a restart's counts
before and after it both counted) and its hit rate, by plain sums here (never by llmdlua).

Run: /usr/bin/python3 tests/sim/truth55_kvcache.py OUTDIR [--hit-a 0.2] [--hit-b 0.6] [--pods 2]
     [--restart b] [--rates 2,4,6] [--dur 30] [--seed 7] [--b-gen "--slots 30"]
"""
import argparse, json, os, subprocess, sys, time

HERE = os.path.dirname(os.path.abspath(__file__))
ap = argparse.ArgumentParser()
ap.add_argument("out")
ap.add_argument("--hit-a", type=float, default=0.2)
ap.add_argument("--hit-b", type=float, default=0.6)
ap.add_argument("--pods", type=int, default=2)
ap.add_argument("--restart", default="", help="a, b or ab: pod 0 of that run restarts at mid-run")
ap.add_argument("--rates", default="2,4,6")
ap.add_argument("--dur", default="30")
ap.add_argument("--repeat", default="1")
ap.add_argument("--seed", type=int, default=7)
ap.add_argument("--b-gen", default="", help="audit53_harness.py options of B alone (--slots 30: B truly sustains more, "
                "for a reason that is not its hit rate)")
a = ap.parse_args()
MODEL = "Qwen/Qwen3-0.6B"


def fam(lines, name, kind, help_, samples):
    lines.append("# HELP %s %s" % (name, help_))
    lines.append("# TYPE %s %s" % (name, kind))
    for labels, v in samples:
        lines.append("%s{%s} %r" % (name, labels, float(v)))


def scrape(pod, ts, c):
    """One raw file's text: c = {q, h, ok, pre, use, created} of the pod at ts."""
    lab = 'engine="0",model_name="%s"' % MODEL
    L = ["# Timestamp: %s" % time.strftime("%Y-%m-%dT%H:%M:%S+0000", time.gmtime(ts)), "# Pod: %s" % pod,
         "# PodIP: 10.128.2.%d" % (40 + int(pod[-1])), "# Source: prometheus_metrics", ""]
    fam(L, "vllm:num_requests_running", "gauge", "Number of requests in model execution batches.", [(lab, 2)])
    fam(L, "vllm:num_requests_waiting", "gauge", "Number of requests waiting to be processed.", [(lab, 0)])
    fam(L, "vllm:kv_cache_usage_perc", "gauge", "KV-cache usage. 1 means 100 percent usage.", [(lab, c["use"])])
    fam(L, "vllm:prefix_cache_queries_total", "counter",
        "Prefix cache queries, in terms of number of queried tokens.", [(lab, c["q"])])
    fam(L, "vllm:prefix_cache_queries_created", "gauge",
        "Prefix cache queries, in terms of number of queried tokens.", [(lab, c["created"])])
    fam(L, "vllm:prefix_cache_hits_total", "counter", "Prefix cache hits, in terms of number of cached tokens.",
        [(lab, c["h"])])
    fam(L, "vllm:prefix_cache_hits_created", "gauge", "Prefix cache hits, in terms of number of cached tokens.",
        [(lab, c["created"])])
    fam(L, "vllm:num_preemptions_total", "counter", "Cumulative number of preemption from the engine.",
        [(lab, c["pre"])])
    fam(L, "vllm:num_preemptions_created", "gauge", "Cumulative number of preemption from the engine.",
        [(lab, c["created"])])
    fam(L, "vllm:request_success_total", "counter", "Count of successfully processed requests.",
        [('engine="0",finished_reason="length",model_name="%s"' % MODEL, c["ok"]),
         ('engine="0",finished_reason="stop",model_name="%s"' % MODEL, 0)])
    fam(L, "vllm:request_success_created", "gauge", "Count of successfully processed requests.",
        [('engine="0",finished_reason="length",model_name="%s"' % MODEL, c["created"]),
         ('engine="0",finished_reason="stop",model_name="%s"' % MODEL, c["created"])])
    return "\n".join(L) + "\n\n"


truth = {}
for side, hit, seed in (("a", a.hit_a, a.seed), ("b", a.hit_b, a.seed + 1)):
    tmp = os.path.join(a.out, "gen_" + side)
    subprocess.run([sys.executable, os.path.join(HERE, "audit53_harness.py"), tmp, "--rates", a.rates, "--dur", a.dur,
                    "--repeat", a.repeat, "--seed", str(seed), "--harnesses", "ip"] + (a.b_gen.split() if side == "b" else []), check=True,
                   stdout=subprocess.DEVNULL)
    res = os.path.join(a.out, side.upper())
    os.makedirs(res, exist_ok=True)
    for n in os.listdir(os.path.join(tmp, "ip")):
        os.replace(os.path.join(tmp, "ip", n), os.path.join(res, n))
    reqs = json.load(open(os.path.join(res, "per_request_lifecycle_metrics.json")))
    # each request goes to pod i mod --pods; its prompt counts as queried (hit share: the known rate) when it
    # ends; a restart of pod 0 at mid-run starts its counters again from 0
    done = sorted((r["end_time"], i % a.pods, r["info"]["request_metrics"]["text"]["input_tokens"],
                   r["error"] is None) for i, r in enumerate(reqs))
    t0, t1 = min(r["start_time"] for r in reqs) - 20, max(r["end_time"] for r in reqs) + 20
    restart_at = (t0 + t1) / 2 if side in a.restart else None
    raw = os.path.join(res, "metrics", "raw")
    os.makedirs(raw)
    pods = ["qwen-qwen3-0-6b-decode-6f9c7d5b8-p%d" % k for k in range(a.pods)]
    tot_q = tot_h = 0.0
    ts = t0
    k = 0
    while ts <= t1 + 15:
        for p in range(a.pods):
            restarted = restart_at is not None and p == 0 and ts >= restart_at
            since = restart_at if restarted else -1e18
            mine = [d for d in done if d[1] == p and since <= d[0] <= ts]
            q = sum(d[2] for d in mine)
            c = {"q": q, "h": round(q * hit), "ok": sum(1 for d in mine if d[3]), "pre": 0, "use": 0.05,
                 "created": restart_at if restarted else t0 - 600}
            with open(os.path.join(raw, "%s_%d_metrics.log" % (pods[p], int(ts))), "w") as f:
                f.write(scrape(pods[p], ts, c))
        ts += 15
        k += 1
    # the truth the counters can show: per pod (pod 0 of a restarted run per segment, before and after the
    # restart) the last scrape's value, summed; the prompts that ended between pod 0's last scrape before the
    # restart and the restart are lost with it (lost_queries)
    tot_q = tot_h = 0.0
    for p in range(a.pods):
        segs = [(-1e18, restart_at), (restart_at, 1e18)] if (restart_at and p == 0) else [(-1e18, 1e18)]
        for lo, hi in segs:
            tsl = [t0 + 15 * j for j in range(k) if lo <= t0 + 15 * j < hi]
            if tsl:
                q = sum(d[2] for d in done if d[1] == p and lo <= d[0] <= tsl[-1])
                tot_q += q
                tot_h += round(q * hit)
    lost = sum(d[2] for d in done) - tot_q
    truth[side] = {"hits": tot_h, "queries": tot_q, "lost_queries": lost, "hit_rate_pct": 100 * tot_h / tot_q, "restart_at": restart_at,
                   "pods": a.pods, "requests": len(reqs)}
json.dump(truth, open(os.path.join(a.out, "truth.json"), "w"), indent=1)
print(json.dumps(truth))
