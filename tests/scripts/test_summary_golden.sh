#!/bin/sh
# `kinetoscope summary` against tables printed by torch itself.
#  1. The acceptance case: a real torch 1.13 run (legacy profiler) and the table torch printed for it
#     (shared traces, torch113_legacy/), byte for byte.
#  2. Kineto traces: tables torch 1.13's own EventList code printed for them
#     (tests/data/summary/cases.txt, made by tests/scripts/torch_table.py). Most of these traces were
#     written by torch 2.x, whose own table follows other rules: the cases ask for torch 1.13's
#     (--torch-version 1.13), as the oracle printed them.
set -u
: "${KS_BIN:?KS_BIN must point at the kinetoscope binary}"
: "${KS_SOURCE_DIR:?}"
: "${KS_SHARED_TRACES:?}"
data=$KS_SOURCE_DIR/tests/data/summary
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0

check() { # name expected-file command...
    name=$1
    expected=$2
    shift 2
    if ! "$@" > "$tmp/got.txt" 2> "$tmp/err.txt"; then
        echo "FAIL $name: exit status $? ($(cat "$tmp/err.txt"))"
        failed=1
    elif ! diff -u "$expected" "$tmp/got.txt" > "$tmp/diff.txt"; then
        echo "FAIL $name:"
        head -40 "$tmp/diff.txt"
        failed=1
    else
        echo "ok   $name"
    fi
}

legacy=$KS_SHARED_TRACES/torch113_legacy
# The table file's first line records the options; the rest is torch's output.
tail -n +2 "$legacy/mlp_plain.table.txt" > "$tmp/mlp_expected.txt"
check torch113-mlp-plain "$tmp/mlp_expected.txt" \
    "$KS_BIN" summary "$legacy/mlp_plain.json" --sort-by cpu_time_total --row-limit -1

grep -v '^#' "$data/cases.txt" > "$tmp/cases.txt"
while read -r name trace opts; do
    [ -n "$name" ] || continue
    case "$trace" in
    data/*) path=$data/${trace#data/} ;;
    *) path=$KS_SHARED_TRACES/$trace ;;
    esac
    # shellcheck disable=SC2086
    check "$name" "$data/$name.txt" "$KS_BIN" summary "$path" --torch-version 1.13 --memory-units legacy $opts
done < "$tmp/cases.txt"

exit $failed
