#!/usr/bin/python3
"""Independent expected counts for the reader tests (tests/core/tst_reader_shared.cpp).

Reads every trace with Python's strict stdlib json (no code shared with the C++ reader) and writes,
per file, what a correct reader must find. The rules follow ../shared/specs/trace-format.md, not
our implementation:

  * pid/tid: an int, or a string; a string of digits is the same row as the number (2020-21
    Kineto wrote "123" in slices and 123 in flows, spec section 3).
  * events per phase; X events per category (a missing "cat" counts under "<missing>"); X events
    need a numeric "ts" to be placed.
  * [memory] / [OutOfMemory] instants ('i' or 'I' with that name); other instants.
  * flows ('s'/'f' with ts and id) per category: starts, finishes, distinct ids with both ends,
    and pairs when the i-th start (in time) of a (cat, id) pairs with its i-th finish.
  * launch flows (ac2g and its legacy names): pairs whose start sits on a runtime/driver X event
    and whose finish sits on a kernel/memcpy/memset X event with the same (pid, tid, ts).
  * ProfilerStep#N X events on host rows (not GPU categories, not the "Spans" process).
  * distinct (pid, tid) rows with X events; M events per name; process and thread names;
    counter samples ('C' events: one per numeric arg); top-level keys other than traceEvents.
  * X-event arg values by JSON type, with ints above INT64_MAX counted apart and sampled.

Usage:  tests/scripts/trace_counts.py [TRACES_DIR] > tests/data/expected_counts.json
TRACES_DIR defaults to ../shared/traces next to the repository. Files are listed relative to it.
"""

import gzip
import json
import os
import re
import sys

INT64_MAX = 2**63 - 1
STEP_RE = re.compile(r"^ProfilerStep *# *([+-]?\d+)$")
DIGITS_RE = re.compile(r"^-?\d{1,19}$")

# Categories by meaning (spec section 6, legacy spellings included; compared case-insensitively).
LAUNCH_CATS = {"cuda_runtime", "runtime", "cuda_driver", "driver", "xpu_runtime", "xpu_driver",
               "privateuse1_runtime", "privateuse1_driver", "mtia_runtime", "hip_runtime"}
GPU_WORK_CATS = {"kernel", "gpu_memcpy", "memcpy", "gpu_memset", "memset", "xpu_kernel"}
DEVICE_ROW_CATS = GPU_WORK_CATS | {"cuda_sync", "xpu_sync", "cuda_event", "gpu_user_annotation", "user"}
LAUNCH_FLOW_CATS = {"ac2g", "async", "async_cpu_to_gpu", "async_gpu"}
MEMORY_NAMES = ("[memory]", "[OutOfMemory]")


def load(path):
    opener = gzip.open if open(path, "rb").read(2) == b"\x1f\x8b" else open
    with opener(path, "rb") as f:
        return json.loads(f.read().decode("utf-8"))


def row_key(v):
    """A pid/tid as a JSON-able, hashable value: digit strings become numbers."""
    if isinstance(v, bool):
        return str(v).lower()
    if isinstance(v, str) and DIGITS_RE.match(v):
        return int(v)
    if isinstance(v, float) and v.is_integer():
        return int(v)
    return v


def key_text(v):
    return str(v) if not isinstance(v, str) else "s:" + v


def is_num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def arg_type(v):
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, int):
        return "uint" if v > INT64_MAX else "int"
    if isinstance(v, float):
        return "float"
    if isinstance(v, str):
        return "str"
    return "json"


def cat_of(e):
    c = e.get("cat")
    return "<missing>" if c is None else str(c)


def count(doc):
    if isinstance(doc, list):
        events, top_keys, top_array = doc, [], True
    else:
        events = doc.get("traceEvents", [])
        top_keys = [k for k in doc.keys() if k != "traceEvents"]
        top_array = False

    out = {
        "top_level_array": top_array,
        "metadata_keys": top_keys,
        "base_time_ns": None if top_array or "baseTimeNanoseconds" not in doc else str(doc["baseTimeNanoseconds"]),
        "events": len(events),
        "phases": {},
        "x_by_cat": {},
        "x_without_ts": 0,
        "memory": {n: 0 for n in MEMORY_NAMES},
        "instants": 0,
        "flows": {},
        "launch_flows_exact": 0,
        "steps": 0,
        "step_numbers": [],
        "rows_with_x": 0,
        "meta": {},
        "process_names": {},
        "thread_names": {},
        "counter_samples": 0,
        "x_arg_types": {},
        "x_with_link_ids": 0,
        "uint64_args": [],
    }
    x_at = {}        # (pid, tid, ts) -> set of lower-case categories of X events there
    rows = set()
    flow_ends = {}   # (cat, id) -> {"s": [(ts, pid, tid)], "f": [...]}
    for e in events:
        if not isinstance(e, dict):
            continue
        ph = e.get("ph")
        if not isinstance(ph, str) or not ph:
            continue
        ph = ph[0]
        out["phases"][ph] = out["phases"].get(ph, 0) + 1
        pid, tid = row_key(e.get("pid", 0)), row_key(e.get("tid", 0))
        ts = e.get("ts")
        has_ts = is_num(ts)
        name = e.get("name")
        args = e.get("args") if isinstance(e.get("args"), dict) else {}
        if ph == "X":
            if not has_ts:
                out["x_without_ts"] += 1
                continue
            c = cat_of(e)
            out["x_by_cat"][c] = out["x_by_cat"].get(c, 0) + 1
            rows.add((key_text(pid), key_text(tid)))
            x_at.setdefault((key_text(pid), key_text(tid), ts), set()).add(c.lower())
            m = STEP_RE.match(name) if isinstance(name, str) else None
            if m and c.lower() not in DEVICE_ROW_CATS and c != "Trace" and pid != "Spans":
                out["steps"] += 1
                out["step_numbers"].append(int(m.group(1)))
            linked = False
            for k, v in args.items():
                t = arg_type(v)
                out["x_arg_types"][t] = out["x_arg_types"].get(t, 0) + 1
                if t == "uint" and len(out["uint64_args"]) < 8:
                    out["uint64_args"].append({"name": name, "key": k, "value": str(v)})
                if k in ("External id", "external id", "correlation") and t == "int" and v >= 0:
                    linked = True
            out["x_with_link_ids"] += linked
        elif ph in ("i", "I"):
            if not has_ts:
                continue
            if name in MEMORY_NAMES:
                out["memory"][name] += 1
            else:
                out["instants"] += 1
        elif ph in ("s", "f"):
            fid = e.get("id")
            if not has_ts or fid is None or isinstance(fid, bool):
                continue
            if isinstance(fid, str) and DIGITS_RE.match(fid):
                fid = int(fid)
            c = cat_of(e)
            ends = flow_ends.setdefault((c, fid), {"s": [], "f": []})
            ends[ph].append((ts, key_text(pid), key_text(tid)))
        elif ph == "M":
            out["meta"][str(name)] = out["meta"].get(str(name), 0) + 1
            n = args.get("name")
            if name == "process_name" and isinstance(n, str):
                out["process_names"][key_text(pid)] = n
            elif name == "thread_name" and isinstance(n, str):
                out["thread_names"][key_text(pid) + "|" + key_text(tid)] = n
        elif ph == "C":
            if has_ts:
                out["counter_samples"] += sum(1 for v in args.values() if is_num(v))

    for (c, fid), ends in flow_ends.items():
        st = out["flows"].setdefault(c, {"s": 0, "f": 0, "ids_paired": 0, "pairs": 0})
        ns, nf = len(ends["s"]), len(ends["f"])
        st["s"] += ns
        st["f"] += nf
        st["ids_paired"] += 1 if ns and nf else 0
        st["pairs"] += min(ns, nf)
        if c.lower() in LAUNCH_FLOW_CATS:
            starts = sorted(ends["s"], key=lambda x: x[0])
            finishes = sorted(ends["f"], key=lambda x: x[0])
            for s, f in zip(starts, finishes):
                at_s = x_at.get((s[1], s[2], s[0]), set())
                at_f = x_at.get((f[1], f[2], f[0]), set())
                if at_s & LAUNCH_CATS and at_f & GPU_WORK_CATS:
                    out["launch_flows_exact"] += 1

    # Names only matter for rows that exist in the model (rows are made by events, not by M).
    out["thread_names"] = {k: v for k, v in out["thread_names"].items() if tuple(k.split("|")) in rows}
    out["rows_with_x"] = len(rows)
    out["step_numbers"].sort()
    return out


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "..", "..", "shared", "traces")
    root = os.path.abspath(root)
    files = []
    for dirpath, _, names in os.walk(root):
        for n in names:
            if n.endswith(".json") or n.endswith(".json.gz"):
                files.append(os.path.relpath(os.path.join(dirpath, n), root))
    result = {}
    for rel in sorted(files):
        result[rel] = count(load(os.path.join(root, rel)))
    json.dump(result, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
