#!/bin/sh
# `kinetoscope export-memory` on every shared trace with allocator events, every device, every
# format; memory_export_check.py compares the outputs with the trace as Python parses it and
# re-derives torch's coalescing. Also the command's errors: no memory events, an unknown device.
# Env: KS_BIN, KS_SOURCE_DIR, KS_SHARED_TRACES (set by ctest).
set -eu

: "${KS_BIN:?KS_BIN must point to the kinetoscope binary}"
: "${KS_SOURCE_DIR:?}"
: "${KS_SHARED_TRACES:?}"
PY=/usr/bin/python3
CHECK="$KS_SOURCE_DIR/tests/scripts/memory_export_check.py"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

# trace|devices
CASES="
pytorch_kineto__tb_plugin__samples__resnet50_num_workers_0__worker0.1623143089861.pt.trace.json.gz|cuda:0,cpu
AMD-AGI_TraceLens__tests__traces__h100__gaunernst_bert-small-uncased__1016001.json.gz|cuda:0,cpu
AMD-AGI_TraceLens__tests__traces__h100__Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz|cuda:0,cpu
AMD-AGI_TraceLens__tests__traces__mi300__ddp_resnet18_no_pool__train_resnet18.json.gz|cpu
AMD-AGI_TraceLens__tests__traces__perf_model__normalization__normalization_layer_test.json.gz|hip:0,cpu
"
n=0
for c in $CASES; do
    trace="$KS_SHARED_TRACES/${c%%|*}"
    [ -f "$trace" ] || fail "missing $trace"
    for dev in $(echo "${c#*|}" | tr , ' '); do
        n=$((n + 1))
        for ext in json json.gz raw.json.gz html; do
            "$KS_BIN" export-memory "$trace" "$WORK/m$n.$ext" --device "$dev" 2>"$WORK/err" ||
                { cat "$WORK/err" >&2; fail "export-memory $trace $dev $ext"; }
        done
        "$PY" "$CHECK" "$trace" "$dev" "$WORK/m$n" || fail "check of $trace on $dev"
    done
done

# The default device is torch's: cuda:0 when there is CUDA memory.
q="$KS_SHARED_TRACES/AMD-AGI_TraceLens__tests__traces__h100__Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz"
"$KS_BIN" export-memory "$q" "$WORK/default.json"
"$KS_BIN" export-memory "$q" "$WORK/cuda.json" --device cuda:0
cmp -s "$WORK/default.json" "$WORK/cuda.json" || fail "default device is not cuda:0"

# Errors: exit 1 with a message that says what to do; nothing written.
if "$KS_BIN" export-memory "$q" "$WORK/x.json" --device cuda:3 2>"$WORK/err"; then fail "unknown device accepted"; fi
grep -q "devices in this trace: cpu, cuda:0" "$WORK/err" || fail "unknown device message: $(cat "$WORK/err")"
nomem="$KS_SHARED_TRACES/pytorch_kineto__docs__traces__before_fix_trace.json"
if "$KS_BIN" export-memory "$nomem" "$WORK/x.json" 2>"$WORK/err"; then fail "trace without memory accepted"; fi
grep -q "no memory events" "$WORK/err" || fail "no-memory message: $(cat "$WORK/err")"
[ ! -e "$WORK/x.json" ] || fail "a failed export wrote a file"
set +e
"$KS_BIN" export-memory "$q" 2>/dev/null
[ $? -eq 2 ] || fail "missing OUT is not a usage error"
set -e
"$KS_BIN" export-memory --help | grep -q "raw.json.gz" || fail "--help"
echo "ok: $n device exports checked"
