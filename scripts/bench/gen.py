#!/usr/bin/env python3
"""Generates benchmark inputs in the real result-file shapes (see shared/fixtures/
FORMATS.md), each at least MB megabytes, written as a stream.

usage: gen.py DIR MB [ITEM...]   (files are kept and reused while their size fits)
       ITEMs: the shapes to make, by make bench's item names (inference_perf vllm_bench
       guidellm csv prom ip_tokens vllm_itls csv_floats); none: all of them. Each shape
       has a generator of its own, so a file is the same whichever others are made.
Shapes: inference-perf per-request array, vllm bench serve --save-detailed, guidellm
benchmarks with per-request stats, a per-request CSV (these four mostly text), raw vLLM
scrapes, and three number-dense ones (issue 20): inference-perf records that are mostly
per-token timestamp arrays, a --save-detailed file that is mostly ITLs, and a CSV of
full-precision floats. Numbers are written as Python writes them (repr / json.dumps: the
shortest repr that round-trips, up to 17 significant digits). Deterministic (seeded).

usage: gen.py DIR MB --compare SHAPE FOLDER   writes only the two runs of the compare.lua
       item, FOLDER/a and FOLDER/b: whole inference-perf runs as llm-d's profiles leave them
       (per-request file of SHAPE, ip_tokens, inference_perf or many, 7 stage files on a
       rate ladder, the summary, config.yaml); B with another seed. many: short requests
       (1 to 16 output tokens, a short prompt), 6,000 a run per MB up to 300,000 (from
       MB 50), as a long benchmark leaves: the per-request statistics, not the bytes, are
       the work
"""
import array
import fcntl
import json
import os
import random
import shutil
import sys
import time

SHAPES = ("inference_perf", "vllm_bench", "guidellm", "csv", "prom", "ip_tokens", "vllm_itls", "csv_floats")
if len(sys.argv) < 3:
    sys.exit("usage: gen.py DIR MB [ITEM...] | gen.py DIR MB --compare SHAPE FOLDER")
out, target_mb = sys.argv[1], float(sys.argv[2])
compare = sys.argv[4:6] if len(sys.argv) == 6 and sys.argv[3] == "--compare" else None
wanted = SHAPES if compare or len(sys.argv) == 3 else sys.argv[3:]
for w in wanted:
    if w not in SHAPES:
        sys.exit("gen.py: no item %r to make (expected some of: %s)" % (w, " ".join(SHAPES)))
target = int(target_mb * 1e6)
os.makedirs(out, exist_ok=True)
# Two people generating one inputs folder for the first time at once: one generates, the
# other waits for it (an exclusive lock on DIR/.gen.lock, held until this one ends, released
# by the kernel if it dies) and then finds every file made. Each file is written under a
# name of this process's own and renamed into place, so a file is there whole or not at all.
lock = open(os.path.join(out, ".gen.lock"), "a")
try:
    fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
except BlockingIOError:
    print("gen.py: another generation of %s is running; waiting for it" % out, file=sys.stderr, flush=True)
    fcntl.flock(lock, fcntl.LOCK_EX)


def tmp(path):
    return "%s.tmp.%d" % (path, os.getpid())
rnd = random.Random(20261129)
WORDS = ("the of and to in is for on with as by at from that this it be are was model "
         "token cache prefix latency request server batch decode prefill gpu memory "
         "throughput schedule kernel tensor").split()


def text(n):
    return " ".join(rnd.choice(WORDS) for _ in range(n))


def done(path):
    return os.path.exists(path) and os.path.getsize(path) >= target


def ip_record(start, times, req, response, chunks=None):
    """One inference-perf v0.6.1 per-request record of a 512-token prompt whose output
    tokens came at `times` (one a chunk); the raw `response_chunks` only when given."""
    n = len(times)
    metrics = {"output_tokens": n,
               "server_usage": {"prompt_tokens": 512, "completion_tokens": n,
                                "total_tokens": 512 + n,
                                "prompt_tokens_details": {"cached_tokens": 128}}}
    if chunks is not None:
        metrics["response_chunks"] = chunks
    metrics["chunk_times"] = times
    metrics["output_token_times"] = times
    return {
        "start_time": start, "end_time": times[-1] + 0.001, "request": req,
        "response": response,
        "info": {
            "request_metrics": {"text": {"input_tokens": 512}, "image": None,
                                "video": None, "audio": None},
            "response_metrics": metrics,
            "extra_info": {}, "lora_adapter": None, "labels": {}, "input_tokens": 512},
        "error": None,
    }


def inference_perf(path, ladder=None):
    """inference-perf v0.6.1 per-request records, mostly text (the SSE body, the raw chunks);
    at 20 requests a second, or with LADDER (the compare item's runs) its stages' rates"""
    if done(path):
        return
    with open(tmp(path), "w") as f:
        f.write("[")
        i, size = 0, 1
        while size < target or (ladder and not ladder.complete()):
            u = rnd.random()
            start = ladder.start(size, u) if ladder else 1771234500.0 + i * 0.05 + u * 0.01
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
            body = "".join("data: " + c + "\n\n" for c in chunks) + "data: [DONE]\n\n"
            rec = ip_record(start, times, req, body, chunks)
            if ladder:
                ladder.add(rec)
            s = ("," if i else "") + json.dumps(rec)
            f.write(s)
            size += len(s)
            i += 1
        f.write("]")
    os.rename(tmp(path), path)


def vllm_bench(path):
    if done(path):
        return
    per_req = 256 * 20 + 1200  # itls + a generated text
    n = target // per_req + 1
    with open(tmp(path), "w") as f:
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
    os.rename(tmp(path), path)


def guidellm(path):
    if done(path):
        return
    with open(tmp(path), "w") as f:
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
    os.rename(tmp(path), path)


def csv_rows(path):
    if done(path):
        return
    with open(tmp(path), "w") as f:
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
    os.rename(tmp(path), path)




def prom_raw(folder, target_bytes):
    """16 pods x N snapshots of vLLM /metrics text (about 500 series, 55 kB, each), laid
    out as llm-d-benchmark's collect_metrics.sh writes results/metrics/raw: N = 240 for
    target_bytes of 192 MB and more (make bench's 500 MB), fewer for a smaller target
    (one snapshot a 800 kB, at least 4), so that a test-sized run reads a few MB, not 211."""
    if os.path.exists(os.path.join(folder, ".done")):
        return
    # made in a folder of this process's own, renamed into place when whole (one left by a
    # generation that was stopped goes first)
    final, folder = folder, tmp(folder)
    shutil.rmtree(final, ignore_errors=True)
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
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
    snaps = max(4, min(240, -(-target_bytes // (16 * 50_000))))
    per_file = target_bytes // (16 * snaps) + 1
    t0 = 1771233602
    for snap in range(snaps):
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
    os.rename(folder, final)



# A long text to cut texts from (cheaper than drawing each word); its own generator, so
# that the shapes above stay as they were
PROSE = " ".join(random.Random(7).choice(WORDS) for _ in range(4000)) + " "


def ip_tokens(path, seed=20261201, slow=1.0, ladder=None):
    """inference-perf per-request records whose bytes are mostly per-token timestamps:
    v0.6.1's record layout with `chunk_times` and `output_token_times` (one token per
    chunk, so the two are equal), epoch seconds with 17 significant digits. The text
    parts that make the `inference_perf` shape text-heavy (the SSE body in `response`,
    the raw `response_chunks`) are left out; the request body (a 512-token prompt)
    stays. About 50 bytes of file per output token time. At 20 requests a second, or with
    LADDER (the compare item's runs) its stages' rates."""
    if done(path):
        return
    r = random.Random(seed)
    with open(tmp(path), "w") as f:
        f.write("[")
        i, size = 0, 1
        while size < target or (ladder and not ladder.complete()):
            u = r.random()
            start = ladder.start(size, u) if ladder else 1771234500.0 + i * 0.05 + u * 0.01
            n = r.randint(192, 320)
            times, t = [], start + (0.02 + r.random() * 0.3) * slow
            for _ in range(n):
                times.append(t)
                t += (0.005 + r.random() * 0.01) * slow
            at = r.randrange(len(PROSE) - 2001)
            req = json.dumps({"model": "Qwen/Qwen3-0.6B", "prompt": PROSE[at:at + 2000],
                              "max_tokens": n, "ignore_eos": True, "stream": True,
                              "stream_options": {"include_usage": True}})
            rec = ip_record(start, times, req, None)
            if ladder:
                ladder.add(rec)
            s = ("," if i else "") + json.dumps(rec)
            f.write(s)
            size += len(s)
            i += 1
        f.write("]")
    os.rename(tmp(path), path)


def ip_short(path, requests, seed, slow, ladder):
    """REQUESTS short inference-perf per-request records (v0.6.1's layout, as ip_tokens):
    1 to 16 output tokens, a prompt of 50 to 300 characters, on LADDER's stages (counted
    in requests); about 1.2 kB a record"""
    r = random.Random(seed)
    with open(tmp(path), "w") as f:
        f.write("[")
        i = 0
        while i < requests or not ladder.complete():
            start = ladder.start(i, r.random())
            n = r.randint(1, 16)
            times, t = [], start + (0.02 + r.random() * 0.3) * slow
            for _ in range(n):
                times.append(t)
                t += (0.005 + r.random() * 0.01) * slow
            at = r.randrange(len(PROSE) - 301)
            req = json.dumps({"model": "Qwen/Qwen3-0.6B", "prompt": PROSE[at:at + r.randint(50, 300)],
                              "max_tokens": n, "ignore_eos": True, "stream": True,
                              "stream_options": {"include_usage": True}})
            rec = ip_record(start, times, req, None)
            ladder.add(rec)
            f.write(("," if i else "") + json.dumps(rec))
            i += 1
        f.write("]")
    os.rename(tmp(path), path)


def vllm_itls(path):
    """`vllm bench serve --save-detailed` (v0.26 key set and order) that is essentially
    `itls`: 128 to 384 ITLs a request, 17 significant digits, beside ttfts, latencies and
    the other per-request arrays; a generated text of about 4 characters a token. About
    26 bytes of file per ITL. The aggregates after the arrays are computed from them."""
    if done(path):
        return
    r = random.Random(20261202)
    per_req = 256 * 24  # a little under the real size: the file comes out >= MB
    n = target // per_req + 1
    outs = [r.randint(128, 384) for _ in range(n)]
    ttfts = [0.02 + r.random() * 0.4 for _ in range(n)]
    itl_sum, itl_n, tpots = 0.0, 0, []
    lat = []
    with open(tmp(path), "w") as f:
        head = {"date": "20261201-101500", "endpoint_type": "openai", "backend": "openai",
                "label": None, "model_id": "Qwen/Qwen3-0.6B", "tokenizer_id": "Qwen/Qwen3-0.6B",
                "num_prompts": n, "request_rate": 8.0, "burstiness": 1.0, "max_concurrency": None,
                "duration": n / 8.0, "completed": n, "failed": 0,
                "total_input_tokens": 512 * n, "total_output_tokens": sum(outs),
                "request_throughput": 8.0, "request_goodput": None,
                "output_throughput": sum(outs) / (n / 8.0),
                "total_token_throughput": (512 * n + sum(outs)) / (n / 8.0)}
        f.write(json.dumps(head)[:-1])
        f.write(', "input_lens": [' + ", ".join("512" for _ in range(n)) + "]")
        f.write(', "output_lens": [' + ", ".join(str(o) for o in outs) + "]")
        f.write(', "ttfts": [' + ", ".join(repr(x) for x in ttfts) + "]")
        f.write(', "itls": [')
        for i in range(n):
            gaps = [0.004 + r.random() * 0.02 for _ in range(outs[i] - 1)]
            itl_sum += sum(gaps)
            itl_n += len(gaps)
            lat.append(ttfts[i] + sum(gaps))
            tpots.append(sum(gaps) / len(gaps))
            f.write(("," if i else "") + "[" + ", ".join(repr(g) for g in gaps) + "]")
        f.write('], "latencies": [' + ", ".join(repr(x) for x in lat) + "]")
        f.write(', "start_times": [' + ", ".join(repr(81234.5 + i / 8.0 + r.random() * 0.01)
                                                 for i in range(n)) + "]")
        f.write(', "queue_times": [' + ", ".join(repr(r.random() * 1e-4) for _ in range(n)) + "]")
        f.write(', "generated_texts": [')
        for i in range(n):
            at = r.randrange(len(PROSE) - 4 * outs[i] - 1)
            f.write(("," if i else "") + json.dumps(PROSE[at:at + 4 * outs[i]]))
        f.write('], "errors": [' + ", ".join('""' for _ in range(n)) + "]")
        tail = {"max_output_tokens_per_s": 512.0, "max_concurrent_requests": 32, "rtfx": 0.0}

        def pct(xs, p):
            xs = sorted(xs)
            h = p / 100 * (len(xs) - 1)
            lo = int(h)
            return xs[lo] if lo + 1 >= len(xs) else xs[lo] + (xs[lo + 1] - xs[lo]) * (h - lo)
        for m, xs in (("ttft", ttfts), ("tpot", tpots), ("e2el", lat)):
            tail["mean_%s_ms" % m] = sum(xs) / n * 1000
            tail["median_%s_ms" % m] = pct(xs, 50) * 1000
            tail["p99_%s_ms" % m] = pct(xs, 99) * 1000
        # the pooled ITL's mean only: its percentiles would need every gap kept here
        tail["mean_itl_ms"] = itl_sum / itl_n * 1000
        f.write(", " + json.dumps(tail)[1:])
    os.rename(tmp(path), path)


def csv_floats(path):
    """A per-request CSV of full-precision floats: three %r floats and two integers a row,
    no text column; about 64 bytes a row."""
    if done(path):
        return
    r = random.Random(20261203)
    with open(tmp(path), "w") as f:
        f.write("ttft_ms,tpot_ms,e2e_ms,input_tokens,output_tokens\n")
        size, rows = 0, []
        while size < target:
            ttft = 20 + r.random() * 300
            tpot = 4 + r.random() * 20
            out = r.randint(64, 512)
            row = "%r,%r,%r,%d,%d\n" % (ttft, tpot, ttft + (out - 1) * tpot, r.randint(128, 1024), out)
            rows.append(row)
            size += len(row)
            if len(rows) == 10000:
                f.write("".join(rows))
                rows = []
        f.write("".join(rows))
    os.rename(tmp(path), path)


# The compare item's runs are whole inference-perf runs, as llm-d's profiles leave them
# (per_stage, per_request and the summary set): a constant-rate ladder of 7 stages (the
# kubecon demo runs' rates), each stage's share of the bytes in proportion to its rate (so
# stages of one length, as in those runs), at least 2 requests a stage; the stage files and
# the summary are summarize_requests' figures of the requests written (v0.6.1 keys,
# numpy's linear percentiles), so that they agree with the per-request file as real ones
# do. Reading such a run costs what users pay: the per-request file placed in stages, each
# stage's samples kept and tested, not one stage's.
RATES = (1.0, 31.4, 61.79, 92.19, 122.59, 152.98, 183.38)
PCTS = (("p0.1", 0.1), ("p1", 1), ("p5", 5), ("p10", 10), ("p25", 25), ("median", 50), ("p75", 75),
        ("p90", 90), ("p95", 95), ("p99", 99), ("p99.9", 99.9))


def summary(xs):
    """inference-perf's summary dict of XS (mean, min, percentiles by numpy's linear rule,
    max); None (null) without samples"""
    if len(xs) == 0:
        return None
    import numpy as np
    a = np.sort(np.asarray(xs, dtype=np.float64))
    d = {"mean": float(a.mean()), "min": float(a[0])}
    for k, q in PCTS:
        d[k] = float(np.percentile(a, q, method="linear"))
    d["max"] = float(a[-1])
    return d


class Ladder:
    def __init__(self, target, t0=1771234500.0):
        total = sum(RATES)
        self.cum = [target * sum(RATES[:k + 1]) / total for k in range(len(RATES))]
        self.k, self.j, self.t0, self.last_end = 0, 0, t0, t0
        self.stages = [{"start": [], "end": [], "delay": [], "ttft": [], "tpot": [], "ntpot": [],
                        "itl": array.array("d"), "prompt": [], "cached": [], "out": [], "size": []}
                       for _ in RATES]

    def complete(self):
        return self.k == len(RATES) - 1 and self.j >= 2

    def start(self, size, u):
        """the next request's start time: its stage's schedule plus a delay of -0.6 to 1.4 ms"""
        if self.k < len(RATES) - 1 and size >= self.cum[self.k] and self.j >= 2:
            self.k, self.j, self.t0 = self.k + 1, 0, self.last_end + 1.0  # (after the last answer)
        delay = (u - 0.3) * 0.002
        st = self.stages[self.k]
        st["delay"].append(delay)
        self.j += 1
        return self.t0 + (self.j - 1) / RATES[self.k] + delay

    def add(self, rec):
        st = self.stages[self.k]
        m = rec["info"]["response_metrics"]
        times, start, end, n = m["output_token_times"], rec["start_time"], rec["end_time"], m["output_tokens"]
        self.last_end = max(self.last_end, end)
        st["start"].append(start)
        st["end"].append(end)
        if len(times) > 1:
            st["ttft"].append(times[0] - start)
            st["itl"].extend(b - a for a, b in zip(times, times[1:]))
            if n > 1:
                st["tpot"].append((times[-1] - times[0]) / (n - 1))
        st["ntpot"].append((end - start) / n if n else 0.0)
        st["prompt"].append(rec["info"]["request_metrics"]["text"]["input_tokens"])
        st["cached"].append(m["server_usage"]["prompt_tokens_details"]["cached_tokens"])
        st["out"].append(n)
        st["size"].append(len(rec["request"]))

    def report(self, sts, k=None):
        """summarize_requests' report of the stages STS (one: its stage file, all: the summary)"""
        def cat(key):
            if key == "itl":
                a = array.array("d")
                for st in sts:
                    a.extend(st[key])
                return a
            return [x for st in sts for x in st[key]]
        start, end, out, prompt = cat("start"), cat("end"), cat("out"), cat("prompt")
        n, t = len(start), max(end) - min(start)
        load = {"count": n, "schedule_delay": summary(cat("delay"))}
        if k is not None:
            send = max(start) - min(start)
            load.update({"send_duration": send, "requested_rate": RATES[k], "achieved_rate": n / send})
        cached = sum(cat("cached"))
        return {"benchmark_time_seconds": t, "load_summary": load,
                "successes": {"count": n, "latency": {
                    "request_latency": summary([b - a for a, b in zip(start, end)]),
                    "normalized_time_per_output_token": summary(cat("ntpot")),
                    "time_per_output_token": summary(cat("tpot")),
                    "time_to_first_token": summary(cat("ttft")),
                    "inter_token_latency": summary(cat("itl"))},
                    "throughput": {"input_tokens_per_sec": sum(prompt) / t, "output_tokens_per_sec": sum(out) / t,
                                   "total_tokens_per_sec": (sum(prompt) + sum(out)) / t,
                                   "requests_per_sec": n / t},
                    "prompt_len": summary(prompt), "output_len": summary(out),
                    "prompt_tokens": {"total": float(sum(prompt)), "cached": float(cached),
                                      "uncached": float(sum(prompt) - cached)},
                    "output_tokens": {"total": float(sum(out))},
                    "token_count_mismatches": 0, "request_size_bytes": summary(cat("size"))},
                "failures": {"count": 0, "request_latency": None, "prompt_len": None, "by_label": {}}}

    def write(self, folder):
        for k, st in enumerate(self.stages):
            with open(os.path.join(folder, "stage_%d_lifecycle_metrics.json" % k), "w") as f:
                json.dump(self.report([st], k), f, indent=2)
        with open(os.path.join(folder, "summary_lifecycle_metrics.json"), "w") as f:
            json.dump(self.report(self.stages), f, indent=2)
        # the configuration inference-perf writes beside its reports (the stages it ran)
        secs = max(int(max(st["start"]) - min(st["start"])) + 1 for st in self.stages)
        with open(os.path.join(folder, "config.yaml"), "w") as f:
            f.write("load:\n  type: constant\n  stages:\n" + "".join(
                "  - rate: %r\n    duration: %d\n" % (r, secs) for r in RATES)
                + "server:\n  type: vllm\n  model_name: Qwen/Qwen3-0.6B\n"
                "  base_url: http://qwen-inference-gateway.llm-d-bench.svc.cluster.local:80\n"
                "report:\n  request_lifecycle:\n    summary: true\n    per_stage: true\n    per_request: true\n")


# the many shape's requests a run: 6,000 a MB, 300,000 from MB 50 on (at least 2 a stage)
MANY = max(2 * len(RATES), min(300_000, round(target_mb * 6000)))


def compare_run(folder, shape, side):
    """one run of the compare item in FOLDER (kept while whole: its .done, which holds the
    count of requests made (many's: and asked for), and a per-request file of at least MB;
    many's: of MANY requests asked for)"""
    per = os.path.join(folder, "per_request_lifecycle_metrics.json")
    mark = os.path.join(folder, ".done")
    if os.path.exists(mark) and done(per):
        with open(mark) as f:
            kept = f.read().strip()
        if shape != "many" or kept.split()[1:] == [str(MANY)]:
            return
    final, folder = folder, tmp(folder)
    shutil.rmtree(final, ignore_errors=True)
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    ladder = Ladder(MANY if shape == "many" else target)  # (many's ladder counts requests)
    per = os.path.join(folder, "per_request_lifecycle_metrics.json")
    if shape == "ip_tokens":  # B: another seed, 10 % slower
        ip_tokens(per, seed=20261201 if side == "a" else 20261204, slow=1.0 if side == "a" else 1.1, ladder=ladder)
    elif shape == "many":
        ip_short(per, MANY, seed=20261206 if side == "a" else 20261207, slow=1.0 if side == "a" else 1.1, ladder=ladder)
    else:
        global rnd
        rnd = random.Random(20261129 if side == "a" else 20261205)
        inference_perf(per, ladder=ladder)
    ladder.write(folder)
    with open(os.path.join(folder, ".done"), "w") as f:
        made = sum(len(st["start"]) for st in ladder.stages)
        f.write(("%d %d\n" % (made, MANY)) if shape == "many" else "%d\n" % made)
    os.rename(folder, final)


if compare:
    shape, folder = compare
    if shape not in ("ip_tokens", "inference_perf", "many"):
        sys.exit("gen.py: --compare: no shape %r (expected ip_tokens, inference_perf or many)" % shape)
    os.makedirs(folder, exist_ok=True)
    for side in "ab":
        compare_run(os.path.join(folder, side), shape, side)
    sys.exit(0)
# the text-heavy shapes draw from rnd: each its own seed (inference_perf's is the one they
# all once shared, drawn in this order), so that what is made does not depend on which
# other files were made in the same run, or were there already
MAKERS = {
    "inference_perf": (20261129, lambda: inference_perf(os.path.join(out, "inference_perf.json"))),
    "vllm_bench": (20261130, lambda: vllm_bench(os.path.join(out, "vllm_bench.json"))),
    "guidellm": (20261131, lambda: guidellm(os.path.join(out, "guidellm.json"))),
    "csv": (20261132, lambda: csv_rows(os.path.join(out, "requests.csv"))),
    "prom": (None, lambda: prom_raw(os.path.join(out, "raw"), max(int(target_mb * 0.4e6), 2_000_000))),
    "ip_tokens": (None, lambda: ip_tokens(os.path.join(out, "ip_tokens.json"))),
    "vllm_itls": (None, lambda: vllm_itls(os.path.join(out, "vllm_itls.json"))),
    "csv_floats": (None, lambda: csv_floats(os.path.join(out, "requests_floats.csv"))),
}
for name in SHAPES:
    if name in wanted:
        seed, make = MAKERS[name]
        if seed is not None:
            rnd = random.Random(seed)
        make()
