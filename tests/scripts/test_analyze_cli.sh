#!/bin/sh
# kinetoscope analyze on the bundled sample: text report, one JSON object with TraceLens's timeline
# keys, the CSV files, and usage errors.
set -eu
: "${KS_BIN:?}" "${KS_SOURCE_DIR:?}"
SAMPLE="$KS_SOURCE_DIR/resources/samples/sample.pt.trace.json.gz"
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT

"$KS_BIN" analyze "$SAMPLE" >"$OUT/report.txt"
grep -q "GPU timeline" "$OUT/report.txt"
grep -q "computation_time" "$OUT/report.txt"

"$KS_BIN" analyze "$SAMPLE" --json >"$OUT/report.json"
python3 - "$OUT/report.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
keys = ["computation_time", "exposed_comm_time", "exposed_memcpy_time", "busy_time", "idle_time",
        "total_time", "total_comm_time", "total_memcpy_time"]
t = d["gpu_timeline"]
assert list(t) == keys, list(t)
assert abs(t["computation_time"] + t["exposed_comm_time"] + t["exposed_memcpy_time"] + t["idle_time"]
           - t["total_time"]) < 1e-6, t
for k in ("ops_summary_by_category", "ops_summary", "kernel_summary", "perf", "short_kernel_histogram"):
    assert k in d, k
PY

"$KS_BIN" analyze "$SAMPLE" --csv "$OUT/csv" >/dev/null
for f in gpu_timeline kernel_summary ops_summary ops_summary_by_category short_kernel_histogram; do
    test -s "$OUT/csv/$f.csv" || { echo "missing $f.csv"; exit 1; }
done
head -1 "$OUT/csv/gpu_timeline.csv" | grep -qx "type,time ms,percent"

rc=0; "$KS_BIN" analyze >/dev/null 2>&1 || rc=$?
test "$rc" = 2
rc=0; "$KS_BIN" analyze "$SAMPLE" --steps x >/dev/null 2>&1 || rc=$?
test "$rc" = 2
rc=0; "$KS_BIN" analyze /nonexistent.json >/dev/null 2>&1 || rc=$?
test "$rc" = 1
"$KS_BIN" analyze --help | grep -q "usage: kinetoscope analyze"
echo ok
