#!/usr/bin/env python3
"""Generates benchmark inputs in the real result-file shapes (see shared/fixtures/
FORMATS.md), each at least MB megabytes, written as a stream.

usage: gen.py DIR MB        (files are kept and reused while their size fits)
Shapes: inference-perf per-request array, vllm bench serve --save-detailed, guidellm
benchmarks with per-request stats, a per-request CSV. Deterministic (seeded).
"""
import json
import os
import random
import sys

out, target_mb = sys.argv[1], float(sys.argv[2])
target = int(target_mb * 1e6)
os.makedirs(out, exist_ok=True)
rnd = random.Random(20261129)
WORDS = ("the of and to in is for on with as by at from that this it be are was model "
         "token cache prefix latency request server batch decode prefill gpu memory "
         "throughput schedule kernel tensor").split()


def text(n):
    return " ".join(rnd.choice(WORDS) for _ in range(n))


def done(path):
    return os.path.exists(path) and os.path.getsize(path) >= target


def inference_perf(path):
    if done(path):
        return
    with open(path + ".tmp", "w") as f:
        f.write("[")
        i, size = 0, 1
        while size < target:
            start = 1771234500.0 + i * 0.05 + rnd.random() * 0.01
            first = start + 0.02 + rnd.random() * 0.3
            times, t = [], first
            for _ in range(64):
                times.append(t)
                t += 0.005 + rnd.random() * 0.01
            chunk = {"id": f"cmpl-{i}", "object": "text_completion", "created": int(start),
                     "model": "Qwen/Qwen3-0.6B", "choices": [{"index": 0, "text": " tok",
                     "logprobs": None, "finish_reason": None}]}
            chunks = [json.dumps(chunk)] * 64
            req = json.dumps({"model": "Qwen/Qwen3-0.6B", "prompt": text(300), "max_tokens": 64,
                              "ignore_eos": True, "stream": True,
                              "stream_options": {"include_usage": True}})
            rec = {
                "start_time": start, "end_time": times[-1] + 0.001, "request": req,
                "response": "".join("data: " + c + "\n\n" for c in chunks) + "data: [DONE]\n\n",
                "info": {
                    "request_metrics": {"text": {"input_tokens": 512}, "image": None,
                                        "video": None, "audio": None},
                    "response_metrics": {
                        "output_tokens": 64,
                        "server_usage": {"prompt_tokens": 512, "completion_tokens": 64,
                                         "total_tokens": 576,
                                         "prompt_tokens_details": {"cached_tokens": 128}},
                        "response_chunks": chunks, "chunk_times": times,
                        "output_token_times": times},
                    "extra_info": {}, "lora_adapter": None, "labels": {}, "input_tokens": 512},
                "error": None,
            }
            s = ("," if i else "") + json.dumps(rec)
            f.write(s)
            size += len(s)
            i += 1
        f.write("]")
    os.rename(path + ".tmp", path)


def vllm_bench(path):
    if done(path):
        return
    per_req = 256 * 20 + 1200  # itls + a generated text
    n = target // per_req + 1
    with open(path + ".tmp", "w") as f:
        head = {"date": "20261129-101500", "endpoint_type": "openai", "backend": "openai",
                "label": None, "model_id": "Qwen/Qwen3-0.6B", "num_prompts": n,
                "request_rate": 8.0, "duration": n / 8.0, "completed": n, "failed": 0}
        f.write(json.dumps(head)[:-1])
        for key, gen in (("input_lens", lambda: 512), ("output_lens", lambda: 256),
                         ("ttfts", lambda: 0.02 + rnd.random() * 0.4),
                         ("latencies", lambda: 1.0 + rnd.random() * 3.0)):
            f.write(', "%s": [' % key + ", ".join(repr(gen()) for _ in range(n)) + "]")
        f.write(', "itls": [')
        for i in range(n):
            f.write(("," if i else "") + "[" + ", ".join(repr(0.004 + rnd.random() * 0.02)
                                                         for _ in range(256)) + "]")
        f.write('], "generated_texts": [')
        for i in range(n):
            f.write(("," if i else "") + json.dumps(text(200)))
        f.write('], "errors": [' + ", ".join('""' for _ in range(n)) + "]}")
    os.rename(path + ".tmp", path)


def guidellm(path):
    if done(path):
        return
    with open(path + ".tmp", "w") as f:
        f.write('{"metadata": {"version": 2, "guidellm_version": "0.7.3"}, "benchmarks": [')
        f.write('{"type_": "generative_benchmark", "config": {"strategy": {"type_": "constant", '
                '"rate": 8.0}}, "requests": {"successful": [')
        i, size = 0, 0
        while size < target:
            t0 = 1771240000.0 + i * 0.1
            ttft = 20 + rnd.random() * 300
            lat = 1 + rnd.random() * 3
            rec = {"type_": "generative_request_stats", "request_id": f"req-{i}",
                   "response_id": f"resp-{i}",
                   "request_args": json.dumps({"messages": [{"role": "user", "content": text(300)}]}),
                   "output": text(250), "reasoning_output": None, "tool_calls": None,
                   "info": {"status": "completed", "error": None,
                            "timings": {"request_start": t0, "first_token_iteration": t0 + ttft / 1000,
                                        "last_token_iteration": t0 + lat, "request_end": t0 + lat}},
                   "input_metrics": {"text_tokens": 512}, "output_metrics": {"text_tokens": 256},
                   "request_start_time": t0, "request_end_time": t0 + lat,
                   "request_latency": lat, "prompt_tokens": 512, "output_tokens": 256,
                   "time_to_first_token_ms": ttft,
                   "time_per_output_token_ms": lat * 1000 / 256,
                   "inter_token_latency_ms": (lat * 1000 - ttft) / 255}
            s = ("," if i else "") + json.dumps(rec)
            f.write(s)
            size += len(s)
            i += 1
        f.write('], "errored": [], "incomplete": [], "total": null}}]}')
    os.rename(path + ".tmp", path)


def csv_rows(path):
    if done(path):
        return
    with open(path + ".tmp", "w") as f:
        f.write("request_id,status,ttft_ms,tpot_ms,itl_ms,e2e_ms,input_tokens,output_tokens,output\n")
        i, size = 0, 0
        while size < target:
            ttft = 20 + rnd.random() * 300
            tpot = 4 + rnd.random() * 20
            row = '%d,ok,%r,%r,%r,%r,512,256,"%s, ""quoted"""\n' % (
                i, ttft, tpot, tpot * 0.98, ttft + 255 * tpot, text(30))
            f.write(row)
            size += len(row)
            i += 1
    os.rename(path + ".tmp", path)


inference_perf(os.path.join(out, "inference_perf.json"))
vllm_bench(os.path.join(out, "vllm_bench.json"))
guidellm(os.path.join(out, "guidellm.json"))
csv_rows(os.path.join(out, "requests.csv"))


def prom_raw(folder, target_bytes):
    """16 pods x 240 snapshots of vLLM /metrics text (about 500 series each), laid out
    as llm-d-benchmark's collect_metrics.sh writes results/metrics/raw."""
    os.makedirs(folder, exist_ok=True)
    if os.path.exists(os.path.join(folder, ".done")):
        return
    model = "Qwen/Qwen3-0.6B"
    hists = [("vllm:time_to_first_token_seconds", [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1,
              0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0]),
             ("vllm:inter_token_latency_seconds", [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3,
              0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0]),
             ("vllm:e2e_request_latency_seconds", [0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0,
              15.0, 20.0, 30.0, 40.0, 50.0, 60.0, 120.0, 240.0, 480.0, 960.0]),
             ("vllm:request_queue_time_seconds", [0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0,
              15.0, 20.0, 30.0, 40.0, 50.0, 60.0, 120.0, 240.0, 480.0, 960.0]),
             ("vllm:request_prompt_tokens", [1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 200.0, 500.0,
              1000.0, 2000.0, 5000.0, 10000.0, 20000.0, 50000.0, 100000.0])]
    counters = ["vllm:prefix_cache_queries", "vllm:prefix_cache_hits", "vllm:prompt_tokens",
                "vllm:generation_tokens", "vllm:num_preemptions",
                "vllm:external_prefix_cache_queries", "vllm:external_prefix_cache_hits"]
    pods = [f"qwen-decode-6f9c7d5b8-{i:05d}" for i in range(16)]
    per_file = target_bytes // (16 * 240) + 1
    t0 = 1771233602
    for snap in range(240):
        t = t0 + 15 * snap
        for p, pod in enumerate(pods):
            lines = []
            for eng in ("0", "1", "2", "3"):  # data parallel: ~500 series a scrape
                lab = f'engine="{eng}",model_name="{model}"'
                k = snap * (3 + p % 5)
                for g, v in (("vllm:num_requests_running", k % 17), ("vllm:num_requests_waiting", k % 5),
                             ("vllm:kv_cache_usage_perc", (k % 100) / 100.0)):
                    lines += [f"# HELP {g} gauge.", f"# TYPE {g} gauge", f"{g}{{{lab}}} {float(v)!r}"]
                for c in counters:
                    val = float(k * (1000 if "queries" in c else 700 if "hits" in c else 50))
                    lines += [f"# HELP {c}_total counter.", f"# TYPE {c}_total counter",
                              f"{c}_total{{{lab}}} {val!r}",
                              f"# HELP {c}_created created.", f"# TYPE {c}_created gauge",
                              f"{c}_created{{{lab}}} {float(t0 - 600)!r}"]
                for h, bounds in hists:
                    lines += [f"# HELP {h} histogram.", f"# TYPE {h} histogram"]
                    total = k * 3
                    for i, b in enumerate(bounds):
                        cnt = float(total * (i + 1) // (len(bounds) + 1))
                        lines.append(f'{h}_bucket{{engine="{eng}",le="{b!r}",model_name="{model}"}} {cnt!r}')
                    lines.append(f'{h}_bucket{{engine="{eng}",le="+Inf",model_name="{model}"}} {float(total)!r}')
                    lines += [f"{h}_count{{{lab}}} {float(total)!r}", f"{h}_sum{{{lab}}} {total * 0.37!r}",
                              f"{h}_created{{{lab}}} {float(t0 - 600)!r}"]
            body = "\n".join(lines) + "\n"
            pad = ""
            if len(body) < per_file:  # vLLM's HELP texts are long: pad them to size
                pad = "# HELP vllm:padding " + "x" * (per_file - len(body)) + "\n"
            stamp = time.strftime("%Y-%m-%dT%H:%M:%S+0000", time.gmtime(t))
            with open(os.path.join(folder, f"{pod}_{t}_metrics.log"), "w") as f:
                f.write(f"# Timestamp: {stamp}\n# Pod: {pod}\n# PodIP: 10.0.0.{p}\n"
                        f"# Source: prometheus_metrics\n\n{pad}{body}\n")
    open(os.path.join(folder, ".done"), "w").close()


import time  # noqa: E402 (used by prom_raw)
prom_raw(os.path.join(out, "raw"), max(int(target_mb * 0.4e6), 2_000_000))
