#!/bin/sh
# kinetoscope diff on two real torch 1.13 runs of one MLP, the second without its ReLU
# (tests/data/compare, made by tests/scripts/compare_pair.py): the text report, one JSON object with
# every section, the CSV files, two step ranges of one trace, and usage and input errors.
set -eu
: "${KS_BIN:?}" "${KS_SOURCE_DIR:?}"
D="$KS_SOURCE_DIR/tests/data/compare"
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT

"$KS_BIN" diff "$D/mlp_base.json.gz" "$D/mlp_noact.json.gz" >"$OUT/report.txt"
grep -q "^Ops and kernels" "$OUT/report.txt"
grep -q "aten::relu .* deleted " "$OUT/report.txt"
grep -q "by count: added 0, deleted 5," "$OUT/report.txt"
grep -q "^Op tree of step #1 (A) against step #1 (B)" "$OUT/report.txt"
grep -q "^  - aten::relu " "$OUT/report.txt"

"$KS_BIN" diff "$D/mlp_base.json.gz" "$D/mlp_noact.json.gz" --json >"$OUT/report.json"
python3 - "$OUT/report.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for k in ("a", "b", "warnings", "categories", "ops", "steps", "perf", "tree"):
    assert k in d, k
deleted = sorted(o["name"] for o in d["ops"] if o["by_count"] == "deleted")
assert deleted == ["ReluBackward0", "aten::clamp_min", "aten::relu", "aten::threshold_backward",
                   "autograd::engine::evaluate_function: ReluBackward0"], deleted
# Largest |delta| first by default.
deltas = [abs(o["diff_duration_us"]) for o in d["ops"]]
assert deltas == sorted(deltas, reverse=True)
assert len(d["steps"]["pairs"]) == 3
assert d["tree"]["step_a"] == 1 and d["tree"]["removed"] > 0
PY

"$KS_BIN" diff "$D/mlp_base.json.gz" "$D/mlp_noact.json.gz" --csv "$OUT/csv" >/dev/null
for f in ops steps step_summary perf tree; do
    test -f "$OUT/csv/$f.csv" || { echo "missing $f.csv"; exit 1; }
done
head -1 "$OUT/csv/ops.csv" | grep -q "^name,kind,a_calls,b_calls,diff_calls,"

# One trace, two step ranges.
"$KS_BIN" diff "$D/mlp_base.json.gz" "$D/mlp_base.json.gz" --steps A:1 B:2-3 --sort-by name --json >"$OUT/self.json"
python3 - "$OUT/self.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
lin = [o for o in d["ops"] if o["name"] == "aten::linear"][0]
assert (lin["a"]["calls"], lin["b"]["calls"]) == (2, 4), lin
names = [o["name"] for o in d["ops"]]
assert names == sorted(names)
PY

# Errors: usage (2), missing steps and unreadable files (1), each with one line on stderr.
rc=0; "$KS_BIN" diff "$D/mlp_base.json.gz" >/dev/null 2>&1 || rc=$?
test "$rc" = 2
rc=0; "$KS_BIN" diff "$D/mlp_base.json.gz" "$D/mlp_noact.json.gz" --sort-by nope >/dev/null 2>&1 || rc=$?
test "$rc" = 2
rc=0; "$KS_BIN" diff "$D/mlp_base.json.gz" "$D/mlp_noact.json.gz" --steps C:1 >/dev/null 2>&1 || rc=$?
test "$rc" = 2
rc=0; "$KS_BIN" diff "$D/mlp_base.json.gz" "$D/mlp_noact.json.gz" --steps B:8-9 >/dev/null 2>"$OUT/err" || rc=$?
test "$rc" = 1
grep -qx "kinetoscope diff: B: no ProfilerStep#8..#9 in the trace" "$OUT/err"
rc=0; "$KS_BIN" diff "$D/mlp_base.json.gz" /nonexistent.json >/dev/null 2>&1 || rc=$?
test "$rc" = 1
"$KS_BIN" diff --help | grep -q "usage: kinetoscope diff"

# Kineto's before/after-fix pair (issue 26 item 7): same ops, 10-40 ns each, only the cuda_sync
# events' args (and the kernel's occupancy) differ. The durations read in ns, not 0.0, and the
# argument changes are named.
S="${KS_SHARED_TRACES:-}/pytorch_kineto__docs__traces__"
if [ -f "${S}before_fix_trace.json" ]; then
    "$KS_BIN" diff "${S}before_fix_trace.json" "${S}after_fix_trace.json" >"$OUT/sync.txt" 2>/dev/null
    grep -Eq "^  op1 +op +1 +1 +\+0 +40 ns +40 ns " "$OUT/sync.txt"
    grep -q "arguments: 3 of 8 event names with as many events in both runs have changed arguments" "$OUT/sync.txt"
    grep -Eq "^  Stream Wait Event +wait_on_cuda_event_record_corr_id +1 +1  -1 -> 100$" "$OUT/sync.txt"
    grep -Eq "^  Event Sync +wait_on_stream +1 +1  -1 -> 1$" "$OUT/sync.txt"
    grep -Eq "^  Kernel +occupancy +1 +1  \{.* -> \(absent\)$" "$OUT/sync.txt"
    "$KS_BIN" diff "${S}before_fix_trace.json" "${S}after_fix_trace.json" --json 2>/dev/null >"$OUT/sync.json"
    python3 - "$OUT/sync.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
op1 = [o for o in d["ops"] if o["name"] == "op1"][0]
assert op1["a"]["cpu_total_us"] == 0.04, op1
changes = {(c["name"], c["arg"]): c["examples"] for c in d["arguments"]["changes"]}
assert changes[("Event Sync", "wait_on_cuda_event_record_corr_id")] == [["-1", "100"]], changes
assert changes[("Stream Wait Event", "wait_on_stream")] == [["-1", "1"]], changes
assert not any(arg in ("correlation", "External id") for _, arg in changes), changes
assert d["arguments"]["names_changed"] == 3 and d["arguments"]["names_matched"] == 8, d["arguments"]
PY
fi
echo ok
