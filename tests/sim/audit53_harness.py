#!/usr/bin/python3
"""audit53_harness.py OUTDIR --rates 2,4,6 [--slots K] [--outtok N] [--intok N] [--dur S] [--seed N]
   [--noise F] [--repeat N] [--fail F] [--harnesses vllm,imax,ip,gl,br,gl0,vagg]

One simulated serving (tests/data/fifo_server.py's FIFO server: K slots, Poisson arrivals at each
rate for --dur s, ttft0 + (outtok-1) x tpot s a request, lognormal noise; --fail F: each request
fails at once with HTTP 503 with chance F;
--fail-burst L: in runs of L on average in send order), the rate ladder run --repeat times, written as the
result files each harness would write from the SAME requests, one folder each under OUTDIR:
  vllm/  vllm bench serve --save-result --save-detailed, one file per rate and repeat
  vagg/  the same without --save-detailed (no per-request arrays: aggregates, latencies, queue_times)
  imax/  kimbochen/bench_serving result JSON (old vLLM format, best_of, 'request_goodput:'), one per load
  ip/    inference-perf v0.6.1: stage_N files (one stage per rate and repeat), summary, per-request file
  gl/    guidellm v0.7.3 results.json, one benchmarks[] entry per rate and repeat, every request kept
  gl0/   the same with sample_size=0 (requests lists empty: summaries only)
  br/    llm-d-benchmark BR v0.2 YAML (from vllm-benchmark: ms, stage 0, rate_qps), one per load
  bri/   the same from inference-perf's stage files (seconds, stage N, requests_per_sec)
  brg/   the same from guidellm's benchmarks (ms, request_latency in s, guidellm's TPOT/ITL, nearest-rank)
Also OUTDIR/truth.json: per load point (rate, repeat) the requests' TTFT/E2E/TPOT (s), pooled
ITL percentiles (numpy linear) and counts, for checking llmdlua's figures independently.
Needs numpy (/usr/bin/python3)."""
import argparse, heapq, json, os, sys
import numpy as np

sys.dont_write_bytecode = True
ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
ap.add_argument("out")
ap.add_argument("--rates", required=True)
ap.add_argument("--slots", type=int, default=20)
ap.add_argument("--ttft0", type=float, default=0.1)
ap.add_argument("--tpot", type=float, default=0.02)
ap.add_argument("--outtok", type=int, default=100)
ap.add_argument("--intok", type=int, default=500)
ap.add_argument("--dur", type=float, default=60)
ap.add_argument("--seed", type=int, default=1)
ap.add_argument("--noise", type=float, default=0.1)
ap.add_argument("--repeat", type=int, default=1)
ap.add_argument("--fail", type=float, default=0.0)
ap.add_argument("--fail-burst", type=float, default=1.0,
                help="mean run length of failures in send order (1: independent; L > 1: a two-state Markov "
                     "chain with the same share --fail, failing on after a failure with chance 1 - 1/L)")
ap.add_argument("--harnesses", default="vllm,imax,ip,gl,br,gl0,vagg,bri,brg")
ap.add_argument("--warmup", type=float, default=0.0,
                help="guidellm's warmup_duration (s) in gl/, gl0/ (the window then may not start at the first send)")
ap.add_argument("--concurrency", action="store_true",
                help="read --rates as concurrency levels: closed loops of that many users for --dur s")
a = ap.parse_args()
rng = np.random.default_rng(a.seed)
H = set(a.harnesses.split(","))
for h in H:
    os.makedirs(os.path.join(a.out, h), exist_ok=True)
MODEL = "Qwen/Qwen3-0.6B"


def simulate(t, rate):
    """One load point from epoch t: list of dicts {s, first, times (token times), end, out, inp, err}
    (--concurrency: int(rate) users, each sending again when its last answer ends, until --dur s)."""
    if a.concurrency:
        free = [t] * a.slots
        heapq.heapify(free)
        users = [(t, u) for u in range(int(rate))]
        heapq.heapify(users)
        reqs = []
        while users:
            s, u = heapq.heappop(users)
            if s > t + a.dur:
                continue
            reqs.append(one(s, free))
            heapq.heappush(users, (reqs[-1]["end"], u))
        return reqs
    n = int(round(rate * a.dur))
    starts = t + np.cumsum(rng.exponential(1 / rate, n))
    free = [starts[0]] * a.slots
    heapq.heapify(free)
    return [one(s, free) for s in starts]


LAST = [False]


def failing():
    """Does the next request fail (--fail, --fail-burst): independent draws at L = 1 (as before, one
    draw a request); else after a failure it fails again with chance 1 - 1/L, after a success with
    chance F / (1 - F) / L, so that the share of failures stays F and their runs average L."""
    if a.fail_burst <= 1:
        return rng.random() < a.fail
    q = 1 - 1 / a.fail_burst if LAST[0] else a.fail / (1 - a.fail) / a.fail_burst
    LAST[0] = bool(rng.random() < q)
    return LAST[0]


def one(s, free):
    """A request sent at s to the slots free (a heap of when each slot frees)."""
    f = rng.lognormal(0, a.noise)
    begin = max(s, heapq.heappop(free))
    if a.fail > 0 and failing():
        heapq.heappush(free, begin + 0.01)
        return {"s": float(s), "end": float(begin + 0.01), "err": "503", "out": 0, "inp": a.intok}
    first = begin + a.ttft0 * f
    gaps = rng.lognormal(np.log(a.tpot * f), 0.05, a.outtok - 1)
    times = [float(first)] + [float(x) for x in first + np.cumsum(gaps)]
    end = times[-1] + 0.001
    heapq.heappush(free, end)
    return {"s": float(s), "first": float(first), "times": times, "end": float(end), "err": None,
            "out": a.outtok, "inp": a.intok}


PCT = [0.1, 1, 5, 10, 25, 75, 90, 95, 99, 99.9]
points = []  # (rate, rep, reqs)
t = 1771234500.0
for rep in range(a.repeat):
    for rate in [float(x) for x in a.rates.split(",")]:
        reqs = simulate(t, rate)
        points.append((rate, rep, reqs))
        t = max(r["end"] for r in reqs) + 30


def ok_of(reqs):
    return [r for r in reqs if r["err"] is None]


def arrays(reqs):
    ok = ok_of(reqs)
    T = np.array([r["first"] - r["s"] for r in ok])
    E = np.array([r["end"] - r["s"] for r in ok])
    P = np.array([(r["times"][-1] - r["times"][0]) / (r["out"] - 1) for r in ok])
    I = np.concatenate([np.diff(r["times"]) for r in ok]) if ok else np.array([])
    return ok, T, E, P, I


truth = []
for rate, rep, reqs in points:
    ok, T, E, P, I = arrays(reqs)
    dur = max(r["end"] for r in reqs) - reqs[0]["s"]
    truth.append({"rate": rate, "rep": rep, "n": len(reqs), "ok": len(ok), "failed": len(reqs) - len(ok),
                  "first_start": reqs[0]["s"], "last_start": reqs[-1]["s"], "last_end": max(r["end"] for r in reqs),
                  "ttft_s": T.tolist(), "e2e_s": E.tolist(), "tpot_s": P.tolist(),
                  "itl_p": {str(p): float(np.percentile(I, p)) for p in (50, 90, 95, 99)} if len(I) else None,
                  "itl_mean": float(I.mean()) if len(I) else None, "window_s": dur,
                  "out_tokens": sum(r["out"] for r in ok), "in_tokens": sum(r["inp"] for r in ok),
                  # the catalogue's figures by numpy: linear percentiles (vllm, inference-perf, a
                  # guidellm report with its requests) and nearest-rank (guidellm's own summaries)
                  "linear": {k: float(np.percentile(x * 1000, q)) for k, x, q in (
                      ("ttft_p50_ms", T, 50), ("ttft_p90_ms", T, 90), ("ttft_p99_ms", T, 99),
                      ("latency_p90_ms", E, 90), ("tpot_p90_ms", P, 90), ("itl_p90_ms", I, 90))} if len(ok) else {},
                  "nearest": {k: float(np.percentile(x * 1000, q, method="inverted_cdf")) for k, x, q in (
                      ("ttft_p50_ms", T, 50), ("ttft_p90_ms", T, 90), ("latency_p90_ms", E, 90))} if len(ok) else {}})
json.dump({"args": vars(a), "points": truth}, open(os.path.join(a.out, "truth.json"), "w"))


# ---------------- vllm bench serve (and bench_serving's old format) ----------------
def vllm_doc(rate, rep, reqs, old, detailed):
    ok, T, E, P, I = arrays(reqs)
    n = len(reqs)
    t0 = reqs[0]["s"]
    duration = max(r["end"] for r in reqs) - t0  # benchmark_duration: perf_counter after gather - before
    d = {"date": "20260215-%02d%02d%02d" % (10 + rep, int(rate) % 60, 0)}
    if not old:
        d.update({"endpoint_type": "openai", "backend": "openai", "label": None})
    else:
        d["backend"] = "vllm"
    d.update({"model_id": MODEL, "tokenizer_id": MODEL})
    if old:
        d["best_of"] = 1
    d.update({"num_prompts": n, "request_rate": "inf" if a.concurrency else rate, "burstiness": 1.0,
              "max_concurrency": int(rate) if a.concurrency else None,
              "duration": duration, "completed": len(ok)})
    if not old:
        d["failed"] = n - len(ok)
    d.update({"total_input_tokens": sum(r["inp"] for r in ok), "total_output_tokens": sum(r["out"] for r in ok),
              "request_throughput": len(ok) / duration})
    d["request_goodput:" if old else "request_goodput"] = None
    d.update({"output_throughput": sum(r["out"] for r in ok) / duration,
              "total_token_throughput": sum(r["out"] + r["inp"] for r in ok) / duration})
    ttfts = [(r["first"] - r["s"]) if r["err"] is None else 0.0 for r in reqs]
    itls = [list(np.diff(r["times"]).tolist()) if r["err"] is None else [] for r in reqs]
    lats = [(r["end"] - r["s"]) if r["err"] is None else 0.0 for r in reqs]
    errs = ["" if r["err"] is None else "Service Unavailable" for r in reqs]
    if old:
        d.update({"input_lens": [r["inp"] for r in reqs], "output_lens": [r["out"] for r in reqs], "ttfts": ttfts,
                  "itls": itls, "generated_texts": [""] * n, "errors": errs})
    else:
        if detailed:
            d.update({"input_lens": [r["inp"] for r in reqs], "output_lens": [r["out"] for r in reqs],
                      "ttfts": ttfts, "itls": itls, "start_times": [r["s"] - t0 + 100.0 for r in reqs],
                      "generated_texts": [""] * n, "errors": errs})
        d.update({"latencies": lats, "queue_times": [0.0] * n})
    for name, arr in (("ttft", T * 1000), ("tpot", P * 1000), ("itl", I * 1000), ("e2el", E * 1000)):
        d["mean_%s_ms" % name] = float(arr.mean()) if len(arr) else 0.0
        d["median_%s_ms" % name] = float(np.median(arr)) if len(arr) else 0.0
        d["std_%s_ms" % name] = float(arr.std()) if len(arr) else 0.0
        for p in PCT:
            d["p%s_%s_ms" % (("%g" % p), name)] = float(np.percentile(arr, p)) if len(arr) else 0.0
    return d


for rate, rep, reqs in points:
    tag = ("infqps-concurrency%d-r%d" % (rate, rep)) if a.concurrency else ("%gqps-r%d" % (rate, rep))
    vload = ("infqps-concurrency%d" % rate) if a.concurrency else ("%gqps" % rate)
    if "vllm" in H:
        json.dump(vllm_doc(rate, rep, reqs, False, True),
                  open(os.path.join(a.out, "vllm", "openai-%s-Qwen3-0.6B-202602%02d-1%05d.json" % (vload, 15 + rep, int(rate * 100))), "w"))
    if "vagg" in H:
        json.dump(vllm_doc(rate, rep, reqs, False, False),
                  open(os.path.join(a.out, "vagg", "openai-%s-Qwen3-0.6B-202602%02d-1%05d.json" % (vload, 15 + rep, int(rate * 100))), "w"))
    if "imax" in H:
        json.dump(vllm_doc(rate, rep, reqs, True, True), open(os.path.join(a.out, "imax", "result-%s.json" % tag), "w"))


# ---------------- inference-perf v0.6.1 ----------------
PK = [("p0.1", .1), ("p1", 1), ("p5", 5), ("p10", 10), ("p25", 25), ("median", 50), ("p75", 75), ("p90", 90),
      ("p95", 95), ("p99", 99), ("p99.9", 99.9)]


def summ(x):
    x = np.asarray(x, float)
    if len(x) == 0:
        return None
    d = {"mean": float(x.mean()), "min": float(x.min()), "max": float(x.max())}
    for k, p in PK:
        d[k] = float(np.percentile(x, p))
    return d


def ip_block(reqs, stage_rate=None):
    ok = ok_of(reqs)
    bad = [r for r in reqs if r["err"] is not None]
    bt = max(r["end"] for r in reqs) - min(r["s"] for r in reqs)
    ls = {"count": len(reqs), "schedule_delay": summ([0.0] * len(reqs))}
    if stage_rate is not None:
        sd = reqs[-1]["s"] - reqs[0]["s"]
        ls.update({"send_duration": sd, "requested_rate": 0.0 if a.concurrency else stage_rate,
                   "achieved_rate": len(reqs) / sd})
        if a.concurrency:
            ls["concurrency"] = int(stage_rate)
    nout = sum(r["out"] for r in ok)
    nin = sum(r["inp"] for r in ok)
    fails = {"count": len(bad), "request_latency": summ([r["end"] - r["s"] for r in bad]),
             "prompt_len": summ([r["inp"] for r in bad]), "by_label": {}}
    if bad:
        fails["by_label"] = {"503 - Service Unavailable": {"count": len(bad), "messages": [
            {"message": '{"error":{"message":"Service Unavailable"}}'}]}}
    return {"benchmark_time_seconds": bt, "load_summary": ls, "successes": {
        "count": len(ok),
        "latency": {"request_latency": summ([r["end"] - r["s"] for r in ok]),
                    "time_to_first_token": summ([r["first"] - r["s"] for r in ok]),
                    "time_per_output_token": summ([(r["times"][-1] - r["times"][0]) / (r["out"] - 1) for r in ok]),
                    "normalized_time_per_output_token": summ([(r["end"] - r["s"]) / r["out"] for r in ok]),
                    "inter_token_latency": summ(np.concatenate([np.diff(r["times"]) for r in ok]) if ok else [])},
        "throughput": {"input_tokens_per_sec": nin / bt, "output_tokens_per_sec": nout / bt,
                       "total_tokens_per_sec": (nin + nout) / bt, "requests_per_sec": len(ok) / bt,
                       "images_per_sec": 0.0, "videos_per_sec": 0.0, "audios_per_sec": 0.0},
        "prompt_len": summ([r["inp"] for r in ok]), "output_len": summ([r["out"] for r in ok])},
        "failures": fails}


if "ip" in H:
    allr = []
    for i, (rate, rep, reqs) in enumerate(points):
        json.dump(ip_block(reqs, rate), open(os.path.join(a.out, "ip", "stage_%d_lifecycle_metrics.json" % i), "w"))
        allr += reqs
    json.dump(ip_block(allr), open(os.path.join(a.out, "ip", "summary_lifecycle_metrics.json"), "w"))
    out = []
    for i, r in enumerate(allr):
        rec = {"start_time": r["s"], "end_time": r["end"],
               "request": json.dumps({"model": MODEL, "prompt": "p%d" % i, "max_tokens": a.outtok, "stream": True}),
               "response": None,
               "info": {"request_metrics": {"text": {"input_tokens": r["inp"]}, "image": None, "video": None, "audio": None},
                        "response_metrics": None, "extra_info": None, "lora_adapter": None, "labels": None,
                        "input_tokens": r["inp"]}, "error": None}
        if r["err"] is None:
            rec["info"]["response_metrics"] = {"output_tokens": r["out"], "server_usage": {
                "prompt_tokens": r["inp"], "completion_tokens": r["out"], "total_tokens": r["inp"] + r["out"],
                "prompt_tokens_details": None}, "output_token_times": r["times"]}
        else:
            rec["error"] = {"error_type": "HTTP Error 503", "error_msg": '{"error":{"message":"Service Unavailable"}}'}
        out.append(rec)
    json.dump(out, open(os.path.join(a.out, "ip", "per_request_lifecycle_metrics.json"), "w"))


# ---------------- guidellm v0.7.3 ----------------
GP = [("p001", .1), ("p01", 1), ("p05", 5), ("p10", 10), ("p25", 25), ("p50", 50), ("p75", 75), ("p90", 90),
      ("p95", 95), ("p99", 99), ("p999", 99.9)]


def gdist(x, w=None):
    x = np.asarray(x, float)
    if len(x) == 0:
        return {"mean": 0.0, "median": 0.0, "mode": 0.0, "variance": 0.0, "std_dev": 0.0, "min": 0.0, "max": 0.0,
                "count": 0, "total_sum": 0.0, "percentiles": {k: 0.0 for k, _ in GP}, "pdf": None}
    if w is None:
        w = np.ones(len(x))
    w = np.asarray(w, float)
    o = np.argsort(x)
    xs, ws = x[o], w[o]
    cw = np.cumsum(ws) / ws.sum()
    pc = {k: float(xs[min(np.searchsorted(cw, p / 100 - 1e-12), len(xs) - 1)]) for k, p in GP}  # nearest-rank (weighted)
    mean = float((x * w).sum() / w.sum())
    var = float((w * (x - mean) ** 2).sum() / w.sum())
    return {"mean": mean, "median": pc["p50"], "mode": pc["p50"], "variance": var, "std_dev": var ** .5,
            "min": float(xs[0]), "max": float(xs[-1]), "count": int(len(x)), "total_sum": float((x * w).sum()),
            "percentiles": pc, "pdf": None}


def sds(ok_vals, err_vals=(), w=None):
    return {"successful": gdist(ok_vals, w), "errored": gdist(list(err_vals)), "incomplete": gdist([]),
            "total": gdist(list(ok_vals) + list(err_vals))}


def gl_req(r, i):
    ok = r["err"] is None
    tm = {"targeted_start": r["s"], "queued": r["s"] - 0.001, "dequeued": r["s"], "scheduled_at": r["s"],
          "resolve_start": r["s"], "request_start": r["s"],
          "first_request_iteration": r.get("first"), "first_token_iteration": r.get("first"),
          "first_output_token_iteration": r.get("first"),
          "last_token_iteration": r["times"][-1] if ok else None, "last_request_iteration": r["times"][-1] if ok else None,
          "request_iterations": r["out"] + 2 if ok else 0, "token_iterations": r["out"],
          "request_end": r["end"], "resolve_end": r["end"], "finalized": r["end"]}
    d = {"type_": "generative_request_stats", "request_id": "req-%d" % i, "response_id": None,
         "request_args": "{}", "output": "", "reasoning_output": None, "tool_calls": None,
         "info": {"request_id": "req-%d" % i, "conversation_id": None, "turn_index": 0,
                  "status": "completed" if ok else "errored", "timings": tm, "settings": {},
                  "error": None if ok else "503, message='Service Unavailable', url='http://x/v1/completions'",
                  "traceback": None, "started_at": r["s"], "completed_at": r["end"]},
         "input_metrics": {"text_tokens": r["inp"], "total_tokens": r["inp"]},
         "output_metrics": {"text_tokens": r["out"], "total_tokens": r["out"]},
         "request_start_time": r["s"], "request_end_time": r["end"], "request_latency": r["end"] - r["s"],
         "prompt_tokens": r["inp"], "output_tokens": r["out"], "total_tokens": r["inp"] + r["out"]}
    if ok:
        d.update({"time_to_first_token_ms": 1000 * (r["first"] - r["s"]),
                  "time_per_output_token_ms": 1000 * (r["times"][-1] - r["s"]) / r["out"],
                  "inter_token_latency_ms": 1000 * (r["times"][-1] - r["times"][0]) / (r["out"] - 1)})
    else:
        d.update({"time_to_first_token_ms": None, "time_per_output_token_ms": None, "inter_token_latency_ms": None})
    return d


def gl_bench(rate, rep, reqs, idx, keep):
    ok = ok_of(reqs)
    bad = [r for r in reqs if r["err"] is not None]
    start = reqs[0]["s"]
    end = max(r["end"] for r in reqs)
    itl = [1000 * (r["times"][-1] - r["times"][0]) / (r["out"] - 1) for r in ok]
    m = {"request_totals": {"successful": len(ok), "errored": len(bad), "incomplete": 0, "total": len(reqs)},
         "requests_per_second": sds([len(ok) / (end - start)]),
         "request_concurrency": sds([1.0]),
         "request_latency": sds([r["end"] - r["s"] for r in ok], [r["end"] - r["s"] for r in bad]),
         "request_streaming_iterations_count": sds([r["out"] + 2 for r in ok]),
         "prompt_token_count": sds([r["inp"] for r in ok], [r["inp"] for r in bad]),
         "output_token_count": sds([r["out"] for r in ok], [0 for r in bad]),
         "total_token_count": sds([r["inp"] + r["out"] for r in ok]),
         "time_to_first_token_ms": sds([1000 * (r["first"] - r["s"]) for r in ok]),
         "time_to_first_output_token_ms": sds([1000 * (r["first"] - r["s"]) for r in ok]),
         "time_per_output_token_ms": sds([1000 * (r["times"][-1] - r["s"]) / r["out"] for r in ok],
                                         w=[r["out"] for r in ok]),
         "inter_token_latency_ms": sds(itl, w=[r["out"] - 1 for r in ok]),
         "prompt_tokens_per_second": sds([sum(r["inp"] for r in ok) / (end - start)]),
         "output_tokens_per_second": sds([sum(r["out"] for r in ok) / (end - start)]),
         "tokens_per_second": sds([sum(r["inp"] + r["out"] for r in ok) / (end - start)]),
         "output_tokens_per_iteration": sds([1.0]), "iter_tokens_per_iteration": sds([1.0])}
    return {"type_": "generative_benchmark",
            "config": {"id_": "b%d" % idx, "run_id": "run", "run_index": idx,
                       "strategy": ({"type_": "concurrent", "streams": int(rate), "worker_count": 10,
                                     "max_concurrency": int(rate), "rampup_duration": 0.0} if a.concurrency else
                                    {"type_": "poisson", "rate": rate, "worker_count": 10, "max_concurrency": 10240,
                                     "rampup_duration": 0.0}),
                       "constraints": {"max_seconds": a.dur}, "warmup": None, "cooldown": None, "profile": {},
                       "requests": {}, "backend": {}, "environment": {}},
            "scheduler_state": {"created_requests": len(reqs), "processed_requests": len(reqs),
                                "successful_requests": len(ok), "errored_requests": len(bad), "cancelled_requests": 0},
            "scheduler_metrics": {"start_time": start - 1, "request_start_time": start, "measure_start_time": start,
                                  "measure_end_time": end, "request_end_time": end, "end_time": end + 0.001,
                                  "requests_made": {"successful": len(ok), "errored": len(bad), "incomplete": 0,
                                                    "total": len(reqs)}},
            "metrics": m,
            "requests": {"successful": [gl_req(r, i) for i, r in enumerate(reqs) if r["err"] is None] if keep else [],
                         "errored": [gl_req(r, i) for i, r in enumerate(reqs) if r["err"] is not None] if keep else [],
                         "incomplete": [], "total": None},
            "start_time": start, "end_time": end, "duration": end - start, "warmup_duration": a.warmup,
            "cooldown_duration": 0.0}


for h, keep in (("gl", True), ("gl0", False)):
    if h in H:
        doc = {"metadata": {"version": 2, "guidellm_version": "0.7.3", "python_version": "3.12.3", "platform": "Linux"},
               "config": {"metadata": {"labels": {}}, "spec": {"backend": {"model": MODEL, "target": "http://x:8000"},
                                                               "profile": {"kind": "poisson"}}},
               "benchmarks": [gl_bench(rate, rep, reqs, i, keep) for i, (rate, rep, reqs) in enumerate(points)]}
        json.dump(doc, open(os.path.join(a.out, h, "results.json"), "w"))


# ---------------- BR v0.2 from vllm-benchmark ----------------
BRK = [("p0p1", .1), ("p1", 1), ("p5", 5), ("p10", 10), ("p50", 50), ("p75", 75), ("p90", 90),
       ("p95", 95), ("p99", 99), ("p99p9", 99.9)]  # (p25 lost: the converter's "P25")


def bstat(x, units):
    x = np.asarray(x, float)
    d = {"units": units, "mean": float(x.mean()), "stddev": float(x.std()), "min": float(x.min()), "max": float(x.max())}
    for k, p in BRK:
        d[k] = float(np.percentile(x, p))
    return d


def yaml_dump(v, ind=0):
    sp = "  " * ind
    out = []
    for k, x in v.items():
        if isinstance(x, dict):
            out.append("%s%s:" % (sp, k))
            out.append(yaml_dump(x, ind + 1))
        elif x is None:
            out.append("%s%s: null" % (sp, k))
        elif isinstance(x, str):
            out.append("%s%s: %s" % (sp, k, json.dumps(x)))
        else:
            out.append("%s%s: %r" % (sp, k, x))
    return "\n".join(out)


if "br" in H:
    for i, (rate, rep, reqs) in enumerate(points):
        vload = ("infqps-concurrency%d" % rate) if a.concurrency else ("%gqps" % rate)
        dv = vllm_doc(rate, rep, reqs, False, True)
        ok, T, E, P, I = arrays(reqs)
        dur = dv["duration"]
        br = {"version": "0.2",
              "run": {"uid": "u%d" % i, "eid": "e", "time": {"duration": "PT%rS" % dur}},
              "scenario": {"load": {"metadata": {"schema_version": "0.0.1", "cfg_id": "c"}, "standardized": {
                  "tool": "vllm-benchmark", "tool_version": "0.26.0", "stage": 0, "rate_qps": None if a.concurrency else rate,
                  "concurrency": int(rate) if a.concurrency else None,
                  "source": "random",
                  "input_seq_len": {"distribution": "fixed", "value": a.intok},
                  "output_seq_len": {"distribution": "fixed", "value": a.outtok}}}},
              "results": {"request_performance": {"aggregate": {
                  "requests": {"total": dv["num_prompts"], "failures": dv["num_prompts"] - dv["completed"],
                               "input_length": {"units": "count", "mean": dv["total_input_tokens"] / dv["num_prompts"]},
                               "output_length": {"units": "count", "mean": dv["total_output_tokens"] / dv["completed"]}},
                  "latency": {"time_to_first_token": bstat(T * 1000, "ms"),
                              "time_per_output_token": bstat(P * 1000, "ms/token"),
                              "inter_token_latency": bstat(I * 1000, "ms/token"),
                              "request_latency": bstat(E * 1000, "ms")},
                  "throughput": {"output_token_rate": {"units": "tokens/s", "mean": dv["output_throughput"]},
                                 "total_token_rate": {"units": "tokens/s", "mean": dv["total_token_throughput"]},
                                 "request_rate": {"units": "queries/s", "mean": dv["request_throughput"]}}}}}}
        open(os.path.join(a.out, "br", "benchmark_report_v0.2,_openai-%s-r%d.json.yaml" % (vload, rep)), "w").write(
            yaml_dump(br) + "\n")


def br_doc(i, tool, stage, rate, total, failures, inl, outl, latency, thr, dur):
    return {"version": "0.2", "run": {"uid": "u%d" % i, "eid": "e", "time": {"duration": "PT%rS" % dur}},
            "scenario": {"load": {"metadata": {"schema_version": "0.0.1", "cfg_id": "c"}, "standardized": {
                "tool": tool, "tool_version": "x", "stage": stage,
                "rate_qps": None if a.concurrency else rate, "concurrency": int(rate) if a.concurrency else None,
                "source": "random", "input_seq_len": {"distribution": "fixed", "value": a.intok},
                "output_seq_len": {"distribution": "fixed", "value": a.outtok}}}},
            "results": {"request_performance": {"aggregate": {
                "requests": {"total": total, "failures": failures, "input_length": inl, "output_length": outl},
                "latency": latency, "throughput": thr}}}}


IPK = [("p0p1", "p0.1"), ("p1", "p1"), ("p5", "p5"), ("p10", "p10"), ("p25", "p25"), ("p50", "median"), ("p75", "p75"),
       ("p90", "p90"), ("p95", "p95"), ("p99", "p99"), ("p99p9", "p99.9")]
GLK = [("p0p1", "p001"), ("p1", "p01"), ("p5", "p05"), ("p10", "p10"), ("p25", "p25"), ("p50", "p50"), ("p75", "p75"),
       ("p90", "p90"), ("p95", "p95"), ("p99", "p99"), ("p99p9", "p999")]


def from_ip(sm, units):
    d = {"units": units, "mean": sm["mean"], "min": sm["min"], "max": sm["max"]}
    for k, n in IPK:
        d[k] = sm[n]
    return d


def from_gl(dd, units):
    x = dd["successful"]
    d = {"units": units, "mean": x["mean"], "mode": x["mode"], "stddev": x["std_dev"], "min": x["min"], "max": x["max"]}
    for k, n in GLK:
        d[k] = x["percentiles"][n]
    return d


if "bri" in H:  # native_to_br0_2 on inference-perf's stage_N files
    for i, (rate, rep, reqs) in enumerate(points):
        st = ip_block(reqs, rate)
        su, lat = st["successes"], st["successes"]["latency"]
        doc = br_doc(i, "inference-perf", i, rate, st["load_summary"]["count"], st["failures"]["count"],
                     from_ip(su["prompt_len"], "count"), from_ip(su["output_len"], "count"),
                     {"time_to_first_token": from_ip(lat["time_to_first_token"], "s"),
                      "normalized_time_per_output_token": from_ip(lat["normalized_time_per_output_token"], "s/token"),
                      "time_per_output_token": from_ip(lat["time_per_output_token"], "s/token"),
                      "inter_token_latency": from_ip(lat["inter_token_latency"], "s/token"),
                      "request_latency": from_ip(lat["request_latency"], "s")},
                     {"input_token_rate": {"units": "tokens/s", "mean": su["throughput"]["input_tokens_per_sec"]},
                      "output_token_rate": {"units": "tokens/s", "mean": su["throughput"]["output_tokens_per_sec"]},
                      "total_token_rate": {"units": "tokens/s", "mean": su["throughput"]["total_tokens_per_sec"]},
                      "request_rate": {"units": "queries/s", "mean": su["throughput"]["requests_per_sec"]}},
                     st["benchmark_time_seconds"])
        open(os.path.join(a.out, "bri", "benchmark_report_v0.2,_stage_%d_lifecycle_metrics.json.yaml" % i), "w").write(
            yaml_dump(doc) + "\n")

if "brg" in H:  # native_to_br0_2 on guidellm's benchmarks[i]
    for i, (rate, rep, reqs) in enumerate(points):
        b = gl_bench(rate, rep, reqs, i, False)
        m = b["metrics"]
        doc = br_doc(i, "guidellm", i, rate, m["request_totals"]["total"], m["request_totals"]["errored"],
                     from_gl(m["prompt_token_count"], "count"), from_gl(m["output_token_count"], "count"),
                     {"time_to_first_token": from_gl(m["time_to_first_token_ms"], "ms"),
                      "time_per_output_token": from_gl(m["time_per_output_token_ms"], "ms/token"),
                      "inter_token_latency": from_gl(m["inter_token_latency_ms"], "ms/token"),
                      "request_latency": from_gl(m["request_latency"], "s")},
                     {"output_token_rate": from_gl(m["output_tokens_per_second"], "tokens/s"),
                      "total_token_rate": from_gl(m["tokens_per_second"], "tokens/s"),
                      "request_rate": from_gl(m["requests_per_second"], "queries/s")},
                     b["duration"])
        open(os.path.join(a.out, "brg", "benchmark_report_v0.2,_results.json_%d.yaml" % i), "w").write(
            yaml_dump(doc) + "\n")
