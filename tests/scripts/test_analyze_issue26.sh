#!/bin/sh
# kinetoscope analyze, issue 26 defects 2, 4, 5 and 6, as a person reads the report:
#  2  Kineto's before_fix trace: no finding says "GPU idle 77%" next to the header's idle 0%.
#  4  Kernels launched from record_function ranges (DeepSeek's shape) are credited to the range in the
#     text and --json reports; the TraceLens CSV keeps TraceLens's launcher (the runtime call).
#  5  DeepEP kernels count as communication.
#  6  MTIA, XPU, HPU and PrivateUse1 device work is GPU work (one fixture per spelling).
set -eu
: "${KS_BIN:?}" "${KS_SOURCE_DIR:?}"
DATA="$KS_SOURCE_DIR/tests/data"
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT

# --- 2: one trace, one idle share.
BEFORE="${KS_SHARED_TRACES:-}/pytorch_kineto__docs__traces__before_fix_trace.json"
if [ -f "$BEFORE" ]; then
    "$KS_BIN" analyze "$BEFORE" --json >"$OUT/before.json"
    python3 - "$OUT/before.json" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
t = d["gpu_timeline"]
# By hand from the file: the only GPU work is one 20 ns kernel, so TraceLens's span is 20 ns, idle 0.
assert abs(t["total_time"] - 20e-6) < 1e-12 and t["idle_time"] == 0, t
idle_pct = round(100 * t["idle_time"] / t["total_time"])
titles = [f["title"] for f in d["findings"]]
for title in titles:
    for m in re.finditer(r"GPU idle ([0-9]+)%", title):
        assert int(m.group(1)) == idle_pct, (title, idle_pct)
    assert "0.00 ms" not in title, title
host = [x for x in titles if x.startswith("Host-bound")]
assert host and "no GPU work 77% of the trace" in host[0] and "(100 ns per step" in host[0], titles
PY
fi

# --- 4 and 5: DeepSeek's shape.
RF="$DATA/overview/record_function_launches.json"
"$KS_BIN" analyze "$RF" >"$OUT/rf.txt"
"$KS_BIN" analyze "$RF" --json >"$OUT/rf.json"
"$KS_BIN" analyze "$RF" --csv "$OUT/csv" >/dev/null
python3 - "$OUT/rf.txt" "$OUT/rf.json" "$OUT/csv/ops_summary.csv" "$OUT/csv/gpu_timeline.csv" <<'PY'
import csv, json, sys
text = open(sys.argv[1]).read()
d = json.load(open(sys.argv[2]))
# The text report's top op is the record_function range that launched the two DeepGEMM kernels.
top = text.split("Top ops by kernel time\n")[1].splitlines()[1].split()
assert top[0] == "moe(F)", top
assert "cudaLaunchKernelExC" not in text.split("Top ops by kernel time\n")[1].split("\n\n")[0], text
ops = {o["name"]: o for o in d["ops_summary"]}
assert "cudaLaunchKernelExC" not in ops, list(ops)
assert abs(ops["moe(F)"]["total_direct_kernel_time_ms"] - 0.2) < 1e-9, ops["moe(F)"]
assert ops["moe(F)"]["Count"] == 1, ops["moe(F)"]
assert abs(ops["aten::mm"]["total_direct_kernel_time_ms"] - 0.01) < 1e-9, ops["aten::mm"]
parents = {k["Kernel name"].split("<")[0]: k["Parent cpu_op"] for k in d["kernel_summary"]}
assert parents["void deep_gemm::fp8_gemm_kernel"] == "moe(F)", parents
assert parents["void deep_ep::internode::dispatch"] == "dispatch(B)", parents
assert parents["void deep_ep::intranode::combine"] == "combine(F)", parents
# TraceLens's CSV keeps TraceLens's rule: no cpu_op above the launch, so the runtime call launched it.
rows = list(csv.DictReader(open(sys.argv[3])))
assert rows[0]["name"] == "cudaLaunchKernelExC" and rows[0]["Count"] == "2", rows[0]
# 5: DeepEP's dispatch (80 µs) and combine (40 µs) are communication, run while nothing computes.
t = d["gpu_timeline"]
assert abs(t["total_comm_time"] - 0.12) < 1e-9 and abs(t["exposed_comm_time"] - 0.12) < 1e-9, t
assert abs(t["computation_time"] - 0.21) < 1e-9, t
steps = d["step_breakdown"]["average"]
assert abs(steps["Communication"] - 0.12) < 1e-9, steps
assert any(f["title"].startswith("Communication exposed 33% of the GPU span") for f in d["findings"]), d["findings"]
PY

# --- 6: every accelerator's spelling.
for acc in mtia xpu hpu privateuse1; do
    "$KS_BIN" analyze "$DATA/accelerators/$acc.json" --json >"$OUT/$acc.json" 2>"$OUT/$acc.err"
    if grep -q "no linked GPU work" "$OUT/$acc.err"; then
        echo "$acc: no linked GPU work"
        exit 1
    fi
    python3 - "$OUT/$acc.json" "$acc" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
t = d["gpu_timeline"]
# Two kernels: 100 µs from 1050 µs and 20 µs from 1170 µs.
assert abs(t["busy_time"] - 0.12) < 1e-9 and abs(t["total_time"] - 0.14) < 1e-9, (sys.argv[2], t)
ops = {o["name"]: o["total_direct_kernel_time_ms"] for o in d["ops_summary"]}
assert abs(ops["aten::mm"] - 0.1) < 1e-9 and abs(ops["aten::add"] - 0.02) < 1e-9, (sys.argv[2], ops)
assert d["launch_stats"]["count"] == 2, (sys.argv[2], d["launch_stats"])
assert abs(d["step_breakdown"]["average"]["Kernel"] - 0.12) < 1e-9, (sys.argv[2], d["step_breakdown"])
PY
done
