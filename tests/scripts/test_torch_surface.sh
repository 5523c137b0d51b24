#!/bin/sh
# The running torch's whole torch.profiler surface on kinetoscope (tests/scripts/torch_surface.py):
# every name of torch.profiler, every member of its enums, every public attribute and argument of
# torch.profiler.profile exists on kinetoscope / kinetoscope.profile, torch's own objects are
# re-exported as themselves, and what Kinetoscope implements behaves as torch documents it (trace
# ids, the explicit phases, toggle_collection_dynamic, wait_for_exports, KinetoStepTracker, the
# execution trace observer), compared with torch's own profiler where the running torch has the
# feature; and a live session (kinetoscope record) counts its steps. Fails when any name is missing.
set -eu
: "${KS_BINARY_DIR:?}" "${KS_SOURCE_DIR:?}" "${KS_BIN:?}"
. "$(dirname "$0")/common.sh"
need_torch_observer
cd "$work"
KINETOSCOPE_LIB="$KS_BINARY_DIR/core/capi/libkinetoscope.so.1" \
KINETOSCOPE_TORCH_LIB="$KS_BINARY_DIR/core/torch/libkinetoscope_torch.so" \
PYTHONPATH="$KS_SOURCE_DIR/resources/python" \
    "$PY" "$KS_SOURCE_DIR/tests/scripts/torch_surface.py" "$work" 2>"$work/run.err" ||
    fail "surface: $(grep -v '^USDT:' "$work/run.err")"

# Under a live session (kinetoscope record), kinetoscope.profile's steps are the session's steps, as
# torch's profile's are: one requester per profile, counted by KinetoStepTracker's rule.
cat >"$work/live_steps.py" <<'PY'
import sys
import torch
import kinetoscope as ks
x = torch.randn(8, 8)
with ks.profile(schedule=ks.schedule(wait=1, warmup=1, active=2)) as p:
    for _ in range(int(sys.argv[1])):
        x @ x
        p.step()
PY
"$KS_BIN" record --env "PYTHONPATH=$KS_SOURCE_DIR/resources/python" -o "$work/live.pt.trace.json" \
    -- "$PY" "$work/live_steps.py" 6 >"$work/live.out" 2>&1 || fail "live record: $(cat "$work/live.out")"
grep -q "^\[kinetoscope\] wrote .*, 6 steps," "$work/live.out" ||
    fail "the live session did not count the profile's 6 steps: $(tail -n 3 "$work/live.out")"
echo "live session: kinetoscope.profile's 6 steps counted"
