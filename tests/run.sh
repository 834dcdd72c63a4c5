#!/bin/sh
# Runs every test suite with one binary and prints the total.
#
# usage: tests/run.sh BIN UNITDIR [quick]
#   BIN      the llmdlua binary under test (./llmdlua, or build/asan/llmdlua)
#   UNITDIR  where the C unit test programs were built
#   quick    only the C unit tests and the Lua tests that start no process
#            (for `make valgrind`); $VALGRIND, if set, prefixes every run
#
# Each suite ends with "N passed, N failed"; a suite that dies without that line
# counts as one failure. The last line is the total.
set -u
BIN=$1
UNITDIR=$2
MODE=${3:-all}
VALGRIND=${VALGRIND:-}
here=$(cd "$(dirname "$0")" && pwd)

# The fixture tests need the real harness files, kept outside this repository: say so once,
# before any suite, rather than in a traceback per test file.
fixtures=${LLMDLUA_FIXTURES:-$(cd "$here/../.." && pwd)/shared/fixtures}
if [ ! -d "$fixtures" ]; then
    echo "tests/run.sh: the real harness fixtures are not at $fixtures: clone this repository" \
        "beside shared/ (the fixtures live in ../shared/fixtures) or set LLMDLUA_FIXTURES=DIR" \
        "(README: Tests)" >&2
    exit 1
fi
# A fallback that hides a bug in llmdlua (llmd.parallel: a side that cannot be handed over)
# is an error in every test, not a warning no passing test would see (tests/lua/run.lua sets
# it too when run alone).
export LLMDLUA_STRICT=1
log=$(mktemp /tmp/llmdlua-suite-XXXXXX)
trap 'rm -f "$log"' EXIT
total_passed=0
total_failed=0

suite() {
    label=$1
    shift
    echo "== $label"
    # shellcheck disable=SC2086 # $VALGRIND is a command with its options
    $VALGRIND "$@" >"$log" 2>&1
    rc=$?
    cat "$log"
    line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$log" | tail -n 1)
    if [ -z "$line" ]; then
        echo "$label: no result line (exit code $rc)"
        total_failed=$((total_failed + 1))
        return
    fi
    p=${line%% passed*}
    f=${line#*passed, }
    f=${f%% failed*}
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
        echo "$label: exit code $rc with no failed test"
        f=1
    fi
    total_passed=$((total_passed + p))
    total_failed=$((total_failed + f))
}

for t in "$UNITDIR"/test_*; do
    [ -x "$t" ] && suite "C unit: $(basename "$t")" "$t"
done
if [ "$MODE" = quick ]; then
    suite "Lua: json, yaml" "$BIN" "$here/lua/run.lua" "$here/lua/test_json.lua" "$here/lua/test_yaml.lua"
else
    suite "make: unit test header dependencies" "$here/make/test_deps.sh" "$UNITDIR"
    suite "Lua tests" "$BIN" "$here/lua/run.lua"
    suite "command line" "$here/cli/test_cli.sh" "$BIN"
fi

echo "total: $total_passed passed, $total_failed failed"
[ "$total_failed" -eq 0 ]
