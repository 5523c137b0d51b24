#!/bin/sh
# kinetoscope analyze: HTA's single-trace analyses in --json (hta_* keys) and as text (--hta), on
# HTA's own ns-resolution test trace (values from HTA itself, as in tst_hta) and on every shared
# trace; usage errors.
set -eu
: "${KS_BIN:?}" "${KS_SHARED_TRACES:?}"
NS="$KS_SHARED_TRACES/facebookresearch_HolisticTraceAnalysis__tests__data__ns_resolution_trace__rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz"
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT

"$KS_BIN" analyze "$NS" --json --hta-op aten::linear --hta-max-queue 1 >"$OUT/ns.json"
python3 - "$OUT/ns.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert "gpu_timeline" in d  # the overview is still there
t = d["hta_temporal_breakdown"]
assert (t["idle_time_us"], t["compute_time_us"], t["non_compute_time_us"], t["kernel_time_us"]) == \
    (10113, 372150, 2371, 384634), t
assert (t["idle_time_pctg"], t["compute_time_pctg"], t["non_compute_time_pctg"]) == (2.63, 96.75, 0.62), t
q = d["hta_queue_length"]
assert q["max_queue_length"] == 1
assert [s["stream"] for s in q["streams"]] == [7]
assert q["streams"][0]["summary"]["count"] == 9752
assert q["time_blocked_on_full_queue"]["duration_at_max_queue_length"] == 383223
m = {x["kind"]: x for x in d["hta_memory_bandwidth"]}
assert m["Memcpy DtoD"]["summary"]["count"] == 1284, m["Memcpy DtoD"]["summary"]
a = {r["name"]: r for r in d["hta_gpu_user_annotation_breakdown"]["rows"]}
assert len(a) == 3 and a["DistributedDataParallel.forward"]["sum_us"] == 123880, a
assert d["hta_frequent_kernel_sequences"]["operator"] == "aten::linear"
PY

"$KS_BIN" analyze "$NS" --hta --hta-op aten::linear --hta-cpu-annotations >"$OUT/ns.txt"
for s in "Temporal breakdown" "Queue length per stream" "Memory bandwidth" "CPU user annotation breakdown" \
    "Frequent kernel sequences"; do
    grep -q "$s" "$OUT/ns.txt" || { echo "missing: $s"; exit 1; }
done
grep -q "ProfilerStep#101" "$OUT/ns.txt"

# Every shared trace: a JSON object with the five keys, exit status 0.
for f in "$KS_SHARED_TRACES"/*.json "$KS_SHARED_TRACES"/*.gz; do
    "$KS_BIN" analyze "$f" --json --hta-op aten:: >"$OUT/one.json" 2>/dev/null || { echo "failed: $f"; exit 1; }
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); [d[k] for k in ("hta_temporal_breakdown","hta_queue_length","hta_memory_bandwidth","hta_gpu_user_annotation_breakdown","hta_frequent_kernel_sequences")]' "$OUT/one.json" ||
        { echo "bad JSON: $f"; exit 1; }
done

rc=0; "$KS_BIN" analyze "$NS" --hta-top-k x >/dev/null 2>&1 || rc=$?
test "$rc" = 2
rc=0; "$KS_BIN" analyze "$NS" --hta-op >/dev/null 2>&1 || rc=$?
test "$rc" = 2
"$KS_BIN" analyze --help | grep -q -- "--hta-op NAME"
echo ok
