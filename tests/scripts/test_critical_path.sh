#!/bin/sh
# kinetoscope analyze --critical-path: runs on every shared trace (exit 0, one JSON object whose
# path splits into its bound_by parts, CPU-only traces give a CPU-only path); the overlay of HTA's
# cuda_event_sync trace marks what HTA's overlay marks; usage errors.
set -eu
: "${KS_BIN:?}" "${KS_SHARED_TRACES:?}"
. "$(dirname "$0")/common.sh"

n=0
for f in "$KS_SHARED_TRACES"/*.json "$KS_SHARED_TRACES"/*.json.gz "$KS_SHARED_TRACES"/*/*.json; do
    [ -e "$f" ] || continue
    n=$((n + 1))
    rc=0
    "$KS_BIN" analyze "$f" --critical-path --json >"$work/cp.json" 2>"$work/cp.err" || rc=$?
    [ "$rc" = 0 ] || fail "$(basename "$f"): exit $rc: $(head -3 "$work/cp.err")"
    /usr/bin/python3 - "$work/cp.json" "$f" <<'PY' || fail "$(basename "$f"): bad JSON report"
import json, sys
d = json.load(open(sys.argv[1]))
windows = d["critical_path"]
assert windows, "no window"
for w in windows:
    if not w["ok"]:
        assert w["error"], w
        continue
    parts = sum(w["bound_by_ms"].values())
    assert abs(parts - w["length_ms"]) < 1e-6, (w["window"], parts, w["length_ms"])
    assert w["path_edges"] == w["path_nodes"] - 1, w["window"]
    if w["cpu_only"]:
        assert w["bound_by_ms"]["gpu_compute_bound"] == 0, w["window"]
    for x in w["what_if"]:
        assert x["length_ms"] <= w["length_ms"] + 1e-9, x
PY
    "$KS_BIN" analyze "$f" --critical-path --row-limit 3 >"$work/cp.txt" 2>/dev/null || fail "$(basename "$f"): text report"
    grep -q "^Critical path: " "$work/cp.txt" || fail "$(basename "$f"): no text report"
done
[ "$n" -ge 30 ] || fail "only $n shared traces found in $KS_SHARED_TRACES"

# A CPU-only trace says so.
cpu="$KS_SHARED_TRACES/facebookresearch_HolisticTraceAnalysis@b8cce2c__tests__data__cpu_only__rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz"
"$KS_BIN" analyze "$cpu" --critical-path >"$work/cpu.txt"
grep -q "the path is CPU-only" "$work/cpu.txt" || fail "CPU-only trace not reported as such"

# HTA's overlay of this step marks 21 events and draws 9 arrows (tests/core/tst_criticalpath.cpp).
es="$KS_SHARED_TRACES/facebookresearch_HolisticTraceAnalysis__tests__data__critical_path__cuda_event_sync__event_sync_trace.json.gz"
"$KS_BIN" analyze "$es" --critical-path --steps 100 --what-if "at::cuda::(anonymous namespace)::spin_kernel(long)=4" \
    --overlay "$work/overlay.json" >"$work/es.txt" 2>"$work/es.err"
grep -q "length 2.411 ms" "$work/es.txt" || fail "event_sync: path length $(grep length "$work/es.txt")"
# 36 us kernel 4x faster: 27 us off the path.
grep -q "spin_kernel(long) 4x faster (1 kernel) -> path 2.384 ms (-0.027 ms)" "$work/es.txt" || fail "event_sync: what-if"
check_trace "$work/overlay.json" '
crit = [e for e in x if e.get("args", {}).get("critical") == 1]
assert len(crit) == 21, len(crit)
s = [e for e in ev if e.get("ph") == "s" and e.get("cat") == "critical_path"]
f = [e for e in ev if e.get("ph") == "f" and e.get("cat") == "critical_path"]
assert len(s) == 9 and len(f) == 9, (len(s), len(f))
assert sorted(e["args"]["type"] for e in s).count("critical_path_dependency") == 7
assert all(e["name"] == "critical_path" and e["args"]["critical"] is True for e in s)
assert len(x) == 33, len(x)  # every slice is kept
'
# The overlay loads back.
"$KS_BIN" analyze "$work/overlay.json" --critical-path --json >/dev/null || fail "overlay does not load"

rc=0; "$KS_BIN" analyze "$es" --critical-path --steps 7 >/dev/null 2>&1 || rc=$?
[ "$rc" = 1 ] || fail "missing step: exit $rc"
rc=0; "$KS_BIN" analyze "$es" --critical-path --what-if "k=0" >/dev/null 2>&1 || rc=$?
[ "$rc" = 2 ] || fail "bad --what-if: exit $rc"
rc=0; "$KS_BIN" analyze "$es" --critical-path --instance 1 >/dev/null 2>&1 || rc=$?
[ "$rc" = 2 ] || fail "--instance without --annotation: exit $rc"
rc=0; "$KS_BIN" analyze "$es" --critical-path --overlay /nonexistent/dir/o.json >/dev/null 2>&1 || rc=$?
[ "$rc" = 1 ] || fail "unwritable overlay: exit $rc"
"$KS_BIN" analyze --critical-path --help | grep -q "usage: kinetoscope analyze TRACE --critical-path"
