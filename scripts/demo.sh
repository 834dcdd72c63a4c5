#!/bin/sh
# make demo: compare the bundled real inference-perf pair (tests/fixtures) in a
# temporary workspace and print the report. Nothing outside that folder is written.
set -eu
bin=${1:-./llmdlua}
parent=$(mktemp -d "${TMPDIR:-/tmp}/llmdlua-demo-XXXXXX")
"$bin" compare.lua \
    --a tests/fixtures/kubecon-na-2025_vllm --a-label vllm \
    --a-info tests/fixtures/kubecon-vllm.info.yaml \
    --b tests/fixtures/kubecon-na-2025_vllm_chunking_and_prefix_caching --b-label vllm+chunked-prefix \
    --b-info tests/fixtures/kubecon-chunked.info.yaml --slo ttft_p90_ms=200 \
    --parent "$parent"
