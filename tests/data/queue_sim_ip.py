#!/usr/bin/python3
# The new-user trial of session 36 (its gen/ipsim.py below this header, its set-up now shared): the
# FIFO server of queue_sim.py written as an inference-perf run (stage files, summary,
# per-request file); used by tests/lua/test_design_effect.lua. (The options and the server
# itself: fifo_server.py.)
"""queue_sim_ip.py OUTDIR --rates 2,5,10 [--slots K] [--ttft0 S] [--tpot S] [--outtok N] [--intok N]
   [--dur S] [--seed N] [--noise F] [--no-per-request] [--fail F] [--timeout S]

The FIFO server of queue_sim.py; writes inference-perf stage_N_lifecycle_metrics.json,
summary_lifecycle_metrics.json and per_request_lifecycle_metrics.json (numpy percentiles)
into OUTDIR, one stage per rate. --fail F: each request fails at once (HTTP 503) with
chance F, independently; --timeout S: a request still queued S seconds after it was sent
fails then (TimeoutError), as queue_sim.py's (failures in bursts near saturation). Neither
draws anything unless given, so a seed without them gives the same files as before. (No
--repeat: run it again with another --seed.) Needs numpy (/usr/bin/python3)."""
import json, os, sys
sys.dont_write_bytecode = True  # (no __pycache__ left in tests/data)
from fifo_server import Fifo, options, need_numpy
def own(ap):
    ap.add_argument("--no-per-request", action="store_true",
                    help="write no per_request_lifecycle_metrics.json")
    ap.add_argument("--fail", type=float, default=0.0, metavar="F",
                    help="the chance, 0 to 1, that a request fails at once with HTTP 503 (default 0)")
    ap.add_argument("--timeout", type=float, default=None, metavar="S",
                    help="seconds a request may wait for a slot before it fails (TimeoutError); default none")


a = options(own, __doc__.split("\n\n", 1)[1]); np = need_numpy(); os.makedirs(a.out, exist_ok=True)
rng = np.random.default_rng(a.seed)
PK = [("p0.1", .1), ("p1", 1), ("p5", 5), ("p10", 10), ("p25", 25), ("median", 50), ("p75", 75), ("p90", 90), ("p95", 95), ("p99", 99), ("p99.9", 99.9)]
def summ(x):
    x = np.asarray(x, float)
    d = {"mean": float(x.mean()), "min": float(x.min()), "max": float(x.max())}
    for k, p in PK: d[k] = float(np.percentile(x, p))
    return d
def failures(bad):
    """inference-perf's failures block (v0.6.1): count, latency and prompt length, by_label"""
    if not bad:
        return {"count": 0, "request_latency": None, "prompt_len": None}  # (as before: no by_label)
    by = {}
    for _, _, kind in bad:
        label = "503 - Service Unavailable" if kind.startswith("HTTP") else "timeouterror"
        by.setdefault(label, {"count": 0, "messages": [{"message": kind}]})["count"] += 1
    return {"count": len(bad), "request_latency": summ([e - s for s, e, _ in bad]),
            "prompt_len": summ([a.intok] * len(bad)), "by_label": by}
t = 1771234500.0
allreq = []; allbad = []; stages = []
for n_stage, rate in enumerate(float(r) for r in a.rates.split(",")):
    srv = Fifo(rng, a, t, rate)
    starts = srv.starts
    reqs = []
    reqs, bad = [], []  # (successes; failures: (start, end, error_type))
    for s in starts:
        f, begin = srv.take(s)
        fail = a.fail > 0 and rng.random() < a.fail
        if a.timeout is not None and not fail and begin - s > a.timeout:
            srv.release(begin)  # it gave up before a slot took it: the slot stays free from begin
            bad.append((float(s), float(s + a.timeout), "TimeoutError"))
            continue
        if fail:
            srv.release(begin + 0.01)
            bad.append((float(s), float(begin + 0.01), "HTTP Error 503"))
            continue
        first = begin + a.ttft0 * f
        gaps = srv.gaps(f)
        times = [first] + list(first + np.cumsum(gaps))
        end = times[-1] + 0.001
        srv.release(end)
        reqs.append((float(s), float(end), [float(x) for x in times]))
    send_duration = float(starts[-1] - starts[0])
    bt = max(r[1] for r in reqs + bad) - min(r[0] for r in reqs + bad)
    e2e = [r[1] - r[0] for r in reqs]; ttft = [r[2][0] - r[0] for r in reqs]
    tpot = [(r[2][-1] - r[2][0]) / (len(r[2]) - 1) for r in reqs]
    itl = np.concatenate([np.diff(r[2]) for r in reqs])
    ntpot = [(r[1] - r[0]) / a.outtok for r in reqs]
    cnt = len(reqs)
    st = {"load_summary": {"count": cnt + len(bad), "schedule_delay": summ([0.0] * (cnt + len(bad))),
                           "send_duration": send_duration,
                           "requested_rate": rate, "achieved_rate": (cnt + len(bad)) / send_duration},
          "successes": {"count": cnt, "latency": {"request_latency": summ(e2e), "normalized_time_per_output_token": summ(ntpot),
                        "time_per_output_token": summ(tpot), "time_to_first_token": summ(ttft), "inter_token_latency": summ(itl)},
                        "throughput": {"input_tokens_per_sec": a.intok * cnt / bt, "output_tokens_per_sec": a.outtok * cnt / bt,
                                       "total_tokens_per_sec": (a.intok + a.outtok) * cnt / bt, "requests_per_sec": cnt / bt},
                        "prompt_len": summ([a.intok] * cnt), "output_len": summ([a.outtok] * cnt)},
          "failures": failures(bad)}
    json.dump(st, open(os.path.join(a.out, "stage_%d_lifecycle_metrics.json" % n_stage), "w"))
    print("stage", n_stage, rate, "n", cnt, "rps %.2f" % (cnt / bt), "ttft p90 %.0f ms" % (1000 * np.percentile(ttft, 90)), "e2e p90 %.1f s" % np.percentile(e2e, 90))
    allreq += reqs; allbad += bad
    t = max(r[1] for r in reqs + bad) + 5
# summary over every stage (no rate), as inference-perf writes it
R = allreq
bt = max(r[1] for r in R + allbad) - min(r[0] for r in R + allbad)
e2e = [r[1] - r[0] for r in R]; ttft = [r[2][0] - r[0] for r in R]
tpot = [(r[2][-1] - r[2][0]) / (len(r[2]) - 1) for r in R]
itl = np.concatenate([np.diff(r[2]) for r in R]); ntpot = [(r[1] - r[0]) / a.outtok for r in R]
cnt = len(R)
sm = {"load_summary": {"count": cnt + len(allbad), "schedule_delay": summ([0.0] * (cnt + len(allbad)))},
      "successes": {"count": cnt, "latency": {"request_latency": summ(e2e), "normalized_time_per_output_token": summ(ntpot),
                    "time_per_output_token": summ(tpot), "time_to_first_token": summ(ttft), "inter_token_latency": summ(itl)},
                    "throughput": {"input_tokens_per_sec": a.intok * cnt / bt, "output_tokens_per_sec": a.outtok * cnt / bt,
                                   "total_tokens_per_sec": (a.intok + a.outtok) * cnt / bt, "requests_per_sec": cnt / bt},
                    "prompt_len": summ([a.intok] * cnt), "output_len": summ([a.outtok] * cnt)},
      "failures": failures(allbad)}
json.dump(sm, open(os.path.join(a.out, "summary_lifecycle_metrics.json"), "w"))
if not a.no_per_request:
    out = []
    for i, (s, e, times) in enumerate(allreq):
        out.append({"start_time": s, "end_time": e, "request": json.dumps({"model": "Qwen/Qwen3-0.6B", "prompt": "p%d" % i, "max_tokens": a.outtok, "stream": True}),
                    "response": None,
                    "info": {"request_metrics": {"text": {"input_tokens": a.intok}, "image": None, "video": None, "audio": None},
                             "response_metrics": {"output_tokens": a.outtok, "server_usage": {"prompt_tokens": a.intok, "completion_tokens": a.outtok, "total_tokens": a.intok + a.outtok, "prompt_tokens_details": None},
                                                  "output_token_times": times},
                             "extra_info": None, "lora_adapter": None, "labels": None, "input_tokens": a.intok},
                    "error": None})
    for s, e, kind in allbad:
        out.append({"start_time": s, "end_time": e, "request": json.dumps({"model": "Qwen/Qwen3-0.6B", "prompt": "f", "max_tokens": a.outtok, "stream": True}),
                    "response": None,
                    "info": {"request_metrics": {"text": {"input_tokens": a.intok}, "image": None, "video": None, "audio": None},
                             "response_metrics": None, "extra_info": None, "lora_adapter": None, "labels": None, "input_tokens": a.intok},
                    "error": {"error_type": kind, "error_msg": "Service Unavailable" if kind.startswith("HTTP") else "timed out"}})
    out.sort(key=lambda r: r["start_time"])  # (in send order, as the successes alone were)
    json.dump(out, open(os.path.join(a.out, "per_request_lifecycle_metrics.json"), "w"))
