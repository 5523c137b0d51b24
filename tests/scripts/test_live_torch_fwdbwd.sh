#!/bin/sh
# `kinetoscope record` of an unmodified training loop keeps torch's autograd ids (live protocol
# 1.1): every op autograd numbered carries "Sequence number" / "Fwd thread id", and the trace has
# Kineto's fwdbwd arrows from each forward op to the backward functions autograd ran for it, also
# after the written trace is read back.
set -eu
: "${KS_BINARY_DIR:?}" "${KS_SOURCE_DIR:?}" "${KS_BIN:?}"
. "$(dirname "$0")/common.sh"
need_torch_observer
steps=4

"$KS_BIN" record -o "$work/run.pt.trace.json" -- "$PY" "$KS_SOURCE_DIR/tests/data/live/train_mlp.py" $steps \
    >"$work/run.out" 2>"$work/run.err" || fail "record: $(cat "$work/run.err")"

"$PY" - "$work/run.pt.trace.json" $steps <<'PY'
import collections, json, sys
steps = int(sys.argv[2])
events = json.load(open(sys.argv[1]))["traceEvents"]
ops = [e for e in events if e.get("ph") == "X" and e.get("cat") == "cpu_op"]
errors = []
def check(ok, msg):
    if not ok:
        errors.append(msg)

numbered = [e for e in ops if "Sequence number" in e.get("args", {})]
check(all("Record function id" in e["args"] for e in ops), "an op without its record function id")
backward = [e for e in numbered if e["args"]["Fwd thread id"] != 0]
forward = [e for e in numbered if e["args"]["Fwd thread id"] == 0]
check(forward and backward, f"{len(forward)} forward and {len(backward)} backward numbered ops")

# Arrows: 's' at a forward op, 'f' at the start of the backward op it binds to ("bp": "e").
at = collections.defaultdict(list)
for e in ops:
    at[(e["pid"], e["tid"], e["ts"])].append(e)
flows = [e for e in events if e.get("cat") == "fwdbwd"]
starts = {e["id"]: e for e in flows if e["ph"] == "s"}
ends = {e["id"]: e for e in flows if e["ph"] == "f"}
check(len(starts) == len(ends) and starts.keys() == ends.keys(), f"{len(starts)} starts, {len(ends)} ends")
linked_backward = set()
for fid, s in starts.items():
    f = ends.get(fid)
    if f is None:
        continue
    src = [e for e in at[(s["pid"], s["tid"], s["ts"])] if e in forward]
    dst = [e for e in at[(f["pid"], f["tid"], f["ts"])] if e in backward]
    check(f.get("bp") == "e", f"flow {fid}: end not bound to its enclosing slice")
    check(src, f"flow {fid}: starts at no forward op")
    check(dst, f"flow {fid}: ends at no backward op")
    if src and dst:
        key = lambda e: e["args"]["Sequence number"]
        check(any(key(a) == key(b) for a in src for b in dst), f"flow {fid}: sequence numbers differ")
        for b in dst:
            linked_backward.add(b["args"]["Record function id"])
# Two Linear layers per step: every AddmmBackward0 is reached by an arrow.
addmm_bwd = [e for e in backward if e["name"] == "AddmmBackward0"]
check(len(addmm_bwd) == 2 * steps, f"{len(addmm_bwd)} AddmmBackward0 ops")
missing = [e for e in addmm_bwd if e["args"]["Record function id"] not in linked_backward]
check(not missing, f"{len(missing)} AddmmBackward0 without a fwdbwd arrow")
if errors:
    print("\n".join(errors[:20]))
    sys.exit(1)
print(f"fwdbwd: {len(starts)} arrows, {len(forward)} forward and {len(backward)} backward numbered ops")
PY

# Read back, the arrows are linked again (flows counted by `info`).
"$KS_BIN" info "$work/run.pt.trace.json" >"$work/info.out" 2>&1 || fail "info: $(cat "$work/info.out")"
flows=$(sed -n 's/.*flows \([0-9]*\),.*/\1/p' "$work/info.out" | head -1)
[ -n "$flows" ] && [ "$flows" -ge $((2 * steps)) ] || fail "info reads $flows flows: $(cat "$work/info.out")"
echo "ok: $flows flows read back"
