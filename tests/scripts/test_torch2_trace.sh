#!/bin/sh
# A trace torch 2.14 wrote (tests/data/torch2/: a scheduled window of an MLP training loop with
# record_shapes, profile_memory, with_stack and a record_function range; see its README.md) read
# fully: every event is loaded with its kind (`kinetoscope info` against counts Python's json makes
# of the file), `kinetoscope export` writes back every event with the same fields and args
# (export_check.py: ns timestamps, "Record function id", "Ev Idx", "Python id", "Python parent
# id", "Fwd thread id", the cpu_instant_event allocator records, the "Iteration Start" and "Record
# Window End" instants, baseTimeNanoseconds), and `kinetoscope summary`, of the trace and of its
# export, prints the tables torch 2.14 printed for that window, byte for byte.
set -eu
: "${KS_BIN:?}" "${KS_SOURCE_DIR:?}"
. "$(dirname "$0")/common.sh"
data="$KS_SOURCE_DIR/tests/data/torch2"
trace="$data/scheduled.pt.trace.json.gz"

"$KS_BIN" info "$trace" > "$work/info.txt" || fail "info failed"
/usr/bin/python3 - "$trace" "$work/info.txt" <<'PY' || fail "info does not account for every event"
import collections, gzip, json, re, sys
doc = json.load(gzip.open(sys.argv[1], "rt"))
info = open(sys.argv[2]).read()
ev = doc["traceEvents"]
phases = collections.Counter(e["ph"] for e in ev)
memory = [e for e in ev if e["ph"] == "i" and e["name"] in ("[memory]", "[OutOfMemory]")]
instants = [e for e in ev if e["ph"] == "i" and e not in memory]
args = collections.Counter(k for e in ev for k in e.get("args", {}))
# Not vacuous: the file has what torch 2.x writes and 1.13 did not.
for key in ("Record function id", "Ev Idx", "Python id", "Python parent id", "Fwd thread id", "Python module id"):
    assert args[key] > 0, f"the test trace has no {key!r} arg"
assert "baseTimeNanoseconds" in doc and all(e["cat"] == "cpu_instant_event" for e in memory) and memory
assert {e["name"] for e in instants} == {"Iteration Start: PyTorch Profiler", "Record Window End"}, instants
assert any(e["ph"] == "X" and e["ts"] != int(e["ts"]) for e in ev), "no ns digits"

got = dict(re.findall(r" (\w)=(\d+)", info.split("phases:")[1].splitlines()[0]))
assert {k: int(v) for k, v in got.items()} == dict(phases), (got, phases)
m = re.search(r"slices (\d+), flows (\d+), memory events (\d+), steps (\d+)", info)
slices, flows, mem, steps = map(int, m.groups())
assert slices == phases["X"], (slices, phases["X"])
assert flows == len({e["id"] for e in ev if e["ph"] in "sf"}), flows
assert mem == len(memory), (mem, len(memory))
assert steps == sum(1 for e in ev if e["ph"] == "X" and e["name"].startswith("ProfilerStep#")), steps
kept = sum(int(n) for n in re.findall(r"slices, (\d+) instants", info))
assert kept == len(instants), (kept, len(instants))
per_kind = collections.Counter()
for line in info.splitlines():
    t = re.match(r"\s+.*?\s(cpu_thread|gpu_stream|gpu_annotation|span|other)\s+(\d+) slices", line)
    if t:
        per_kind[t.group(1)] += int(t.group(2))
spans = sum(1 for e in ev if e["ph"] == "X" and e.get("cat") == "Trace")
assert per_kind["span"] == spans and per_kind["cpu_thread"] == phases["X"] - spans, per_kind
print(f"info: {dict(phases)}; {mem} allocator records, {len(instants)} instants, {spans} span")
PY

"$KS_BIN" export "$trace" "$work/export.json" > /dev/null || fail "export failed"
/usr/bin/python3 "$KS_SOURCE_DIR/tests/scripts/export_check.py" "$trace" "$work/export.json" ||
    fail "the export lost or changed events"

# The tables torch 2.14 printed for this window (README.md lists their options).
for t in "$data"/*.table.txt; do
    name="$(basename "$t" .table.txt)"
    opts="$(sed -n "s/^$name: //p" "$data/tables.txt")"
    for src in "$trace" "$work/export.json"; do
        # shellcheck disable=SC2086
        "$KS_BIN" summary "$src" $opts > "$work/got.txt" || fail "summary $opts failed"
        if ! cmp -s "$t" "$work/got.txt"; then
            diff -u "$t" "$work/got.txt" | head -30
            fail "summary $opts of $(basename "$src") differs from torch 2.14's table $name"
        fi
    done
    echo "ok   $name: summary $opts (trace and export)"
done
"$KS_BIN" analyze "$trace" > "$work/analyze.txt" || fail "analyze failed"
echo "ok   analyze"
