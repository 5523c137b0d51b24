#!/bin/sh
# Real torch as the oracle, under every torch the tests know (torch 1.13, and torch 2.x as
# NAME_torch2): tests/scripts/torch_summary_cases.py profiles several small CPU models (MLP, conv +
# batchnorm, transformer encoder, LSTM, nested record_function, with and without profile_memory,
# with_stack, with_flops, a schedule, two threads) and writes each trace with the tables torch
# printed for it (key_averages(group_by_input_shape / group_by_stack_n).table(sort_by, row_limit,
# top_level_events_only, header, time_unit)). `kinetoscope summary` with the same options and no
# other must print every table byte for byte: the torch version, and with it the table's rules and
# memory units, comes from the trace. Fails when one table differs.
set -eu
: "${KS_BIN:?}" "${KS_SOURCE_DIR:?}" "${KS_BINARY_DIR:?}"
. "$(dirname "$0")/common.sh"
need_torch_observer
out="$work/cases"
mkdir -p "$out"
"$PY" "$KS_SOURCE_DIR/tests/scripts/torch_summary_cases.py" "$out" 2> "$work/err.txt" ||
    { cat "$work/err.txt"; fail "torch run"; }
failed=0
total=0
same=0
while IFS= read -r name; do
    [ -n "$name" ] || continue
    total=$((total + 1))
    set --
    while IFS= read -r a; do set -- "$@" "$a"; done < "$out/$name.args"
    if ! "$KS_BIN" summary "$@" > "$out/$name.ks.txt" 2> "$work/ks.err"; then
        echo "FAIL $name: kinetoscope summary failed: $(cat "$work/ks.err")"
        failed=1
    elif ! cmp -s "$out/$name.txt" "$out/$name.ks.txt"; then
        echo "FAIL $name differs from torch's table (kinetoscope summary $*):"
        diff -u "$out/$name.txt" "$out/$name.ks.txt" | head -30
        failed=1
    else
        same=$((same + 1))
        echo "ok   $name ($(wc -l < "$out/$name.txt") lines)"
    fi
done < "$out/cases.txt"
echo "torch $TORCH_VERSION: $same of $total tables byte-identical"
[ "$total" -ge 20 ] || fail "only $total table cases ran"
# Not vacuous: the tables show what the cases are about.
grep -q "Input Shapes" "$out/lstm-shapes.txt" || fail "no Input Shapes in torch's LSTM table"
grep -q "Self CPU Mem" "$out/convbn-self-mem.txt" || fail "no memory columns in torch's conv+bn table"
grep -q "FLOPs" "$out/flops-sort.txt" || fail "no FLOPs column in torch's FLOPs table"
grep -q "top-level" "$out/nested-top.txt" || fail "no top-level report"
grep -q "ProfilerStep\*" "$out/sched-self.txt" || fail "no ProfilerStep* row in the scheduled window's table"
if [ "$TORCH_MAJOR" -lt 2 ]; then
    # torch 1.13 keeps Python stacks on the ops themselves.
    grep -q "Source Location" "$out/stack-n5.txt" || fail "no Source Location in torch 1.13's stack table"
fi
exit $failed
