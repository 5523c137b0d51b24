#!/usr/bin/env python3
"""Slow, independent reference for `kinetoscope flame -o X.folded` (docs/flame.md), read straight
from the trace's JSON with nothing shared with the C++ code:

  flame_reference.py TRACE [--metric cpu|device|memory] [--by function|line] [--steps A-B]

Per CPU thread the frame events (cpu_op, user_annotation, python_function, runtime and driver
calls, events without a category) are nested by containment; each contributes its duration (cut to
the step window) minus its children's to the path of names from the outermost. ProfilerStep#N is
"ProfilerStep*". Without any python_function event, an op with no op above it takes its
"Call stack" frames (innermost first) as the frames above it. --by line: an event with a "CallFrom" arg
and a parent sits below a frame named after that CallFrom, below the parent. GPU work (kernel, memcpy,
memset) sits below the runtime call with the same "correlation" arg; allocations ("[memory]"
instant events with Bytes > 0) below the innermost frame event of their thread around them.
Prints the collapsed stacks: sorted, one "path value" line per path with a value > 0.
"""
import argparse
import gzip
import json
import sys
from collections import defaultdict

FRAME_CATS = {"cpu_op", "operator", "user_annotation", "python_function", "cuda_runtime", "runtime",
              "hip_runtime", "cuda_driver", "driver", ""}
RUNTIME_CATS = {"cuda_runtime", "runtime", "hip_runtime", "cuda_driver", "driver"}
WORK_CATS = {"kernel", "gpu_memcpy", "memcpy", "gpu_memset", "memset"}
# Not frames, and never on a CPU thread's frame list.
OTHER_CATS = {"gpu_user_annotation", "user", "cpu_instant_event", "trace", "overhead", "ac2g", "fwdbwd",
              "cuda_sync", "cuda_event"}


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        doc = json.load(f)
    return doc if isinstance(doc, list) else doc.get("traceEvents", [])


def row_key(v):
    # 2020-21 Kineto wrote a tid as "123" on slices and as 123 elsewhere: the same thread.
    return int(v) if isinstance(v, str) and v.isdigit() else v


def ns(v):
    return int(round(float(v) * 1000))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("trace")
    ap.add_argument("--metric", default="cpu", choices=["cpu", "device", "memory"])
    ap.add_argument("--by", default="function", choices=["function", "line"])
    ap.add_argument("--steps")
    a = ap.parse_args()
    events = load(a.trace)

    lo, hi = -(2 ** 63), 2 ** 63 - 1
    if a.steps:
        first, _, last = a.steps.partition("-")
        first, last = int(first), int(last or first)
        spans = [(ns(e["ts"]), ns(e["ts"]) + ns(e.get("dur", 0))) for e in events
                 if e.get("ph") == "X" and str(e.get("name", "")).startswith("ProfilerStep#")
                 and first <= int(e["name"][len("ProfilerStep#"):]) <= last]
        if not spans:
            sys.exit("no such steps")
        lo, hi = min(s for s, _ in spans), max(e for _, e in spans)

    has_python = any(e.get("cat") == "python_function" for e in events)
    gpu_pids = {row_key(e.get("pid")) for e in events if e.get("ph") == "X" and str(e.get("cat", "")).lower() in WORK_CATS}
    threads = defaultdict(list)
    for i, e in enumerate(events):
        if e.get("ph") != "X":
            continue
        cat = str(e.get("cat", "")).lower()
        # Events without a category on a GPU's pid are not CPU work (pid 0 also holds Python
        # threads in some torch 2.x traces: those have their category).
        if cat not in FRAME_CATS or (cat == "" and row_key(e.get("pid")) in gpu_pids):
            continue
        threads[(row_key(e.get("pid")), row_key(e.get("tid")))].append((ns(e["ts"]), ns(e.get("dur", 0)), i, e))

    values = defaultdict(int)  # (metric,) + path tuple -> value
    by_correlation = {}        # runtime call's correlation -> its path
    spans_by_thread = {}       # thread -> [(start, end, dur, path)] of the counted events
    for key, evs in threads.items():
        # torch's tree rule: sorted by start, longer first; an event is inside the innermost open
        # event that started no later and ends no earlier.
        evs.sort(key=lambda t: (t[0], -t[1], t[2]))
        nodes = []  # dicts: start, end, dur, e, parent, children
        stack = []
        for start, dur, i, e in evs:
            end = start + dur
            while stack and (start >= stack[-1]["end"] or end > stack[-1]["end"]):
                stack.pop()
            n = {"start": start, "end": end, "dur": dur, "e": e, "parent": stack[-1] if stack else None,
                 "children": []}
            if n["parent"] is not None:
                n["parent"]["children"].append(n)
            nodes.append(n)
            stack.append(n)
        # torch's _remove_dup_nodes: a parent's only child of the same name is dropped, its children
        # become the parent's.
        for n in nodes:
            p = n["parent"]
            while p is not None and p.get("dropped"):
                p = p["parent"]
            n["parent"] = p
            if p is not None and p["e"]["name"] == n["e"]["name"] and len(p["children"]) == 1 and p["children"][0] is n:
                n["dropped"] = True
                p["children"] = n["children"]
        kept = []
        for n in nodes:  # parents before children
            if n.get("dropped"):
                continue
            e, start, end, dur = n["e"], n["start"], n["end"], n["dur"]
            p = n["parent"]
            t0, t1 = max(start, lo), min(end, hi)
            if t1 < t0 or (t1 == t0 and not (lo <= start < hi)):
                n["path"] = None  # outside the window: so is everything inside it
                continue
            cut = t1 - t0
            cat = str(e.get("cat", "")).lower()
            name = e["name"]
            if name.startswith("ProfilerStep#"):
                name = "ProfilerStep*"
            args = e.get("args") or {}
            base = p["path"] if p is not None else ()
            if p is not None:
                values[("cpu",) + p["path"]] -= cut
            if a.by == "line" and p is not None and args.get("CallFrom"):
                base = base + (args["CallFrom"],)
            above_op = p is not None and p["above_op"]
            above_py = p is not None and p["above_py"]
            is_op = cat in ("cpu_op", "operator")
            if is_op and not has_python and not above_op and not above_py:
                cs = args.get("Call stack")
                if isinstance(cs, str) and cs:
                    base = base + tuple(reversed([f for f in cs.split(";") if f]))
            n["path"] = base + (name,)
            n["above_op"] = above_op or is_op
            n["above_py"] = above_py or cat == "python_function"
            values[("cpu",) + n["path"]] += cut
            kept.append((start, end, dur, n["path"]))
            if cat in RUNTIME_CATS and "correlation" in args:
                by_correlation.setdefault(args["correlation"], n["path"])
        spans_by_thread[key] = kept

    for e in events:
        if e.get("ph") != "X" or str(e.get("cat", "")).lower() not in WORK_CATS:
            continue
        corr = (e.get("args") or {}).get("correlation")
        path = by_correlation.get(corr)
        if path is None:
            continue
        values[("device",) + path + (e["name"],)] += ns(e.get("dur", 0))

    for e in events:
        if e.get("ph") not in ("i", "I") or e.get("name") != "[memory]":
            continue
        b = (e.get("args") or {}).get("Bytes", 0)
        t = ns(e["ts"])
        if not b or b <= 0 or not (lo <= t < hi):
            continue
        best = None
        for start, end, dur, path in spans_by_thread.get((row_key(e.get("pid")), row_key(e.get("tid"))), []):
            if start <= t < end or (dur == 0 and start == t):
                if best is None or len(path) > len(best):
                    best = path
        if best is not None:
            values[("memory",) + best] += b

    out = defaultdict(int)
    for k, v in values.items():
        if k[0] != a.metric:
            continue
        line = ";".join(f.replace(";", "_").replace("\n", "_").replace("\r", "_") for f in k[1:])
        out[line] += v
    for line in sorted(out):
        if out[line] > 0:
            print(f"{line} {out[line]}")


if __name__ == "__main__":
    main()
