#!/usr/bin/python3
"""Expected statistics of the real and synthetic fixtures in ../shared/fixtures, computed
independently of llmdlua: Python's json/csv modules read the files, numpy computes the
statistics (np.percentile method="linear" and method="inverted_cdf" for nearest rank,
np.std with ddof 0). Writes tests/lua/fixture_expected.lua.

usage: /usr/bin/python3 tests/data/fixture_expectations.py ../shared/fixtures > tests/lua/fixture_expected.lua
(Debian's python3 with python3-numpy 1.24.)
"""
import csv
import glob
import json
import os
import sys

import numpy as np

F = sys.argv[1]


def load(rel):
    with open(os.path.join(F, rel)) as f:
        return json.load(f)


cases = []


def case(cid, values, note):
    cases.append((cid, [float(v) for v in values], note))


# inference-perf per-request (synthetic, v0.6.1 layout)
ip = load("inference-perf/synthetic-per_request_lifecycle_metrics.json")
times = [((r.get("info") or {}).get("response_metrics") or {}).get("output_token_times") for r in ip]
case("ip_itl", [b - a for t in times if t for a, b in zip(t, t[1:])], "gaps of output_token_times")
case("ip_first", [t[0] for t in times if t], "first output token time")
case("ip_ntokens", [len(t) for t in times if t is not None], "tokens per request")
case("ip_input", [r["info"]["request_metrics"]["text"]["input_tokens"] for r in ip], "input tokens")

# vllm bench serve --save-detailed (synthetic)
v = load("vllm-benchmark/synthetic-vllm_bench_serve_save_detailed.json")
case("vllm_ttft", v["ttfts"], "ttfts")
case("vllm_itl", [x for l in v["itls"] for x in l], "itls flattened")
case("vllm_e2e", v["latencies"], "latencies")
case("vllm_itl_sum", [sum(l) for l in v["itls"]], "sum of each request's itls")
case("vllm_itl_last", [l[-1] for l in v["itls"] if l], "last itl of each request")

# inferencemax result.json (synthetic)
m = load("inferencemax/synthetic-result.json")
case("imax_ttft", m["ttfts"], "ttfts")
case("imax_itl", [x for l in m["itls"] for x in l], "itls flattened")
case("imax_outlens", m["output_lens"], "output_lens")

# guidellm v0.7.3 requests (synthetic)
g = load("guidellm/synthetic-guidellm_v0.7.3_benchmark_requests.json")
case("gl_ttft", [r["time_to_first_token_ms"] for r in g["successful"]], "successful TTFT ms")
lat = [r["request_latency"] for k in ("successful", "errored", "incomplete") for r in g[k]]
case("gl_latency_all", [x for x in lat if x is not None], "request_latency of every status (nulls skipped)")
gl_latency_nulls = sum(1 for x in lat if x is None)

# inference-perf kubecon demo (real): one number per stage file
for folder in ("kubecon-na-2025_vllm", "kubecon-na-2025_vllm_chunking_and_prefix_caching"):
    vals, rates = [], []
    for n in range(7):
        d = load(f"inference-perf/{folder}/stage_{n}_lifecycle_metrics.json")
        vals.append(d["successes"]["latency"]["time_to_first_token"]["p90"])
        rates.append(d["load_summary"]["requested_rate"])
    short = "base" if folder.endswith("vllm") else "treat"
    case(f"kubecon_{short}_ttft_p90", vals, "stage TTFT p90 (s) over the 7 stages")
    case(f"kubecon_{short}_rate", rates, "requested rate over the 7 stages")

# vllm benchmark_serving exp-7 (real), 12 files
files = sorted(glob.glob(os.path.join(F, "vllm-benchmark/exp-7_H100/*/*.json")))
case("exp7_mean_ttft", [json.load(open(p))["mean_ttft_ms"] for p in files], "mean_ttft_ms of 12 files")
case("exp7_p99_itl", [json.load(open(p))["p99_itl_ms"] for p in files], "p99_itl_ms of 12 files")

# guidellm report v2 (real)
r2 = load("guidellm/guidellm_report_v2.json")
case("gl2_ttft_mean", [b["metrics"]["time_to_first_token_ms"]["successful"]["mean"]
                       for b in r2["benchmarks"]], "per-benchmark TTFT mean ms")

# llm-d-benchmark metrics_summary (synthetic, written by the real process_metrics.py)
ms = load("metrics-summary/synthetic-metrics_summary.json")
case("ms_kv_mean", [p["metrics"]["vllm:kv_cache_usage_perc"]["mean"] for k, p in ms.items()
                    if "metrics" in p and "vllm:kv_cache_usage_perc" in p["metrics"]],
     "kv_cache_usage_perc mean of every pod and _aggregated")

# JSON Lines (autobench result rows)
rows = [json.loads(l) for l in open(os.path.join(F, "autobench/results/tests-cli_writes_markdown_and_csv.jsonl"))
        if l.strip()]
case("jsonl_ttft", [r["metrics"]["mean_ttft_ms"] for r in rows if "mean_ttft_ms" in (r.get("metrics") or {})],
     "mean_ttft_ms of each row")

# CSV (llm-d-benchmark expected output), empty cells skipped
with open(os.path.join(F, "llm-d-benchmark/expected/treatment_comparison.from-br-examples.csv")) as f:
    rows = list(csv.DictReader(f))
case("csv_ttft_mean", [float(r["ttft_mean_s"]) for r in rows if r["ttft_mean_s"] != ""], "ttft_mean_s")
case("csv_rate", [float(r["rate_qps"]) for r in rows], "rate_qps")
csv_empty = sum(1 for r in rows if r["tpot_p99_s"] == "")  # tpot_p99_s: every cell empty


def lua(x):
    return repr(float(x)) if np.isfinite(x) else ("math.huge" if x > 0 else "-math.huge")


print("-- Generated by tests/data/fixture_expectations.py (python3 json/csv + numpy); do not edit.")
print("return {")
for cid, vals, note in cases:
    a = np.array(vals, dtype=float)
    print(f"  {cid} = {{ -- {note}")
    print(f"    count = {len(a)}, sum = {lua(a.sum())}, mean = {lua(a.mean())},")
    print(f"    min = {lua(a.min())}, max = {lua(a.max())}, stddev = {lua(a.std())},")
    for p in (0, 25, 50, 90, 99, 100):
        print(f"    p{p} = {lua(np.percentile(a, p))},")
    for p in (50, 90, 99):
        print(f"    nearest{p} = {lua(np.percentile(a, p, method='inverted_cdf'))},")
    print("  },")
print(f"  csv_tpot_p99_empty = {csv_empty},")
print(f"  gl_latency_nulls = {gl_latency_nulls},")
print("}")
