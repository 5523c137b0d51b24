#!/usr/bin/python3
"""Prints torch's own operator summary table for a Kineto / Chrome trace file.

The expected outputs under tests/data/summary/ come from here. The script turns the trace's events
into torch.autograd.profiler_util.FunctionEvent objects by the mapping rules of docs/summary.md
(which events count, their times, kernel and memory attribution, FLOPs), then lets torch itself
build the tree, remove duplicates, compute self times, group, sort and format:

    EventList(events).key_averages(...).table(...)

So everything after the mapping is torch's code, independent of Kinetoscope's. Run it with the
interpreter that has torch (Debian: /usr/bin/python3, torch 1.13.1).

The tables are torch 1.13's, which `kinetoscope summary --torch-version 1.13` prints: 1.13 counts
gpu_user_annotation rows in the device total and merges a user annotation with a same-named event
of its device type, where torch 2.x does neither (docs/summary.md, "torch 1.13 and torch 2.x").
"""

import argparse
import decimal
import gzip
import json
import math
import sys

import torch
from torch.autograd import DeviceType
from torch.autograd.profiler_util import EventList, FunctionEvent, _rewrite_name

FILTERED = {
    "[memory]",
    "[OutOfMemory]",
    "profiler::_record_function_enter",
    "profiler::_record_function_enter_new",
    "profiler::_record_function_exit",
    "aten::is_leaf",
    "aten::output_nr",
    "aten::_version",
}

CPU_MEMORY_DEVICES = {0, 2, 5}  # CPU, MKLDNN, IDEEP
ACCEL_MEMORY_DEVICES = {1, 6, 12, 20}  # CUDA, HIP, XPU, PrivateUse1


class RefusedTrace(Exception):
    pass


def event_kind(cat):
    """The reader's category classification (core/model/types.cpp)."""
    c = (cat or "").lower()
    if c in ("cpu_op", "operator"):
        return "cpu_op"
    if c == "user_annotation":
        return "user_annotation"
    if c in ("gpu_user_annotation", "user"):
        return "gpu_user_annotation"
    if c == "python_function":
        return "python_function"
    if c in ("cuda_runtime", "runtime", "xpu_runtime", "privateuse1_runtime", "mtia_runtime", "hip_runtime"):
        return "runtime"
    if c in ("cuda_driver", "xpu_driver", "privateuse1_driver", "driver"):
        return "driver"
    if c in ("kernel", "xpu_kernel"):
        return "kernel"
    if c in ("gpu_memcpy", "memcpy"):
        return "memcpy"
    if c in ("gpu_memset", "memset"):
        return "memset"
    if c in ("cuda_sync", "xpu_sync"):
        return "sync"
    if c == "cuda_event":
        return "cuda_event"
    if c == "overhead":
        return "overhead"
    if c == "trace":
        return "span"
    return "other"


def track_kind(kind, pid):
    """The reader's track assignment (core/io/tracebuilder.cpp trackKindFor)."""
    if kind in ("kernel", "memcpy", "memset", "sync", "cuda_event"):
        return "gpu_stream"
    if kind == "gpu_user_annotation":
        return "gpu_annotation"
    if kind == "span":
        return "span"
    if kind == "overhead":
        return "other"
    if pid == "Spans":
        return "span"
    return "cpu_thread"


def row_key(v):
    # Digit-only strings are the same thread as the number (2020-21 Kineto wrote both).
    if isinstance(v, str) and v.isdigit():
        return int(v)
    return v


def to_ns(v):
    d = decimal.Decimal(str(v)) * 1000
    return int(d.quantize(decimal.Decimal(1), rounding=decimal.ROUND_HALF_UP))


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        doc = json.load(f, parse_float=decimal.Decimal)
    if isinstance(doc, list):
        return doc, {}
    return doc.get("traceEvents", []), doc


def truthy(v):
    return v not in (None, 0, False, "", decimal.Decimal(0))


# --- FLOPs (spec §6), from "Input Dims" and "Concrete Inputs" -------------------------------------

U64 = (1 << 64) - 1


def prod(xs):
    p = 1
    for x in xs:
        p = (p * x) & U64
    return p


def is_int_list(v):
    return isinstance(v, list) and all(isinstance(x, int) and not isinstance(x, bool) for x in v)


def mm_flops(dims, a, b):
    if len(dims) <= max(a, b) or not is_int_list(dims[a]) or not is_int_list(dims[b]):
        return 0
    m1, m2 = dims[a], dims[b]
    if not m1 or m1[-1] == 0:
        return 0
    return (2 * (prod(m1) // (m1[-1] & U64)) * prod(m2)) & U64


def bmm_flops(dims, a, b):
    if len(dims) <= max(a, b) or not is_int_list(dims[a]) or not is_int_list(dims[b]):
        return 0
    m1, m2 = dims[a], dims[b]
    if not m1 or m1[0] == 0 or m1[-1] == 0:
        return 0
    return ((((2 * prod(m1)) & U64) // m1[-1] // m1[0]) * prod(m2)) & U64


def parse_concrete(s):
    s = s.strip()
    try:
        v = json.loads(s)
    except ValueError:
        return None
    if is_int_list(v) or (isinstance(v, int) and not isinstance(v, bool)):
        return v
    return None


def conv2d_flops(dims, concrete):
    if len(dims) < 2 or concrete is None or len(concrete) < 7:
        return 0
    x, w = dims[0], dims[1]
    if not (is_int_list(x) and len(x) == 4 and is_int_list(w) and len(w) == 4):
        return 0
    args = [parse_concrete(c) if isinstance(c, str) else None for c in concrete]
    stride, padding, dilation, groups = args[3], args[4], args[5], args[6]
    for lst in (stride, padding, dilation):
        if not is_int_list(lst) or len(lst) != 2:
            return 0
    if not isinstance(groups, int) or groups == 0 or stride[0] * stride[1] == 0:
        return 0

    def out(size, k, i):
        # C++ integer division truncates toward zero.
        num = size + 2 * padding[i] - dilation[i] * (k - 1) - 1
        q = abs(num) // abs(stride[i])
        return (q if (num >= 0) == (stride[i] > 0) else -q) + 1

    n, cin, h, wd = x
    cout, _, kh, kw = w
    r = 2
    for f in (n, out(h, kh, 0), out(wd, kw, 1), kh, kw, cin, cout):
        r = (r * (f & U64)) & U64
    return r // (groups & U64)


def conv2d_from_backward(r, backward_of):
    """docs/summary.md: torch 1.13 traces keep no stride/padding; the conv's backward function's
    first input, the output gradient [N, C_out, H_out, W_out], gives the output size."""
    if under_backward(r) or r.seqnr < 0:
        return 0
    types = r.args.get("Input type")
    if isinstance(types, list) and len(types) > 4 and types[4] in ("str", "String", "string"):
        return 0
    fn = backward_of.get((r.seqnr, r.rank))
    dims = r.args.get("Input Dims")
    if fn is None or not isinstance(dims, list) or len(dims) < 2:
        return 0
    x, w = dims[0], dims[1]
    out = fn.args.get("Input Dims")
    out = out[0] if isinstance(out, list) and out else None
    if not all(is_int_list(v) and len(v) == 4 for v in (x, w, out)):
        return 0
    if out[0] != x[0] or out[1] != w[0] or w[1] <= 0 or x[1] % w[1] != 0 or x[1] // w[1] == 0:
        return 0
    r_ = 2
    for f in (out[0], out[2], out[3], w[2], w[3], x[1], out[1]):
        r_ = (r_ * (f & U64)) & U64
    return r_ // (x[1] // w[1])


def under_backward(r):
    while r is not None:
        if r.node:
            return True
        r = r.parent
    return False


def flops_of(name, args):
    dims = args.get("Input Dims")
    if not isinstance(dims, list):
        return 0
    if name == "aten::mm":
        return mm_flops(dims, 0, 1)
    if name == "aten::addmm":
        return mm_flops(dims, 1, 2)
    if name == "aten::bmm":
        return bmm_flops(dims, 0, 1)
    if name == "aten::baddbmm":
        return bmm_flops(dims, 1, 2)
    if name == "aten::conv2d":
        return conv2d_flops(dims, args.get("Concrete Inputs"))
    if name in ("aten::mul", "aten::add"):
        return prod(dims[0]) if dims and is_int_list(dims[0]) else 0
    return 0


EVALUATE = "autograd::engine::evaluate_function: "


def int_arg(args, key, fallback):
    v = args.get(key)
    if isinstance(v, int) and not isinstance(v, bool):
        return v
    if isinstance(v, str) and v.isdigit():
        return int(v)
    return fallback


# --- the mapping ----------------------------------------------------------------------------------


class Rec:
    __slots__ = ("start", "end", "name", "role", "args", "track", "seq", "ext", "corr", "parent", "fe", "g", "python", "frames",
                 "seqnr", "fwd", "node", "rank")


def filtered_frame(f):
    """torch's _filter_stack_entry."""
    if "autograd/__init__" in f and ("_make_grads" in f or "backward" in f):
        return True
    if "torch/tensor" in f and "backward" in f:
        return True
    if "_internal/common_utils" in f and any(x in f for x in ("prof_callable", "prof_func_call", "prof_meth_call")):
        return True
    return False


def build_events(raw, doc, with_flops):
    legacy = any(isinstance(e, dict) and e.get("pid") == "CPU functions" for e in raw)
    track_rank = {}
    tracks = {}
    memory = []
    for e in raw:
        if not isinstance(e, dict):
            continue
        ph = e.get("ph")
        if ph in ("B", "E"):
            raise RefusedTrace("B/E events are not handled by this script")
        if ph not in ("X", "i", "I") or "ts" not in e:
            continue
        pid, tid = row_key(e.get("pid", 0)), row_key(e.get("tid", 0))
        if ph in ("i", "I"):
            name = e.get("name")
            tk = (pid, tid, "cpu_thread")
            track_rank.setdefault(tk, len(track_rank))
            if name in ("[memory]", "[OutOfMemory]"):
                a = e.get("args") or {}
                memory.append((to_ns(e["ts"]), len(memory), name == "[OutOfMemory]",
                               int(a.get("Device Type", 0)), int(a.get("Bytes", 0)), track_rank[tk]))
            continue
        kind = event_kind(e.get("cat"))
        tk = (pid, tid, track_kind(kind, pid))
        track_rank.setdefault(tk, len(track_rank))
        r = Rec()
        r.start = to_ns(e["ts"])
        dur = to_ns(e["dur"]) if "dur" in e else 0
        r.end = r.start + max(dur, 0)
        r.name = e.get("name", "")
        r.args = e.get("args") or {}
        r.track = track_rank[tk]
        tracks.setdefault(tk, []).append(r)
        r.seq = len(tracks[tk])
        ext = r.args.get("External id", r.args.get("external id"))
        corr = r.args.get("correlation")
        r.ext = ext if isinstance(ext, int) else -1
        r.corr = corr if isinstance(corr, int) else -1
        tkind = tk[2]
        role = None
        if tkind == "cpu_thread":
            role = {"cpu_op": "op", "user_annotation": "annotation", "runtime": "runtime",
                    "driver": "runtime"}.get(kind)
            if kind == "other" and legacy:
                role = "op"
        elif tkind == "gpu_stream" and kind in ("kernel", "memcpy", "memset"):
            role = "device"
        elif tkind == "gpu_annotation" and kind == "gpu_user_annotation":
            role = "device_annotation"
        if r.name in FILTERED:
            role = None
        r.role = role
        r.python = kind == "python_function"

    # Stacks for export_stacks: an op's "Call stack" arg (innermost first) or the python_function
    # slices enclosing it, found with the same nesting rule over all slices of its thread.
    for tk, recs in tracks.items():
        recs.sort(key=lambda r: (r.start, -(r.end - r.start), r.seq))
        open_ = []
        for r in recs:
            while open_ and (r.start >= open_[-1].end or r.end > open_[-1].end):
                open_.pop()
            r.frames = []
            cs = r.args.get("Call stack")
            if isinstance(cs, str) and cs:
                r.frames = [f for f in cs.split(";") if f and not filtered_frame(f)]
            else:
                for p in reversed(open_):
                    if p.python and not filtered_frame(p.name):
                        r.frames.append(p.name)
            open_.append(r)

    lanes = []
    for tk, recs in tracks.items():
        recs.sort(key=lambda r: (r.start, -(r.end - r.start), r.seq))
        lanes.append((track_rank[tk], tk[2], [r for r in recs if r.role]))
    lanes.sort(key=lambda x: x[0])
    for lane_no, (_, _, recs) in enumerate(lanes):
        for i, r in enumerate(recs):
            r.g = (lane_no, i)


    starts = [r.start for _, _, recs in lanes for r in recs] + [m[0] for m in memory]
    base = min(starts) if starts else 0

    # Parents by torch's stack rule, used for the runtime-call checks and correlation joins.
    checked = agreeing = 0
    for rank, kind, recs in lanes:
        if kind != "cpu_thread":
            continue
        stack = []
        prev = None
        for r in recs:
            while stack and (r.start >= stack[-1].end or r.end > stack[-1].end):
                stack.pop()
            r.parent = stack[-1] if stack else None
            # Backward functions (torch's scope BACKWARD_FUNCTION), by docs/summary.md's rule.
            r.rank = rank
            r.seqnr = int_arg(r.args, "Sequence number", -1)
            r.fwd = int_arg(r.args, "Fwd thread id", 0)
            r.node = (r.fwd > 0 and not r.name.startswith(EVALUATE)) or (
                prev is not None and r.start <= prev.end and prev.name == EVALUATE + r.name)
            prev = r
            if r.role == "runtime" and r.ext > 0:
                for s in reversed(stack):
                    if s.role in ("op", "annotation"):
                        if s.ext > 0:
                            checked += 1
                            agreeing += s.ext == r.ext
                        break
            stack.append(r)
    by_correlation = checked > 0 and agreeing * 2 < checked

    # "Fwd thread id" is torch's own thread number: it goes to the thread whose forward ops hold
    # most of the sequence numbers its backward functions look for.
    forward_seqs = set()
    for rank, kind, recs in lanes:
        if kind == "cpu_thread":
            forward_seqs.update((r.seqnr, rank) for r in recs if r.seqnr >= 0 and r.fwd == 0 and not under_backward(r))
    votes = {}
    for rank, kind, recs in lanes:
        if kind != "cpu_thread":
            continue
        for r in recs:
            if r.node and r.fwd > 0:
                v = votes.setdefault(r.fwd, {})
                for cand, ckind, _ in lanes:
                    if ckind == "cpu_thread" and (r.seqnr, cand) in forward_seqs:
                        v[cand] = v.get(cand, 0) + 1
    thread_of = {}
    for fwd, v in votes.items():
        best = max(v.items(), key=lambda kv: (kv[1], -kv[0]), default=None)
        if best is not None:
            thread_of[fwd] = best[0]
    # Backward functions by (sequence number, forward thread), for conv2d without Concrete Inputs.
    backward_of = {}
    for rank, kind, recs in lanes:
        if kind == "cpu_thread":
            for r in recs:
                if r.node and r.seqnr >= 0 and r.fwd in thread_of:
                    backward_of.setdefault((r.seqnr, thread_of[r.fwd]), r)

    index = {}
    for _, kind, recs in lanes:
        if kind != "cpu_thread":
            continue
        for r in recs:
            if by_correlation:
                key = r.corr if r.corr > 0 else r.ext
                if r.role != "runtime" or key <= 0:
                    continue
                op = r.parent
                while op is not None and op.role not in ("op", "annotation"):
                    op = op.parent
                # Several calls with one id: the op first in list order wins.
                if op is not None and (key not in index or op.g < index[key].g):
                    index[key] = op
            elif r.role in ("op", "annotation") and r.ext > 0:
                index.setdefault(r.ext, r)

    # [memory] records by time (stable), for inclusive per-event totals.
    mem = sorted([m for m in memory if not m[2]], key=lambda m: m[0])
    oom = sorted([m for m in memory if m[2]], key=lambda m: m[0])
    used = [False] * len(mem)
    mem_ts = [m[0] for m in mem]

    import bisect

    def us(t):
        return (t - base) / 1000

    events = []  # (start, -end, lane order, index, FunctionEvent)
    for lane_no, (rank, kind, recs) in enumerate(lanes):
        for i, r in enumerate(recs):
            device = r.role in ("device", "device_annotation")
            cpu_mem = dev_mem = 0
            if not device:
                lo = bisect.bisect_left(mem_ts, r.start)
                hi = bisect.bisect_right(mem_ts, r.end)
                for k in range(lo, hi):
                    cpu_mem += mem[k][4] if mem[k][3] in CPU_MEMORY_DEVICES else 0
                    dev_mem += mem[k][4] if mem[k][3] in ACCEL_MEMORY_DEVICES else 0
                    used[k] = True
            shapes = r.args.get("Input Dims", r.args.get("Input dims"))
            if device or not isinstance(shapes, list):
                shapes = []
            flops = 0
            if with_flops and r.role == "op":
                flops = flops_of(_rewrite_name(r.name, with_wildcard=True), r.args)
                if flops == 0 and r.name == "aten::conv2d" and "Concrete Inputs" not in r.args:
                    flops = conv2d_from_backward(r, backward_of)
            fe = FunctionEvent(
                id=len(events),
                name=_rewrite_name(r.name, with_wildcard=True),
                trace_name=_rewrite_name(r.name, with_wildcard=False),
                thread=rank,
                start_us=us(r.start),
                end_us=us(r.end),
                input_shapes=shapes,
                stack=list(r.frames) if not device else [],
                cpu_memory_usage=cpu_mem,
                cuda_memory_usage=dev_mem,
                device_type=DeviceType.CUDA if device else DeviceType.CPU,
                flops=flops,
            )
            if not device:
                fe.sequence_nr = r.seqnr
                if r.node:
                    fe.scope = 1
                    # A thread torch never saw: the backward function finds no forward stack.
                    fe.fwd_thread = thread_of.get(r.fwd, -1)
            fe.is_user_annotation = r.role in ("annotation", "device_annotation")
            r.fe = fe
            events.append((r.start, -r.end, lane_no, i, fe, r))

    # Kernels go to their op in list order.
    events.sort(key=lambda x: x[:4])
    attributed = 0
    for *_, fe, r in events:
        if r.role != "device":
            continue
        key = (r.corr if r.corr > 0 else r.ext) if by_correlation else r.ext
        op = index.get(key) if key > 0 else None
        if op is not None:
            op.fe.append_kernel(fe.name, 0, fe.time_range.end - fe.time_range.start)
            attributed += 1

    # Allocator records no CPU event encloses, then out-of-memory records, as rows of their own.
    extra = []
    for k, m in enumerate(mem):
        if not used[k]:
            extra.append((m[0], 0, k, m))
    for k, m in enumerate(oom):
        extra.append((m[0], 1, k, m))
    extra.sort(key=lambda x: x[:3])
    for j, (ts, is_oom, _, m) in enumerate(extra):
        name = "[OutOfMemory]" if is_oom else "[memory]"
        fe = FunctionEvent(
            id=len(events) + j, name=name, trace_name=None, thread=m[5], start_us=us(ts), end_us=us(ts),
            input_shapes=[], stack=[],
            cpu_memory_usage=m[4] if m[3] in CPU_MEMORY_DEVICES else 0,
            cuda_memory_usage=m[4] if m[3] in ACCEL_MEMORY_DEVICES else 0,
            device_type=DeviceType.CPU, flops=0)
        fe.is_user_annotation = False
        events.append((ts, -ts, len(lanes), j, fe, None))
    # torch sorts the whole list once more, allocator rows included.
    events.sort(key=lambda x: x[:4])

    fes = [x[4] for x in events]
    has_device = any(fe.device_type == DeviceType.CUDA for fe in fes)
    return fes, has_device, len(memory) > 0


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("trace")
    p.add_argument("--sort-by")
    p.add_argument("--row-limit", type=int, default=100)
    p.add_argument("--group-by-input-shape", action="store_true")
    p.add_argument("--top-level-only", action="store_true")
    p.add_argument("--flops", choices=["on", "off"])
    p.add_argument("--memory", choices=["on", "off"])
    p.add_argument("--group-by-stack-n", type=int, default=0)
    p.add_argument("--stacks", metavar="METRIC", help="print export_stacks(metric) output instead of the table")
    a = p.parse_args()

    sys.setrecursionlimit(100000)
    raw, doc = load(a.trace)
    with_flops = truthy(doc.get("with_flops")) if a.flops is None else a.flops == "on"
    try:
        fes, has_device, has_memory = build_events(raw, doc, with_flops)
    except RefusedTrace as e:
        print("torch_table.py: refused: %s" % e, file=sys.stderr)
        return 3
    profile_memory = (has_memory or truthy(doc.get("profile_memory"))) if a.memory is None else a.memory == "on"
    el = EventList(fes, use_cuda=has_device, profile_memory=profile_memory, with_flops=with_flops)
    el._build_tree()
    if a.stacks:
        import tempfile
        with tempfile.NamedTemporaryFile("r", suffix=".txt") as tmp:
            el.export_stacks(tmp.name, a.stacks.replace("device", "cuda"))
            sys.stdout.write(open(tmp.name).read())
        return 0
    avg = el.key_averages(group_by_input_shapes=a.group_by_input_shape, group_by_stack_n=a.group_by_stack_n)
    sort_by = a.sort_by.replace("device", "cuda") if a.sort_by else None
    sys.stdout.write(avg.table(sort_by=sort_by, row_limit=a.row_limit, top_level_events_only=a.top_level_only))
    return 0


if __name__ == "__main__":
    sys.exit(main())
