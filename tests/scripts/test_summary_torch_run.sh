#!/bin/sh
# Real torch as the oracle: tests/scripts/torch_run.py profiles a small conv2d + relu + linear
# training run with torch (record_shapes, with_stack, with_flops) and writes the run's trace with
# the table and export_stacks output torch itself printed for it. `kinetoscope summary` and
# `kinetoscope export-stacks` on that trace must print the same bytes: backward ops carry their
# forward op's stack (torch's _set_backward_stacktraces), and conv2d has its FLOPs although the
# trace, like torch 1.13's, has no "Concrete Inputs".
set -u
: "${KS_BIN:?}" "${KS_SOURCE_DIR:?}"
PY=/usr/bin/python3
if ! "$PY" -c "import torch" 2>/dev/null; then
    echo "SKIP: $PY cannot import torch (Debian's python3-torch is needed)"
    exit 0
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
"$PY" "$KS_SOURCE_DIR/tests/scripts/torch_run.py" "$tmp" 2> "$tmp/err.txt" || { echo "FAIL: torch run: $(cat "$tmp/err.txt")"; exit 1; }
failed=0
compare() { # name expected got
    if ! diff -u "$2" "$3" > "$tmp/diff.txt"; then
        echo "FAIL $1 differs from torch's:"
        head -40 "$tmp/diff.txt"
        failed=1
    else
        echo "ok   $1 ($(wc -l < "$3") lines)"
    fi
}
"$KS_BIN" summary --memory-units legacy --group-by-stack-n 5 --sort-by self_cpu_time_total --row-limit -1 \
    "$tmp/trace.json" > "$tmp/table.ks.txt" || { echo "FAIL: summary failed"; failed=1; }
compare "summary --group-by-stack-n 5" "$tmp/table.txt" "$tmp/table.ks.txt"
"$KS_BIN" export-stacks --metric self_cpu_time_total "$tmp/trace.json" "$tmp/stacks.ks.txt" || { echo "FAIL: export-stacks failed"; failed=1; }
compare "export-stacks" "$tmp/stacks.txt" "$tmp/stacks.ks.txt"
# Not vacuous: backward ops are in the table with a stack, and conv2d has FLOPs.
grep -q "ConvolutionBackward0" "$tmp/table.txt" || { echo "FAIL: no backward ops in torch's table"; failed=1; }
grep -q "aten::conv2d  .*[0-9]\.[0-9][0-9][0-9]  " "$tmp/table.txt" || { echo "FAIL: torch's table has no conv2d FLOPs"; failed=1; }
exit $failed
