-- inferencemax: what llm-d-benchmark runs under that name is benchmark_serving.py from
-- kimbochen/bench_serving (InferenceMAX's fork of vLLM's old script), writing result.json
-- in vLLM's old format, told apart by its `best_of` key. Per-request arrays input_lens,
-- output_lens, ttfts, itls and errors are there, latencies and start times are not, so
-- a request's end-to-end time is its TTFT plus its chunk gaps (to the last chunk) and the
-- window is the harness's duration. The mapping is vllm_benchmark.lua's.
return require("llmd.harness.vllm_benchmark").variant {
  name = "inferencemax", best_of = true,
  describe = "kimbochen/bench_serving results, vLLM's old format: any .json file whose first 64 KiB has "
    .. "\"request_throughput\", \"num_prompts\" and \"best_of\" (or, where it opens with per-request arrays, whose "
    .. "top level has them); or a .json.gz whose top level has them",
  token_source = "bench_serving's count (its tokenizer; failed requests count 0 output tokens)",
}
