#!/bin/sh
# kinetoscope summary --group-by-stack-n against torch's key_averages(group_by_stack_n=N).table()
# (Debian torch 1.13, fed by tests/scripts/torch_table.py with the same events and frames):
# byte-identical tables, Source Location column, continuation frames and blank rows included, and
# with FLOPs on, torch's swapped FLOPs/Source Location cells. (The oracle drops GPU user
# annotations, which torch 1.13 cannot tell from same-named ops: the cases are sorted so that those
# rows stay out of view. The traces are torch 2.x's; the oracle is torch 1.13's table code, so the
# cases ask for its rules with --torch-version 1.13.)
set -eu
: "${KS_BIN:?}" "${KS_SOURCE_DIR:?}" "${KS_SHARED_TRACES:?}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
failed=0
check() {
    trace="$1"; shift
    "$KS_BIN" summary --torch-version 1.13 --memory-units legacy "$@" "$KS_SHARED_TRACES/$trace" > "$tmp/ours.txt" || { echo "FAIL: $trace $*: summary failed"; failed=1; return; }
    /usr/bin/python3 "$KS_SOURCE_DIR/tests/scripts/torch_table.py" "$@" "$KS_SHARED_TRACES/$trace" > "$tmp/torch.txt" || { echo "FAIL: $trace: oracle failed"; failed=1; return; }
    if ! cmp -s "$tmp/ours.txt" "$tmp/torch.txt"; then
        echo "FAIL: $trace $* differs from torch's table:"
        diff "$tmp/torch.txt" "$tmp/ours.txt" | head -10
        failed=1
        return
    fi
    grep -q "Source Location" "$tmp/ours.txt" || { echo "FAIL: $trace $*: no Source Location column (vacuous)"; failed=1; return; }
    echo "ok: $trace $* ($(wc -l < "$tmp/ours.txt") lines)"
}
norm=AMD-AGI_TraceLens__tests__traces__perf_model__normalization__normalization_layer_test.json.gz
gemm=AMD-AGI_TraceLens__evals__unit_tests__gemm__gemm_01_compute_few_tiles_analysis_output__gemm_01_compute_few_tiles.json
bert=AMD-AGI_TraceLens__tests__traces__h100__gaunernst_bert-small-uncased__1016001.json.gz
check "$norm" --group-by-stack-n 1 --sort-by self_cpu_time_total --row-limit 20
check AMD-AGI_TraceLens__evals__unit_tests__attention__sdpa_01_long_seq_low_eff_analysis_output__sdpa_01_long_seq_low_eff.json --group-by-stack-n 5 --row-limit 40
check AMD-AGI_TraceLens__tests__traces__inference__vllm_decode_full__graph_execution.json.gz --group-by-stack-n 4 --sort-by self_cpu_time_total --row-limit 25
check "$gemm" --group-by-stack-n 3 --sort-by cpu_time_total --row-limit -1
check "$bert" --group-by-stack-n 2 --sort-by self_cpu_time_total --row-limit 30
check "$bert" --group-by-stack-n 3 --flops on --group-by-input-shape --sort-by count --row-limit 30
exit $failed
