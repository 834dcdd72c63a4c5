#!/bin/sh
# Reproduce the llm-d comparison "{{ a.label }}" (A) vs "{{ b.label }}" (B).
#
# Written by llmdlua compare.lua on {{ generated }}
# Workspace: {{ workspace }}
#
# Text from the runs (labels, paths, commands) is quoted or commented line by line.
# REVIEW BEFORE RUNNING. The commands of each run are shown commented out, exactly as
# they ran (or, for an imported run, what is known of it). Uncomment what you want to
# repeat; every cluster command is scoped to the namespace below.
set -eu

export NAMESPACE={{ namespace | sh }}
export BENCHMARK_PVC={{ pvc | sh }}
export GATEWAY_SVC={{ gateway_svc | sh }}
export RUN_A_LABEL={{ a.label | sh }}
export RUN_B_LABEL={{ b.label | sh }}
export COMPARISON_DIR={{ workspace | sh }}
{% for side in sides %}

# ---- Run {{ side.x | upper }}: {{ side.label }} ----------------------------------------
{% if side.imported %}
# Imported, not benchmarked by this comparison: results from
#   {{ side.source }}
{% end %}
# What is known of its configuration (run-{{ side.x }}/run_state.json):
{{ side.state_text | comment }}
{% if side.config_text != "" %}
# Benchmark configuration:
{{ side.config_text | comment }}
{% end %}
{% if len(side.commands) > 0 %}
# Commands:
{% for c in side.commands %}
{{ c | comment }}
{% end %}
{% else %}
# No commands recorded for this run.
{% end %}
{% end %}

# ---- Re-generate the report from the saved workspace ------------------------------------
{{ analyze }}
