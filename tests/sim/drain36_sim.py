#!/usr/bin/python3
"""Saturation without per-request start times (task drain36): a simulation of the
drain-reduced rate, completed / (window - least latency), against the old rule (completed /
window) and the per-request pace, and the expected values of tests/lua/test_saturation.lua.

Run: /usr/bin/python3 tests/sim/drain36_sim.py  (numpy). Independent of llmdlua's Lua code:
every figure here comes from the simulated requests' own start and end times."""
import heapq
import math
import numpy as np

SHARE, QUEUE_CHANCE = 0.95, 0.05


def serve(starts, service, slots):
    """FIFO server with `slots` parallel slots: each request's end time."""
    free = [starts[0]] * slots
    ends = np.empty(len(starts))
    for i, s in enumerate(starts):
        f = heapq.heappop(free)
        ends[i] = max(f, s) + service[i]
        heapq.heappush(free, ends[i])
    return ends


def judge(starts, ends, lam, summary="percentiles"):
    """Every reading of one load point. summary: 'percentiles' (inference-perf's stage file:
    drain = window - send span, the share of latencies >= it bounded by p50/p90/p95/p99)
    or 'exact' (vLLM without --save-detailed: the last request's latency, exact share)."""
    n = len(starts)
    lat = ends - starts
    W = ends.max() - starts.min()
    S = starts.max() - starts.min()
    lmin, lmax = lat.min(), lat.max()
    old = n / W
    red = n / (W - lmin)
    sent = n / S
    if summary == "percentiles":
        # the sends kept to their schedule here: the reference is the rate they were sent at
        ref = n / S
        d = W - S
        tail = 1.0
        for q in (50, 90, 95, 99):
            if np.percentile(lat, q) < d - 1e-6:
                tail = 1 - q / 100
        chance = min(1.0, (ref * max(lmax - d, 0) + 1) * tail)
    else:
        # vLLM: the offered rate; were the last tenth of the requests the slowest? The
        # one-sided Mann-Whitney rank-sum chance (normal, ties corrected)
        ref = lam
        d = lat[-1]
        m = n // 10
        order = np.argsort(lat, kind="stable")
        rank = np.empty(n)
        i = 0
        ties = 0.0
        while i < n:
            j = i
            while j < n - 1 and lat[order[j + 1]] == lat[order[i]]:
                j += 1
            rank[order[i:j + 1]] = (i + j) / 2 + 1
            t = j - i + 1
            ties += t ** 3 - t
            i = j + 1
        var = m * (n - m) / 12 * ((n + 1) - ties / (n * (n - 1)))
        if var > 1e-9 * m * (n - m) * (n + 1) / 12:
            z = (rank[n - m:].sum() - m * (n + 1) / 2) / math.sqrt(var)
            chance = 0.5 * math.erfc(z / math.sqrt(2))
        else:
            chance = 1.0
        tail = float("nan")
    # the per-request pace (llmd.runmodel.pace): the middle 80 % of the sends and answers
    ps, pe = np.percentile(starts, [10, 90]), np.percentile(ends, [10, 90])
    pace = ((ps[1] - ps[0]) and (pe[1] - pe[0])) and ((n - 1) * 0.8 / (pe[1] - pe[0])) / ((n - 1) * 0.8 / (ps[1] - ps[0]))
    short = red < SHARE * ref
    if not short:
        verdict = "kept up"
    elif summary == "percentiles" and sent < SHARE * ref:
        verdict = "saturated (sends)"
    elif chance <= QUEUE_CHANCE:
        verdict = "saturated (queue)"
    else:
        verdict = "N/A (spread)"
    return dict(n=n, W=W, S=S, drain=d, lmin=lmin, lmax=lmax, old=old, old_pct=old / lam * 100, red=red,
                red_pct=red / ref * 100, sent=sent, tail=tail, chance=chance, pace_pct=pace * 100,
                old_verdict="kept up" if old >= SHARE * lam else "saturated", verdict=verdict)


def show(name, r):
    print(f"{name:48s} old {r['old_pct']:6.2f} % ({r['old_verdict']:9s}) reduced {r['red']:8.4f} req/s "
          f"{r['red_pct']:6.2f} % drain {r['drain']:7.4f} s L {r['lmin']:.4g}-{r['lmax']:.4g} tail {r['tail']:.4g} "
          f"chance {r['chance']:.3g} pace {r['pace_pct']:6.2f} % -> {r['verdict']}")


def even(lam, n, t0=0.0):
    return t0 + np.arange(n) / lam


def scenarios():
    rng = np.random.default_rng(36)
    print("== the claims (60 s of requests) ==")
    for name, lam, slots, svc, poisson, kind in [
        ("kept up: 20 s latencies, 10 req/s, mu 20", 10, 400, lambda n: np.full(n, 20.0), False, "percentiles"),
        ("kept up: 20 s latencies, Poisson sends", 10, 400, lambda n: np.full(n, 20.0), True, "percentiles"),
        ("kept up: 20 s, Poisson sends, vLLM reading", 10, 400, lambda n: np.full(n, 20.0), True, "exact"),
        ("M/D/1 overload: 10 req/s, mu 8", 10, 1, lambda n: np.full(n, 0.125), False, "percentiles"),
        ("M/D/1 overload: 10 req/s, mu 9.3", 10, 1, lambda n: np.full(n, 1 / 9.3), False, "percentiles"),
        ("M/D/1 overload, vLLM reading", 10, 1, lambda n: np.full(n, 0.125), True, "exact"),
        ("M/D/c overload: 160 slots x 20 s (mu 8)", 10, 160, lambda n: np.full(n, 20.0), False, "percentiles"),
        ("kept up, spread U(18, 22) s", 10, 400, lambda n: rng.uniform(18, 22, n), False, "percentiles"),
        ("kept up, spread U(15, 25) s", 10, 400, lambda n: rng.uniform(15, 25, n), False, "percentiles"),
        ("kept up, spread U(10, 30) s", 10, 400, lambda n: rng.uniform(10, 30, n), False, "percentiles"),
        ("kept up, spread U(10, 30) s, vLLM reading", 10, 400, lambda n: rng.uniform(10, 30, n), True, "exact"),
        ("overload with spread U(15, 25) (mu 8)", 10, 160, lambda n: rng.uniform(15, 25, n), False, "percentiles"),
        ("overload with spread U(10, 30) (mu 8)", 10, 160, lambda n: rng.uniform(10, 30, n), False, "percentiles"),
    ]:
        n = 600
        starts = np.concatenate([[0], np.cumsum(rng.exponential(1 / lam, n - 1))]) if poisson else even(lam, n)
        show(name, judge(starts, serve(starts, svc(n), slots), lam, kind))


def tests():
    print("== tests/lua/test_saturation.lua ==")
    t0 = 1771234500.0
    kept = lambda lam, n: even(lam, n, t0) + 20.0
    s = even(10, 600, t0)
    show("ip kept stage 0: 600 at 10 req/s, 20 s", judge(s, s + 20.0, 10))
    s = even(12, 720, t0)
    r = judge(s, s + 20.0, 12)
    show("ip kept stage 1: 720 at 12 req/s, 20 s", r)
    print("   achieved (max sustained) %.10g" % r["old"])
    e = serve(s, np.full(720, 1 / 9.6), 1)
    r = judge(s, e, 12)
    show("ip queue stage 1: 720 at 12 req/s, M/D/1 mu 9.6", r)
    print("   reduced %.10g, drain %.10g, lmin %.10g, lmax %.10g" % (r["red"], r["drain"], r["lmin"], r["lmax"]))
    for lam, n in ((10, 600), (12, 720)):
        s = even(lam, n, t0)
        k = np.arange(n)
        r = judge(s, s + 10 + 20 * ((k * 389) % n) / (n - 1), lam)
        show(f"ip spread: {n} at {lam} req/s, 10-30 s scrambled", r)
        print("   reduced %.10g, drain %.10g, chance %.10g" % (r["red"], r["drain"], r["chance"]))
    for lam, n in ((10, 200), (12, 240)):
        s = even(lam, n, 100.0)
        r = judge(s, s + 20.0, lam, "exact")
        show(f"vllm kept: {n} at {lam} req/s, 20 s", r)
        print("   achieved %.10g" % r["old"])
    s = even(12, 240, 100.0)
    r = judge(s, serve(s, np.full(240, 1 / 9.6), 1), 12, "exact")
    show("vllm queue: 240 at 12 req/s, M/D/1 mu 9.6", r)
    print("   reduced %.10g, chance %.10g" % (r["red"], r["chance"]))


scenarios()
tests()
