# shellcheck shell=sh
# What the shell test scripts share, sourced after they set TMP_STEM: a scratch folder
# $TMP (/tmp/$TMP_STEM-XXXXXX) removed when the script exits, and the count of checks:
# ok, fail MESSAGE (said with $name, the check under way), and report, the last line
# "N passed, N failed" that tests/run.sh reads, and the script's exit status.
TMP=$(mktemp -d "/tmp/${TMP_STEM:-llmdlua-test}-XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT
passed=0
failed=0
name=

ok() { passed=$((passed + 1)); }
fail() {
    failed=$((failed + 1))
    echo "FAIL $name: $*" >&2
}
report() {
    echo "$passed passed, $failed failed"
    [ "$failed" -eq 0 ]
}
