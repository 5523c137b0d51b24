#!/bin/sh
# The running torch's whole torch.profiler surface on kinetoscope (tests/scripts/torch_surface.py):
# every name of torch.profiler, every member of its enums, every public attribute and argument of
# torch.profiler.profile exists on kinetoscope / kinetoscope.profile, torch's own objects are
# re-exported as themselves, and what Kinetoscope implements behaves as torch documents it (trace
# ids, the explicit phases, toggle_collection_dynamic, wait_for_exports, KinetoStepTracker, the
# execution trace observer), compared with torch's own profiler where the running torch has the
# feature. Fails when any name is missing.
set -eu
: "${KS_BINARY_DIR:?}" "${KS_SOURCE_DIR:?}"
. "$(dirname "$0")/common.sh"
need_torch_observer
cd "$work"
KINETOSCOPE_LIB="$KS_BINARY_DIR/core/capi/libkinetoscope.so.1" \
KINETOSCOPE_TORCH_LIB="$KS_BINARY_DIR/core/torch/libkinetoscope_torch.so" \
PYTHONPATH="$KS_SOURCE_DIR/resources/python" \
    "$PY" "$KS_SOURCE_DIR/tests/scripts/torch_surface.py" "$work" 2>"$work/run.err" ||
    fail "surface: $(grep -v '^USDT:' "$work/run.err")"
