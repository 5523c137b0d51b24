#!/bin/sh
# `kinetoscope summary` options and bad input: clear messages and exit codes, never a crash.
set -u
: "${KS_BIN:?KS_BIN must point at the kinetoscope binary}"
: "${KS_SHARED_TRACES:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
trace=$KS_SHARED_TRACES/torch113_legacy/mlp_plain.json

expect() { # name wanted-status pattern-in-output command...
    name=$1 want=$2 pattern=$3
    shift 3
    "$@" > "$tmp/out.txt" 2>&1
    got=$?
    if [ "$got" -ne "$want" ]; then
        echo "FAIL $name: exit status $got, wanted $want"
        cat "$tmp/out.txt"
        failed=1
    elif ! grep -q -- "$pattern" "$tmp/out.txt"; then
        echo "FAIL $name: output lacks '$pattern'"
        cat "$tmp/out.txt"
        failed=1
    else
        echo "ok   $name"
    fi
}

expect help 0 "--group-by-input-shape" "$KS_BIN" summary --help
expect no-trace 2 "usage: kinetoscope summary" "$KS_BIN" summary
expect bad-sort-key 2 "unknown sort key 'name'" "$KS_BIN" summary "$trace" --sort-by name
expect bad-row-limit 2 "needs an integer" "$KS_BIN" summary "$trace" --row-limit ten
expect bad-units 2 "new or legacy" "$KS_BIN" summary "$trace" --memory-units kb
expect unknown-option 2 "unknown option '--bogus'" "$KS_BIN" summary "$trace" --bogus
expect missing-file 1 "kinetoscope: " "$KS_BIN" summary "$tmp/none.json"
printf '{"traceEvents": [ {"ph": "X", "name": ' > "$tmp/broken.json"
# A file cut off before its first complete event has nothing to show: the reader says where it ends.
expect broken-json 1 "truncated at byte 38, 0 events loaded" "$KS_BIN" summary "$tmp/broken.json"
printf '[1, 2]' > "$tmp/notrace.json"
expect not-a-trace 1 "not a trace" "$KS_BIN" summary "$tmp/notrace.json"
printf 'garbage' > "$tmp/garbage.json"
expect garbage 1 "kinetoscope: " "$KS_BIN" summary "$tmp/garbage.json"
# The limit counts printed rows; the legacy run has 65 rows.
expect row-limit 0 "aten::linear" "$KS_BIN" summary "$trace" --sort-by cpu_time_total --row-limit 2
rows=$("$KS_BIN" summary "$trace" --row-limit 3 | grep -c "us  ")
[ "$rows" -eq 3 ] || { echo "FAIL row-count: $rows rows printed, wanted 3"; failed=1; }
expect header 0 "^=.*" "$KS_BIN" summary "$trace" --header "My run" --row-limit 1
expect time-unit 0 "Self CPU time total: 27.978ms" "$KS_BIN" summary "$trace" --time-unit ms --row-limit 1
expect registered 0 "summary" "$KS_BIN" --help
exit $failed
