#!/bin/sh
# make demo: compare the bundled real inference-perf pair (tests/fixtures) in a
# temporary workspace and print the report. Nothing outside that folder is written, and
# the folder is removed when the demo ends, also when it fails or is interrupted.
# DEMO_DIR=DIR (make demo DEMO_DIR=DIR) writes the workspace under DIR instead and keeps it.
set -eu
bin=${1:-./llmdlua}
keep=${DEMO_DIR:-}
if [ -n "$keep" ]; then
    mkdir -p -- "$keep"
    parent=$keep
else
    parent=$(mktemp -d "${TMPDIR:-/tmp}/llmdlua-demo-XXXXXX")
    trap 'rm -rf -- "$parent"' EXIT
    # a signal ends the script through exit, so that the EXIT trap runs
    trap 'exit 129' HUP
    trap 'exit 130' INT
    trap 'exit 143' TERM
fi
"$bin" compare.lua \
    --a tests/fixtures/kubecon-na-2025_vllm --a-label vllm \
    --a-info tests/fixtures/kubecon-vllm.info.yaml \
    --b tests/fixtures/kubecon-na-2025_vllm_chunking_and_prefix_caching --b-label vllm+chunked-prefix \
    --b-info tests/fixtures/kubecon-chunked.info.yaml --slo ttft_p90_ms=200 \
    --parent "$parent"
if [ -z "$keep" ]; then
    echo
    echo "The demo's workspace (above) is removed now that the demo ends; to keep it, with the HTML"
    echo "report and its charts: make demo DEMO_DIR=DIR"
fi
