#!/bin/sh
# torch_geometric.profile parity (docs/pyg-profile.md): tests/scripts/pyg_profile_check.py run once
# against PyG's behaviour (tests/scripts/pyg_reference.py, a stand-in on torch.profiler written
# from PyG's sources, since torch_geometric is not installable here) and once with kinetoscope
# swapped in. Both must report the same names, files written, CSV columns and rows, return types,
# field names and values, printed tables and the same errors (kinetoscope's error an instance of
# PyG's type, its message one line); GPU paths run on fakes (tests/scripts/pyg_fakes.py).
# Kinetoscope must be the recorder, and its helpers' ranges must land in its windows.
set -eu
: "${KS_BINARY_DIR:?}" "${KS_SOURCE_DIR:?}"
. "$(dirname "$0")/common.sh"
need_torch_observer
cd "$work"
"$PY" "$KS_SOURCE_DIR/tests/scripts/pyg_profile_check.py" reference "$work/ref.json" "$work/ref" \
    >"$work/ref.out" 2>&1 || { cat "$work/ref.out"; fail "reference run"; }
KINETOSCOPE_LIB="$KS_BINARY_DIR/core/capi/libkinetoscope.so.1" \
KINETOSCOPE_TORCH_LIB="$KS_BINARY_DIR/core/torch/libkinetoscope_torch.so" \
PYTHONPATH="$KS_SOURCE_DIR/resources/python" \
    "$PY" "$KS_SOURCE_DIR/tests/scripts/pyg_profile_check.py" kinetoscope "$work/ks.json" "$work/ks" \
    >"$work/ks.out" 2>&1 || { cat "$work/ks.out"; fail "kinetoscope run"; }
"$PY" - "$work/ref.json" "$work/ks.json" <<'PY'
import json, sys
ref = json.load(open(sys.argv[1]))
ks = json.load(open(sys.argv[2]))
errors = []


def check(ok, msg):
    if not ok:
        errors.append(msg)


def same(path, a, b):
    """a (PyG's) and b (kinetoscope's) agree; an error agrees when b is an instance of a's type."""
    if isinstance(a, dict) and "error" in a and "mro" in a:
        ok = isinstance(b, dict) and a["error"] in b.get("mro", [])
        check(ok, f"{path}: PyG raises {a['error']}, kinetoscope gives {b}")
        if ok:
            check(b["message"].strip() and "\n" not in b["message"], f"{path}: message not one line: {b['message']!r}")
    elif isinstance(a, dict) and isinstance(b, dict):
        check(list(a) == list(b), f"{path}: keys {list(a)} vs {list(b)}")
        for k in a:
            if k in b:
                same(f"{path}.{k}", a[k], b[k])
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            same(f"{path}[{i}]", x, y)
    else:
        check(a == b, f"{path}: PyG {json.dumps(a)}\n    kinetoscope {json.dumps(b)}")


check(set(ref["same"]) == set(ks["same"]), f"observations differ: {sorted(set(ref['same']) ^ set(ks['same']))}")
for key in sorted(set(ref["same"]) & set(ks["same"])):
    same(key, ref["same"][key], ks["same"][key])
# Facts of PyG's that the comparison alone would not catch if both sides lost them.
r = ref["same"]
check(len(r["names"]) == 26, f"reference lacks names: {r['names']}")
check(r["torch_profile_files"] == ["timeline.json"] and r["renamed_files"] == ["profile-GraphSAGE-cpu.json"],
      "reference files")
check(r["csv_rows"] == 5 and r["csv_columns"][0] == "NAME" and r["csv_columns"][-1] == "# OF CALLS", "reference CSV")
check(r["benchmark_pyg_header"], "benchmark header differs from PyG's test")
check(ref["own"]["torch_profile_recorder"] == "torch.profiler", f"reference recorder: {ref['own']}")
o = ks["own"]
check(o["torch_profile_recorder"] == "kinetoscope", f"torch_profile recorded by {o['torch_profile_recorder']}")
check(o["ranges"] == {"timeit": 1, "named_0": 0, "named_1": 1, "named_2": 1, "named_3": 0, "train": 1},
      f"ranges of timeit/nvtxit/profileit: {o['ranges']}")
check(o["benchmark_ranges"] == {"add": 3, "add.backward": 3}, f"benchmark ranges: {o['benchmark_ranges']}")
if errors:
    print("\n".join(errors))
    sys.exit(1)
print(f"pyg parity: {len(ks['same'])} observations agree ({len(r['names'])} names, CSV {len(r['csv_columns'])} "
      f"columns x {r['csv_rows']} rows); kinetoscope recorded")
PY
