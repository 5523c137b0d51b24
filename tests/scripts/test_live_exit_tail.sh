#!/bin/sh
# The tail of a live target that ends without atexit (issue 31 item 11): what a process recorded in
# its last moments, ranges still open included, must reach the trace.
#  1. Ten forked children end with os._exit right after their last step, one of them inside an
#     open record_function range (tests/data/live/fork_exit.py): every step of every child arrives
#     (the bootstrap's os._exit drains and says goodbye first), and the open range is kept as a
#     slice around the operator run in it.
#  2. A target SIGKILLed inside an open range (tests/data/live/killed_open_range.py): nothing can
#     run after SIGKILL, so what the sender had drained is what arrives: every step, and the range
#     as an unfinished slice (ended at its thread's last time) around its operator; `record` says
#     how the target ended and passes on 137.
set -eu
: "${KS_BINARY_DIR:?}" "${KS_SOURCE_DIR:?}" "${KS_BIN:?}"
. "$(dirname "$0")/common.sh"
need_torch_observer
data="$KS_SOURCE_DIR/tests/data/live"

# open_range TRACE NAME: the range NAME exists once, as a complete slice, and holds an aten::relu
# of its own process and thread. Prints the range's pid.
open_range() {
    /usr/bin/python3 - "$1" "$2" <<'PY'
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
ranges = [e for e in ev if e.get("name") == sys.argv[2]]
assert len(ranges) == 1 and ranges[0].get("ph") == "X", "range %s: %s" % (sys.argv[2], ranges)
r = ranges[0]
t0, t1 = float(r["ts"]), float(r["ts"]) + float(r["dur"])
inside = [e for e in ev if e.get("ph") == "X" and e.get("name") == "aten::relu" and e["pid"] == r["pid"]
          and e["tid"] == r["tid"] and t0 <= float(e["ts"]) and float(e["ts"]) + float(e["dur"]) <= t1 + 0.001]
assert inside, "the operator inside the open range %s did not arrive (or lies outside it)" % sys.argv[2]
print(r["pid"])
PY
}

# 1. Forked children ending with os._exit. A sanitizer build skips this part (as test_live_record
# does its fork cases): a child forked from a multithreaded target can inherit GCC 12's ASan
# allocator lock held and hang in its first allocation.
if [ "${KS_SANITIZE:-0}" = 1 ]; then
    echo "SKIP 1 (sanitizer build): fork() of a multithreaded target under GCC 12's ASan runtime"
else
    "$KS_BIN" record -o "$work/exit.pt.trace.json" -- "$PY" "$data/fork_exit.py" 10 >"$work/exit.out" 2>&1 ||
        fail "fork + os._exit: $(cat "$work/exit.out")"
    /usr/bin/python3 - "$work/exit.pt.trace.json" <<'PY' || fail "fork + os._exit: $(cat "$work/exit.out")"
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
steps = {}
for e in ev:
    if e.get("ph") == "X" and e.get("name", "").startswith("ProfilerStep#"):
        steps.setdefault(e["pid"], []).append(int(e["name"].split("#")[1]))
# The parent's one step and each child's three, in order: the last step before os._exit included.
assert sorted(sorted(v) for v in steps.values()) == sorted([[0]] + [[0, 1, 2]] * 10), "steps per process: %s" % steps
PY
    open_range "$work/exit.pt.trace.json" child_open_range >/dev/null ||
        fail "fork + os._exit: the range left open by os._exit"
    echo "ok: os._exit: 10 children, every step and the open range arrived"
fi

# 2. SIGKILL inside an open range.
set +e
"$KS_BIN" record -o "$work/killed.pt.trace.json" -- "$PY" "$data/killed_open_range.py" 4 \
    >"$work/killed.out" 2>"$work/killed.err"
rc=$?
set -e
[ $rc = 137 ] || fail "record should pass on the target's SIGKILL as 137, got $rc: $(cat "$work/killed.err")"
grep -q "killed by signal 9 (SIGKILL)" "$work/killed.err" || fail "the session does not say the target was killed"
grep -q "^step 3" "$work/killed.out" || fail "the target did not reach its last step: $(cat "$work/killed.out")"
"$PY" "$KS_SOURCE_DIR/tests/scripts/live_check.py" steps "$work/killed.pt.trace.json" 4 ||
    fail "SIGKILL: the steps before the kill"
open_range "$work/killed.pt.trace.json" killed_open_range >/dev/null || fail "SIGKILL: the range open at the kill"
echo "ok: SIGKILL: every step and the unfinished range arrived"
