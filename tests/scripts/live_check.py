"""Checks on traces written by `kinetoscope record` (tests/scripts/test_live_record.sh).

usage: live_check.py CHECK TRACE [ARGS...]
  steps TRACE N                 exactly N steps ProfilerStep#0..N-1, in order, not overlapping,
                                with plausible durations
  windows TRACE STEPS...        aten ops exist, and every one lies inside one of the given steps
  c_ranges TRACE N              the C target's ranges, args, counter, memory events and worker
                                thread, for N steps
  has_steps TRACE N             at least the steps 0..N-1
  processes TRACE N M           two processes: one with steps 0..N-1, the other with 0..M-1
  optimizer_ranges TRACE N      N steps, each holding exactly one Optimizer.step#... range, none
                                nested in another (torch's record_function and the bootstrap's
                                own range must not both be recorded)
"""
import json
import sys


def load(path):
    with open(path) as f:
        return json.load(f)


def steps_of(doc):
    out = []
    for e in doc["traceEvents"]:
        if e.get("ph") == "X" and e.get("name", "").startswith("ProfilerStep#"):
            out.append((int(e["name"].split("#")[1]), float(e["ts"]), float(e["ts"]) + float(e["dur"])))
    return sorted(out, key=lambda s: s[1])


def check_steps(doc, n, exact=True):
    steps = steps_of(doc)
    numbers = [s[0] for s in steps]
    if exact:
        assert numbers == list(range(n)), "steps %s, expected 0..%d" % (numbers, n - 1)
    else:
        assert numbers[:n] == list(range(n)), "steps %s, expected at least 0..%d" % (numbers, n - 1)
    for (a, s0, e0), (b, s1, e1) in zip(steps, steps[1:]):
        assert e0 <= s1 + 0.001, "step %d ends after step %d starts" % (a, b)
    for num, s, e in steps:
        assert 0 < e - s < 60e6, "step %d lasts %.3f us" % (num, e - s)
    return steps


def main():
    check, path = sys.argv[1], sys.argv[2]
    doc = load(path)
    ev = doc["traceEvents"]
    if check == "steps":
        check_steps(doc, int(sys.argv[3]))
    elif check == "has_steps":
        check_steps(doc, int(sys.argv[3]), exact=False)
    elif check == "windows":
        chosen = {int(a) for a in sys.argv[3:]}
        steps = {num: (s, e) for num, s, e in steps_of(doc)}
        assert chosen <= set(steps), "missing steps %s" % (chosen - set(steps))
        aten = [e for e in ev if e.get("ph") == "X" and e.get("name", "").startswith("aten::")]
        assert len(aten) > 50, "only %d aten ops" % len(aten)
        # The window is placed by its ProfilerStep anchors; allow 50 us for the anchor's jitter.
        slack = 50.0
        for a in aten:
            t0, t1 = float(a["ts"]), float(a["ts"]) + float(a["dur"])
            inside = [n for n in chosen if steps[n][0] - slack <= t0 and t1 <= steps[n][1] + slack]
            assert inside, "%s at %.3f-%.3f is outside steps %s: %s" % (
                a["name"], t0, t1, sorted(chosen), {n: steps[n] for n in sorted(chosen)})
        for n in chosen:
            s, e = steps[n]
            assert any(s <= float(a["ts"]) <= e for a in aten), "no aten op in step %d" % n
        shapes = [a for a in aten if "Input Dims" in a.get("args", {})]
        assert shapes, "no op carries Input Dims"
    elif check == "c_ranges":
        n = int(sys.argv[3])
        check_steps(doc, n)
        names = [e["name"] for e in ev if e.get("ph") == "X"]
        for name, count in (("train_step", n), ("forward", n), ("backward", n), ("worker_task", 5 * n)):
            assert names.count(name) == count, "%s: %d, expected %d" % (name, names.count(name), count)
        fwd = [e for e in ev if e.get("name") == "forward"]
        assert all(e["args"].get("Input Dims") == [[32, 64]] for e in fwd), fwd[0]
        assert sum(1 for e in ev if e.get("ph") == "C" and e.get("name") == "loss") == n
        assert sum(1 for e in ev if e.get("name") == "[memory]") == 2 * n
        assert any(e.get("name") == "thread_name" and e["args"]["name"] == "c-worker" for e in ev)
        # Nesting: every forward lies inside a train_step on the same thread.
        trains = [(e["tid"], e["ts"], e["ts"] + e["dur"]) for e in ev if e.get("name") == "train_step"]
        for f in fwd:
            assert any(t == f["tid"] and s <= f["ts"] and f["ts"] + f["dur"] <= e for t, s, e in trains), f
    elif check == "processes":
        want = sorted([int(sys.argv[3]), int(sys.argv[4])])
        by_pid = {}
        for e in ev:
            if e.get("ph") == "X" and e.get("name", "").startswith("ProfilerStep#"):
                by_pid.setdefault(e["pid"], []).append(int(e["name"].split("#")[1]))
        got = sorted(sorted(v) for v in by_pid.values())
        assert [len(v) for v in got] == want, "steps per process: %s" % by_pid
        assert all(v == list(range(len(v))) for v in got), by_pid
    elif check == "optimizer_ranges":
        n = int(sys.argv[3])
        steps = check_steps(doc, n)
        ranges = sorted((float(e["ts"]), float(e["ts"]) + float(e["dur"]), e["name"], e.get("tid"))
                        for e in ev if e.get("ph") == "X" and e.get("name", "").startswith("Optimizer.step#"))
        for (s0, e0, name0, tid0), (s1, e1, name1, tid1) in zip(ranges, ranges[1:]):
            assert not (tid0 == tid1 and s1 < e0), "%s at %.3f-%.3f holds %s at %.3f-%.3f" % (
                name0, s0, e0, name1, s1, e1)
        for num, s, e in steps:
            inside = [r for r in ranges if s <= r[0] <= e]
            assert len(inside) == 1, "step %d holds %d Optimizer.step ranges: %s" % (num, len(inside), inside)
        assert len(ranges) == n, "%d Optimizer.step ranges for %d steps" % (len(ranges), n)
    else:
        raise SystemExit("unknown check " + check)


main()
