#!/usr/bin/env python3
"""fixb52: synthetic `vllm bench serve --save-detailed` ladders of one server (numpy only).

A decode-bound server of C output tokens/s (processor sharing): at request rate r with mean
output length m its load is rho = r m / C, each request's TPOT tpot0 / (1 - rho) (times a
lognormal jitter, sigma 0.1), its TTFT 50 ms, its E2E TTFT + out x TPOT. Output lengths are
lognormal (sigma 0.3) around the run's mean; input 256 tokens each; sends every 1 / r s.

  fixb52_tokens.py DIR MEAN_OUT SEED [--fail PCT] [--rates 4,6,8,10,12] [--n 300] [--repeats 1]
                    [--sigma 0.3] [--cap 3000] [--tpot0 0.01] [--sat]

writes DIR/benchmark_NN.json (one file a load, repeats as the same rate again). --fail PCT:
each request fails at random with that probability (an HTTP 503, vLLM's empty answer), the
server otherwise unchanged: an A/A pair of two seeds fails about PCT % at random.
Used by the fixb52 reproductions (a token gap inside the 5 % workload tolerance; the default
5 % failure limit compared as an exact number); the expected values of the tests are not
read from here.
"""
import json, sys, argparse
import numpy as np

ap = argparse.ArgumentParser()
ap.add_argument("dir"); ap.add_argument("mean_out", type=float); ap.add_argument("seed", type=int)
ap.add_argument("--fail", type=float, default=0.0)
ap.add_argument("--rates", default="4,6,8,10,12")
ap.add_argument("--n", type=int, default=300)
ap.add_argument("--repeats", type=int, default=1)
ap.add_argument("--cap", type=float, default=3000.0)   # C, output tokens/s
ap.add_argument("--tpot0", type=float, default=0.01)
ap.add_argument("--sat", action="store_true")  # past C: answers at most C tokens/s (saturation)
ap.add_argument("--sigma", type=float, default=0.3)  # the output lengths' lognormal sigma (0: all alike)
a = ap.parse_args()
rng = np.random.default_rng(a.seed)
import os
os.makedirs(a.dir, exist_ok=True)
sig = a.sigma
mu = np.log(a.mean_out) - sig * sig / 2
i = 0
for rate in [float(x) for x in a.rates.split(",")]:
    for rep in range(a.repeats):
        i += 1
        n = a.n
        out = np.maximum(1, np.round(np.exp(rng.normal(mu, sig, n)))).astype(int)
        rho = rate * a.mean_out / a.cap
        assert rho < 1 or a.sat
        tpot = a.tpot0 / (1 - (min(rho, 0.9) if a.sat else rho)) * np.exp(rng.normal(0, 0.1, n))
        ttft = np.full(n, 0.05)
        lat = ttft + (out - 1) * tpot
        fail = rng.random(n) < a.fail / 100
        starts = 100 + np.arange(n) / rate
        if a.sat:
            # (answers no faster than C output tokens/s: past it the queue grows)
            lat = np.maximum(lat, 100 + np.cumsum(out) / a.cap + lat.min() - starts)
        d = {"date": "20261206-100000", "endpoint_type": "openai", "backend": "openai", "label": None,
             "model_id": "Qwen/Qwen3-0.6B", "tokenizer_id": "Qwen/Qwen3-0.6B", "num_prompts": n,
             "request_rate": rate, "burstiness": 1.0, "max_concurrency": None}
        ok = ~fail
        end = float(np.max((starts + lat)[ok])) if ok.any() else float(starts[-1])
        dur = end - starts[0] + i * 1e-9
        d.update(duration=dur, completed=int(ok.sum()), failed=int(fail.sum()),
                 total_input_tokens=int(256 * ok.sum()), total_output_tokens=int(out[ok].sum()),
                 request_throughput=float(ok.sum() / dur), request_goodput=None,
                 output_throughput=float(out[ok].sum() / dur),
                 total_token_throughput=float((256 * ok.sum() + out[ok].sum()) / dur))
        d["input_lens"] = [256] * n
        d["output_lens"] = [int(o) if k else 0 for o, k in zip(out, ok)]
        d["ttfts"] = [float(x) if k else 0.0 for x, k in zip(ttft, ok)]
        d["itls"] = [[float(t)] * (int(o) - 1) if k else [] for t, o, k in zip(tpot, out, ok)]
        d["latencies"] = [float(x) if k else 0.0 for x, k in zip(lat, ok)]
        d["start_times"] = [float(s) for s in starts]
        d["queue_times"] = [0.0] * n
        d["generated_texts"] = ["" for _ in range(n)]
        d["errors"] = ["" if k else "HTTP 503" for k in ok]
        with open(os.path.join(a.dir, "benchmark_%02d.json" % i), "w") as f:
            json.dump(d, f)
