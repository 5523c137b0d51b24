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
echo ok
