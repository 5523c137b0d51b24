#!/bin/sh
# kinetoscope export-stacks against torch's own EventList.export_stacks (Debian torch 1.13), fed by
# tests/scripts/torch_table.py with the same events and the same frames (python_function ancestors
# or "Call stack"): byte-identical output for CPU and device metrics on traces recorded with_stack.
set -eu
: "${KS_BIN:?}" "${KS_SOURCE_DIR:?}" "${KS_SHARED_TRACES:?}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
failed=0
check() {
    trace="$1"; metric="$2"
    "$KS_BIN" export-stacks --metric "$metric" "$KS_SHARED_TRACES/$trace" "$tmp/ours.txt" || { echo "FAIL: $trace: export-stacks failed"; failed=1; return; }
    /usr/bin/python3 "$KS_SOURCE_DIR/tests/scripts/torch_table.py" --stacks "$metric" "$KS_SHARED_TRACES/$trace" > "$tmp/torch.txt" || { echo "FAIL: $trace: oracle failed"; failed=1; return; }
    if ! cmp -s "$tmp/ours.txt" "$tmp/torch.txt"; then
        echo "FAIL: $trace $metric differs from torch's export_stacks:"
        diff "$tmp/torch.txt" "$tmp/ours.txt" | head -10
        failed=1
        return
    fi
    lines=$(wc -l < "$tmp/ours.txt")
    echo "ok: $trace $metric ($lines lines)"
    [ "$lines" -gt 0 ] || { echo "FAIL: $trace: no stacks (the case is vacuous)"; failed=1; }
}
check AMD-AGI_TraceLens__tests__traces__perf_model__normalization__normalization_layer_test.json.gz self_cpu_time_total
check AMD-AGI_TraceLens__tests__traces__perf_model__normalization__normalization_layer_test.json.gz self_cuda_time_total
check AMD-AGI_TraceLens__evals__unit_tests__gemm__gemm_01_compute_few_tiles_analysis_output__gemm_01_compute_few_tiles.json self_cpu_time_total
check AMD-AGI_TraceLens__evals__unit_tests__attention__sdpa_01_long_seq_low_eff_analysis_output__sdpa_01_long_seq_low_eff.json self_cpu_time_total
check AMD-AGI_TraceLens__tests__traces__inference__vllm_decode_full__graph_execution.json.gz self_cuda_time_total
check AMD-AGI_TraceLens__tests__traces__h100__gaunernst_bert-small-uncased__1016001.json.gz self_cpu_time_total
# Unknown metrics are refused with torch's message.
if "$KS_BIN" export-stacks --metric cpu_time "$KS_SHARED_TRACES/AMD-AGI_TraceLens__evals__unit_tests__gemm__gemm_01_compute_few_tiles_analysis_output__gemm_01_compute_few_tiles.json" "$tmp/x.txt" 2>"$tmp/err"; then
    echo "FAIL: bad metric accepted"; failed=1
fi
grep -q "metric should be one of" "$tmp/err" || { echo "FAIL: bad-metric message"; failed=1; }
exit $failed
