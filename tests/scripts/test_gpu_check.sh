#!/bin/sh
# The one-call GPU check (tests/gpu, docs/gpu-collection.md "On a real GPU") must work the first time
# a session is lent a GPU: compare.py finds each kind of difference from torch's trace in made-up
# traces, and under the current torch check.sh runs every step on the CPU, at a small size, against
# this build installed into a prefix as tests/gpu/prepare.sh installs it.
set -eu
: "${KS_BINARY_DIR:?}" "${KS_SOURCE_DIR:?}" "${KS_BIN:?}"
. "$(dirname "$0")/common.sh"

/usr/bin/python3 "$KS_SOURCE_DIR/tests/scripts/gpu_compare_check.py" "$KS_SOURCE_DIR/tests/gpu/compare.py" \
    "$work/compare" || fail "compare.py on made-up traces"

need_torch_observer
# scaled_dot_product_attention is torch 2's: under torch 1.13 only compare.py is checked.
[ "$TORCH_MAJOR" -ge 2 ] || { echo "torch $TORCH_VERSION: the loop needs torch 2; compare.py checked"; exit 0; }
cmake --install "$KS_BINARY_DIR" --prefix "$work/prefix" >"$work/install.log" 2>&1 ||
    fail "install: $(tail -n 3 "$work/install.log")"
status=0
OUT="$work/out" PY="$PY" KS_GPU_PREFIX="$work/prefix" KS_GPU_STOP_AFTER=15 \
    bash "$KS_SOURCE_DIR/tests/gpu/check.sh" --cpu >"$work/check.out" 2>&1 || status=$?
grep -E ": exit [0-9]+ in |checks failed|failures:" "$work/check.out" || true
[ "$status" = 0 ] || fail "check.sh --cpu: exit $status; $(grep -E 'FAIL|exit [1-9]' "$work/check.out" | head -n 8)"
tar -tzf "$work/out/traces.tgz" | grep -q "t/kinetoscope.pt.trace.json.gz" || fail "traces.tgz without our trace"
grep -q "summary of torch's trace" "$work/check.out" || fail "no summary-against-torch line"
echo "gpu check: dry run passed"
