#!/bin/sh
# Command-line options and input at their limits: out-of-range values are refused with a one-line
# error (exit 2) instead of crashing, hanging or eating memory, and trace text reaches the terminal
# escaped in every report.
set -eu
: "${KS_BIN:?}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; }

printf '{"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "a", "pid": 1, "tid": 1, "ts": 1, "dur": 5}]}' \
    > "$tmp/t.json"

# refused EXPECTED-TEXT COMMAND...: the command exits 2 within 60 s with one line on stderr holding
# EXPECTED-TEXT.
refused() {
    want="$1"
    shift
    rc=0
    timeout 60 "$@" > "$tmp/out" 2> "$tmp/err" || rc=$?
    [ "$rc" -eq 2 ] || fail "$* exited $rc, not 2: $(head -c 300 "$tmp/err")"
    grep -qF -- "$want" "$tmp/err" || fail "$*: no '$want' in: $(head -c 300 "$tmp/err")"
}

# 1. --threads beyond kMaxWorkers (1024).
for n in 100000 2147483647 4294967296; do
    refused "--threads needs a count from 0 to 1024" "$KS_BIN" summary "$tmp/t.json" --threads $n
    refused "--threads needs a count from 0 to 1024" "$KS_BIN" diff "$tmp/t.json" "$tmp/t.json" --threads $n
done
"$KS_BIN" summary "$tmp/t.json" --threads 1024 > /dev/null 2> "$tmp/err" || fail "--threads 1024: $(cat "$tmp/err")"

[ $failed -eq 0 ] && echo "ok"
exit $failed
