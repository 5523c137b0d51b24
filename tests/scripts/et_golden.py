"""Golden check of Kinetoscope's execution-trace reading and linking against torch 1.13 itself.

torch 1.13's ExecutionGraphObserver records a small model's forward and backward while the
autograd profiler (use_kineto=False: this torch has no Kineto) records the same ops; its Chrome
trace is the trace the ET is opened beside. Checked, op by op, from `kinetoscope info --et-ops`:
  - every node, input and output exactly as the observer wrote them (ids, names, rf_id, tensor id,
    storage, offset, numel, itemsize, device, dtype, shape);
  - the producer of each input tensor and the consumers of each output tensor, against the
    reference rules written out again below;
  - the link to the profiler's op with the same name and rank (this torch writes no
    record-function ids into its traces), and `kinetoscope info`'s coverage line.
The same ET rewritten in torch 2.x's schema (nested inputs/outputs with strides, attrs, ctrl_deps;
PyTorch's execution_trace_observer.cpp) must read the same, strides included.

Usage: et_golden.py KINETOSCOPE WORKDIR
"""
import json
import os
import subprocess
import sys

import torch
from torch.profiler import ExecutionGraphObserver

STRUCTURAL = "[pytorch|profiler|execution_"


def record(work):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 4))
    x = torch.randn(5, 8)
    et_path = os.path.join(work, "et.json")
    trace_path = os.path.join(work, "trace.json")
    eg = ExecutionGraphObserver()
    eg.register_callback(et_path)
    with torch.autograd.profiler.profile(use_kineto=False, record_shapes=True) as prof:
        eg.start()
        y = model(x)
        loss = (y * y).sum()
        loss.backward()
        eg.stop()
    eg.unregister_callback()
    prof.export_chrome_trace(trace_path)
    return et_path, trace_path


def is_tensor(v):
    return isinstance(v, list) and 5 <= len(v) <= 6 and all(isinstance(i, int) for i in v[:5])


def tensors(values, shapes, types, strides=None):
    out = []
    for i, v in enumerate(values):
        t = types[i] if i < len(types) else ""
        if t.startswith("Tensor") and is_tensor(v):
            s = strides[i] if strides else None
            out.append([(v, shapes[i], t, s)])
        elif isinstance(v, list) and t.find("Tensor(") >= 0:
            elem = t[t.index("[") + 1:-1].split(",") if "[" in t else []
            out.append([(e, shapes[i][k], elem[k], strides[i][k] if strides else None)
                        for k, e in enumerate(v) if k < len(elem) and elem[k].startswith("Tensor") and is_tensor(e)])
        else:
            out.append([])
    return out


def expect_tensor(v, shape, type_, stride):
    d = {"id": v[0], "storage": v[1], "offset": v[2], "numel": v[3], "itemsize": v[4],
         "device": v[5] if len(v) > 5 else "", "dtype": type_[type_.index("(") + 1:type_.index(")")],
         "shape": shape}
    if stride is not None:
        d["strides"] = stride
    return d


def reference(nodes):
    """Producers and consumers by the documented rules, written independently of the C++."""
    nodes = sorted(nodes, key=lambda n: n["id"])
    index = {n["id"]: i for i, n in enumerate(nodes)}
    parent = [index.get(n["parent"], -1) if index.get(n["parent"], -1) < i else -1 for i, n in enumerate(nodes)]

    def ancestors(i):
        out = []
        p = parent[i]
        while p >= 0:
            out.append(p)
            p = parent[p]
        return out

    def ids(side, i):
        return {t[0][0] for v in nodes[i][side] for t in v}

    producers, consumers = {}, {}
    for i, n in enumerate(nodes):
        if n["name"].startswith(STRUCTURAL):
            continue
        prods = []
        for v in n["ins"]:
            row = []
            for (val, _, _, _) in v:
                tid = val[0]
                best = -1
                for j in range(i):
                    if tid in ids("outs", j) and j not in ancestors(i):
                        best = j
                if best >= 0:
                    p = parent[best]
                    while p >= 0 and not nodes[p]["name"].startswith(STRUCTURAL) and p not in ancestors(i) \
                            and tid in ids("outs", p):
                        best = p
                        p = parent[p]
                row.append(nodes[best]["id"] if best >= 0 else None)
            prods.append(row)
        producers[n["id"]] = prods
        cons = []
        for v in n["outs"]:
            row = []
            for (val, _, _, _) in v:
                tid = val[0]
                limit = len(nodes)
                for j in range(i + 1, len(nodes)):
                    if i not in ancestors(j) and tid in ids("outs", j):
                        limit = j
                        break
                got = []
                for j in range(i + 1, min(limit + 1, len(nodes))):
                    if i in ancestors(j) or tid not in ids("ins", j):
                        continue
                    if any(c in ancestors(j) for c in got):
                        continue
                    got.append(j)
                row.append([nodes[j]["id"] for j in got])
            cons.append(row)
        consumers[n["id"]] = cons
    return producers, consumers


def load_113(path):
    doc = json.load(open(path))
    nodes = []
    for n in doc["nodes"]:
        nodes.append({"id": n["id"], "name": n["name"], "parent": n["parent"], "rf_id": n["rf_id"],
                      "ins": tensors(n["inputs"], n["input_shapes"], n["input_types"]),
                      "outs": tensors(n["outputs"], n["output_shapes"], n["output_types"])})
    return doc, nodes


def contiguous_strides(shape):
    out, acc = [], 1
    for d in reversed(shape):
        out.append(acc)
        acc *= d
    return list(reversed(out))


def strides_like(shapes):
    return [contiguous_strides(s) if s and all(isinstance(d, int) for d in s) else
            [strides_like([x])[0] if isinstance(x, list) else [] for x in s] if s and isinstance(s[0], list) else []
            for s in shapes]


def to_2x(doc, path):
    """The same graph in torch 2.x's schema, as execution_trace_observer.cpp writes it."""
    nodes = []
    for n in doc["nodes"]:
        nodes.append({
            "id": n["id"], "name": n["name"], "ctrl_deps": n["parent"],
            "inputs": {"values": n["inputs"], "shapes": n["input_shapes"], "types": n["input_types"],
                       "strides": strides_like(n["input_shapes"])},
            "outputs": {"values": n["outputs"], "shapes": n["output_shapes"], "types": n["output_types"],
                        "strides": strides_like(n["output_shapes"])},
            "attrs": [{"name": "rf_id", "type": "uint64", "value": n["rf_id"]},
                      {"name": "fw_parent", "type": "uint64", "value": n["fw_parent"]},
                      {"name": "seq_id", "type": "int64", "value": n["seq_id"]},
                      {"name": "scope", "type": "uint64", "value": n["scope"]},
                      {"name": "tid", "type": "uint64", "value": n["tid"]},
                      {"name": "fw_tid", "type": "uint64", "value": n["fw_tid"]},
                      {"name": "op_schema", "type": "string", "value": n["op_schema"]},
                      {"name": "kernel_backend", "type": "string", "value": ""},
                      {"name": "kernel_file", "type": "string", "value": ""}]})
    out = {"schema": "1.1.1-chakra.0.0.4", "pid": doc["pid"], "time": doc["time"], "start_ts": doc["start_ts"],
           "nodes": nodes, "finish_ts": doc["finish_ts"]}
    json.dump(out, open(path, "w"))
    return out


def run(binary, *args):
    return subprocess.run([binary, *args], check=True, capture_output=True, text=True).stdout


def check(binary, trace, et_path, nodes, with_strides, legacy_trace):
    failures = []
    producers, consumers = reference(nodes)
    by_id = {n["id"]: n for n in nodes}
    ops = [n for n in nodes if not n["name"].startswith(STRUCTURAL)]
    trace_ops = []
    if legacy_trace:
        events = json.load(open(trace))
        trace_ops = sorted((e for e in events if e.get("ph") == "X" and e.get("pid") == "CPU functions"),
                           key=lambda e: e["ts"])
    got = [json.loads(l) for l in run(binary, "info", trace, "--et", et_path, "--et-ops").splitlines()]
    if [g["id"] for g in got] != sorted(n["id"] for n in ops):
        failures.append("op ids differ")
    rank = {}
    for g in got:
        n = by_id[g["id"]]
        where = "op %d %s" % (g["id"], g["name"])
        if g["name"] != n["name"] or g["rf_id"] != n["rf_id"]:
            failures.append(where + ": name or rf_id")
        for side, key, ref in (("ins", "inputs", producers), ("outs", "outputs", consumers)):
            want = [[expect_tensor(v, s, t, st if with_strides else None) for (v, s, t, st) in vals]
                    for vals in n[side]]
            have = [v["tensors"] for v in g[key]]
            if want != have:
                failures.append("%s: %s differ:\n  want %s\n  have %s" % (where, key, want, have))
            links = [v["producers" if side == "ins" else "consumers"] for v in g[key]]
            if links != ref[g["id"]]:
                failures.append("%s: %s links differ: want %s have %s" % (where, key, ref[g["id"]], links))
        # Name and order: the k-th op named X is the k-th profiler op named X.
        k = rank.get(g["name"], 0)
        rank[g["name"]] = k + 1
        if legacy_trace:
            same = [e for e in trace_ops if e["name"] == g["name"]]
            if k < len(same):
                if g["slice"] is None or abs(g["slice"]["ts_ns"] - round(same[k]["ts"] * 1000)) > 1:
                    failures.append(where + ": not linked to profiler op #%d of that name" % k)
            elif g["slice"] is not None:
                failures.append(where + ": linked, but the profiler has no such op")
    return failures, got


def main():
    binary, work = sys.argv[1], sys.argv[2]
    et_path, trace_path = record(work)
    doc, nodes = load_113(et_path)
    failures, got = check(binary, trace_path, et_path, nodes, False, True)
    linked = sum(1 for g in got if g["slice"] is not None)
    info = run(binary, "info", trace_path, "--et", et_path)
    line = "linked to trace ops: %d/%d" % (linked, len(got))
    if line not in info:
        failures.append("coverage line: want '%s' in:\n%s" % (line, info))
    if linked < len(got) * 0.9:
        failures.append("only %d of %d ops linked to the profiler's" % (linked, len(got)))
    # The 2.x schema, opened beside the same trace and on its own (then linked by rf_id).
    et2 = os.path.join(work, "et2.json")
    doc2 = to_2x(doc, et2)
    nodes2 = [{"id": n["id"], "name": n["name"], "parent": n["ctrl_deps"],
               "rf_id": n["attrs"][0]["value"],
               "ins": tensors(n["inputs"]["values"], n["inputs"]["shapes"], n["inputs"]["types"],
                              n["inputs"]["strides"]),
               "outs": tensors(n["outputs"]["values"], n["outputs"]["shapes"], n["outputs"]["types"],
                               n["outputs"]["strides"])} for n in doc2["nodes"]]
    f2, _ = check(binary, trace_path, et2, nodes2, True, True)
    failures += ["2.x schema: " + f for f in f2]
    alone = run(binary, "info", et2)
    want = "linked to trace ops: %d/%d (100.0%%): %d by record-function id" % (len(got), len(got), len(got))
    if want not in alone:
        failures.append("2.x ET alone: want '%s' in:\n%s" % (want, alone))
    for f in failures:
        print("FAIL:", f)
    print("%d ops, %d linked to the profiler's, %d tensors checked" %
          (len(got), linked, sum(len(v["tensors"]) for g in got for v in g["inputs"] + g["outputs"])))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
