#!/bin/sh
# The Makefile's header dependencies for the C unit test programs: each program's .d
# file lists every header its source includes (the compiler's own list, from cc -MM),
# also after a rebuild, not only on the first build; a header edit rebuilds exactly the
# programs that include it; nothing is rebuilt when nothing changed. make runs on a copy
# of the Makefile, the sources and the built core objects, so the tree under test is
# never touched.
#
# usage: tests/make/test_deps.sh UNITDIR   (build/tests or build/asan/tests, relative to
#        the repository; ends with "N passed, N failed")
set -u
REPO=$(cd "$(dirname "$0")/../.." && pwd)
UNITDIR=${1%/}
case $UNITDIR in
"$REPO"/*) UNITDIR=${UNITDIR#"$REPO"/} ;;
/*)
    echo "tests/make/test_deps.sh: $UNITDIR is not inside $REPO" >&2
    exit 2
    ;;
esac
OBJDIR=$(dirname "$UNITDIR")
CC=${CC:-cc}
TMP_STEM=llmdlua-deps
# shellcheck source=tests/testlib.sh
. "$REPO/tests/testlib.sh"

# make in the copy, without the flags of a make that may have started this script
mk() {
    env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory -C "$TMP" "$@"
}

# the headers a .d file's first rule lists (continuation lines joined), one a line, sorted
d_headers() {
    sed -e ':a' -e '/\\$/N' -e 's/\\\n//' -e 'ta' "$1" | head -n 1 | cut -d: -f2- |
        tr ' ' '\n' | grep '\.h$' | sort -u
}

# the headers the compiler finds for a test's source, the same way
cc_headers() {
    (cd "$TMP" && $CC -MM -MT x -Isrc -Itests/unit "tests/unit/$1.c") >"$TMP/mm" &&
        d_headers "$TMP/mm"
}

# a program's modification time; remember_stamps keeps every program's, changed T says
# whether program T's differs from the one kept
stamp() { stat -c %y "$TMP/$UNITDIR/$1"; }
remember_stamps() {
    mkdir -p "$TMP/stamps"
    for t in $tests; do stamp "$t" >"$TMP/stamps/$t"; done
}
changed() { [ "$(stamp "$1")" != "$(cat "$TMP/stamps/$1")" ]; }

# every .d lists what the compiler finds
check_d_files() {
    for t in $tests; do
        want=$(cc_headers "$t")
        got=$(d_headers "$TMP/$UNITDIR/$t.d" 2>/dev/null)
        if [ -n "$want" ] && [ "$got" = "$want" ]; then ok; else
            fail "$UNITDIR/$t.d lists [$(echo "$got" | tr "\n" " ")], the compiler finds [$(echo "$want" | tr "\n" " ")]"
        fi
    done
}

name="copy of the sources and of the core objects in $OBJDIR"
if [ ! -d "$REPO/$OBJDIR" ]; then
    fail "$REPO/$OBJDIR does not exist: build the objects first"
    report
    exit 1
fi
mkdir -p "$TMP/tests" "$TMP/$OBJDIR" "$TMP/$UNITDIR"
if cp -Rp "$REPO/Makefile" "$REPO/src" "$TMP/" &&
    cp -Rp "$REPO/tests/unit" "$REPO/tests/fuzz" "$TMP/tests/" &&
    cp -p "$REPO/$OBJDIR"/*.o "$REPO/$OBJDIR"/*.d "$TMP/$OBJDIR/"; then ok; else fail "cp failed"; fi

tests=$(cd "$TMP/tests/unit" && for f in test_*.c; do echo "${f%.c}"; done)
targets=$(for t in $tests; do echo "$UNITDIR/$t"; done)

name="first build of every unit test program"
# shellcheck disable=SC2086 # one target a word
if mk $targets >"$TMP/log" 2>&1; then ok; else fail "$(tail -5 "$TMP/log")"; fi
check_d_files

name="nothing changed: nothing to rebuild"
# shellcheck disable=SC2086
if mk -q $targets; then ok; else fail "make -q says something is out of date"; fi

# A rebuild: once the .d files are read, the headers are prerequisites of the program
# too, and they must not reach the compiler as inputs (each would be compiled, and its
# dependencies written over the test's).
name="testhelp.h edited: every program rebuilt, every .d complete again"
sleep 1
touch "$TMP/tests/unit/testhelp.h"
remember_stamps
# shellcheck disable=SC2086
if mk $targets >"$TMP/log" 2>&1; then ok; else fail "$(tail -5 "$TMP/log")"; fi
for t in $tests; do
    if changed "$t"; then ok; else fail "$t was not rebuilt"; fi
done
check_d_files

# Then an edit of scanhelp.h rebuilds exactly the programs whose source includes it,
# as the compiler says.
name="scanhelp.h edited: exactly the programs that include it are rebuilt"
sleep 1
touch "$TMP/tests/unit/scanhelp.h"
remember_stamps
# shellcheck disable=SC2086
if mk $targets >"$TMP/log" 2>&1; then ok; else fail "$(tail -5 "$TMP/log")"; fi
n_including=0
for t in $tests; do
    if cc_headers "$t" | grep -qx 'tests/unit/scanhelp.h'; then
        n_including=$((n_including + 1))
        if changed "$t"; then ok; else fail "$t includes scanhelp.h, not rebuilt"; fi
    else
        if ! changed "$t"; then ok; else fail "$t does not include scanhelp.h, rebuilt"; fi
    fi
done
# test_scan.c and test_csvpar.c include it: the case above is not empty
if [ "$n_including" -ge 2 ]; then ok; else fail "$n_including programs include scanhelp.h, want 2 or more"; fi

name="nothing changed after the rebuilds: nothing to rebuild"
# shellcheck disable=SC2086
if mk -q $targets; then ok; else fail "make -q says something is out of date"; fi

report
