#!/usr/bin/python3
# The new-user trial of session 36 (its gen/vsim.py below this header, its set-up now shared): a FIFO
# server with K slots driven by Poisson arrivals, written as vllm bench serve files; the
# A/A (same server, two seeds) and A/B pairs of tests/lua/test_design_effect.lua are made with it.
# (The options and the server itself: fifo_server.py, shared with queue_sim_ip.py.)
"""queue_sim.py OUTDIR --rates 4,8,12 [--slots K] [--ttft0 S] [--tpot S] [--outtok N] [--intok N]
   [--dur S] [--seed N] [--noise F] [--repeat N] [--aggregate-only] [--fail F] [--timeout S] [--label L]
   [--concurrency] [--error-bursts D,P] [--bursts-at R,R,...]

Simulates a FIFO server with K slots; each request needs ttft0 + outtok x tpot seconds
(times lognormal noise F). Poisson arrivals at each rate for --dur seconds. Writes one
vllm bench serve --save-result --save-detailed file per rate (numpy percentiles) into
OUTDIR: a results folder for compare.lua / treatments.lua. A pair to compare: two folders,
e.g. --slots 10 --seed 11 and --slots 20 --seed 12 (an A/A pair: the same --slots, two
seeds). --concurrency: the --rates are concurrency levels instead, closed loops of that many
users (vllm bench serve --max-concurrency C --request-rate inf). --error-bursts D,P: the
server is down D seconds in every P (from P/2 on), answering every request sent then with
HTTP 503 at once (--bursts-at: only at those loads). Neither draws anything unless given,
so a seed without them gives the same files as before. Needs numpy (/usr/bin/python3)."""
import heapq, json, os, sys
sys.dont_write_bytecode = True  # (no __pycache__ left in tests/data)
from fifo_server import Fifo, options, need_numpy


def own(ap):
    ap.add_argument("--aggregate-only", action="store_true",
                    help="write the aggregate figures only, no per-request lists")
    ap.add_argument("--fail", type=float, default=0.0, metavar="F",
                    help="the chance, 0 to 1, that a request fails at once with HTTP 503 (default 0)")
    ap.add_argument("--label", default=None, metavar="L", help="the files' label field (default none)")
    ap.add_argument("--repeat", type=int, default=1, metavar="N",
                    help="run the whole rate ladder N times, one file per rate and repeat (default 1)")
    # a client timeout in seconds: a request still queued that long fails (a burst of them while the queue is long)
    ap.add_argument("--timeout", type=float, default=None, metavar="S",
                    help="seconds a request may wait for a slot before it fails (TimeoutError); default none")
    ap.add_argument("--concurrency", action="store_true",
                    help="read --rates as concurrency levels (users), each user sending its next request when "
                    "its last one ends (a closed loop, as vllm bench serve --max-concurrency)")
    ap.add_argument("--error-bursts", default=None, metavar="D,P",
                    help="the server is down D seconds in every P, from P/2 on in each load point: a request "
                    "sent then fails at once with HTTP 503 (default none)")
    ap.add_argument("--bursts-at", default=None, metavar="R,R,...",
                    help="the loads (of --rates) --error-bursts applies to (default every one)")


a = options(own, __doc__.split("\n\n", 1)[1])
np = need_numpy()
os.makedirs(a.out, exist_ok=True)
rng = np.random.default_rng(a.seed)
PCT = [0.1, 1, 5, 10, 25, 75, 90, 95, 99, 99.9]
# (vllm bench serve's error for an answer other than 200: the response's reason alone;
# an exception's: its traceback)
DOWN_ERR = "Service Unavailable"
bursts = [float(x) for x in a.error_bursts.split(",")] if a.error_bursts else None
bursts_at = [float(x) for x in a.bursts_at.split(",")] if a.bursts_at else None


def serve(srv, s, down):
    """One request sent at s: (ttft, latency, gaps, output tokens, error, when it ended), its slot
    taken and freed (down: the server is down at s, and fails it at once without one)."""
    if down:
        return 0.0, 0.0, [], 0, DOWN_ERR, s + 0.01
    f, begin = srv.take(s)
    fail = rng.random() < a.fail
    if a.timeout is not None and not fail and begin - s > a.timeout:
        srv.release(begin)  # it gave up before a slot took it: the slot stays free from begin
        return 0.0, 0.0, [], 0, "Traceback (most recent call last):\nasyncio.exceptions.TimeoutError\n", s + a.timeout
    if fail:
        srv.release(begin + 0.01)
        return (0.0, 0.0, [], 0, "Traceback (most recent call last):\naiohttp.client_exceptions.ClientResponseError: "
                "503, message='Service Unavailable'\n", begin + 0.01)
    ttft = (begin - s) + a.ttft0 * f
    gaps = list(srv.gaps(f))
    lat = ttft + sum(gaps)
    srv.release(s + lat)
    return ttft, lat, gaps, a.outtok, "", s + lat


t0 = 1000.0
fileno = 0
for rep in range(a.repeat):
  for rate in [float(x) for x in a.rates.split(",")]:
    def down(s):
        if not bursts or (bursts_at is not None and rate not in bursts_at):
            return False
        d, per = bursts
        return per / 2 <= (s - t0) % per < per / 2 + d
    ttfts, lats, itls, outl, errs = [], [], [], [], []

    def keep(r):
        ttfts.append(r[0]); lats.append(r[1]); itls.append(r[2]); outl.append(r[3]); errs.append(r[4])
    if a.concurrency:
        # a closed loop: int(rate) users from t0, each sending again when its request ends,
        # until --dur seconds have passed (the requests in send order: FIFO holds)
        srv = Fifo.closed(rng, a, t0)
        starts, users = [], [(t0, u) for u in range(int(rate))]
        heapq.heapify(users)
        while users:
            s, u = heapq.heappop(users)
            if s > t0 + a.dur:
                continue
            r = serve(srv, s, down(s))
            starts.append(s); keep(r)
            heapq.heappush(users, (r[5], u))
        n = len(starts)
    else:
        srv = Fifo(rng, a, t0, rate)
        n, starts = srv.n, srv.starts
        for s in starts:
            keep(serve(srv, s, down(s)))
    ok = [i for i in range(n) if errs[i] == ""]
    ends = [starts[i] + lats[i] for i in ok]
    duration = max(ends + [starts[-1]]) - starts[0]
    T = np.array([ttfts[i] for i in ok]) * 1000
    E = np.array([lats[i] for i in ok]) * 1000
    P = np.array([(lats[i] - ttfts[i]) / (outl[i] - 1) for i in ok]) * 1000
    I = np.concatenate([itls[i] for i in ok]) * 1000
    d = {"date": "20260215-%02d%02d%02d" % (10, fileno // 60, fileno % 60), "endpoint_type": "openai", "backend": "openai",
         "label": a.label, "model_id": "Qwen/Qwen3-0.6B", "tokenizer_id": "Qwen/Qwen3-0.6B",
         "num_prompts": n, "request_rate": "inf" if a.concurrency else rate, "burstiness": 1.0,
         "max_concurrency": int(rate) if a.concurrency else None,
         "duration": duration, "completed": len(ok), "failed": n - len(ok),
         "total_input_tokens": a.intok * len(ok), "total_output_tokens": a.outtok * len(ok),
         "request_throughput": len(ok) / duration, "request_goodput": None,
         "output_throughput": a.outtok * len(ok) / duration,
         "total_token_throughput": (a.intok + a.outtok) * len(ok) / duration}
    if not a.aggregate_only:
        d.update({"input_lens": [a.intok] * n, "output_lens": outl, "ttfts": ttfts, "itls": itls,
                  "latencies": lats, "start_times": [float(s - t0) for s in starts],
                  "generated_texts": [""] * n, "errors": errs})
    for name, arr in (("ttft", T), ("tpot", P), ("itl", I), ("e2el", E)):
        d["mean_%s_ms" % name] = float(arr.mean()); d["median_%s_ms" % name] = float(np.median(arr))
        d["std_%s_ms" % name] = float(arr.std())
        for p in PCT:
            d["p%s_%s_ms" % (("%g" % p), name)] = float(np.percentile(arr, p))
    load = "infqps-concurrency%d" % int(rate) if a.concurrency else "%gqps" % rate
    fn = "openai-%s-Qwen3-0.6B-202602%02d-%02d%02d%02d.json" % (load, 15 + rep, 10, fileno // 60, fileno % 60)
    fileno += 1
    json.dump(d, open(os.path.join(a.out, fn), "w"))
    t0 += a.dur + 200
    print(fn, "n", n, "ok", len(ok), "dur %.1f" % duration, "ach %.2f" % (len(ok) / duration), "ttft p90 %.0f" % np.percentile(T, 90), "e2e p90 %.0f" % np.percentile(E, 90))
