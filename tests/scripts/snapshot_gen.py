#!/usr/bin/env python3
"""Generates a CUDA memory snapshot pickle the way torch.cuda.memory._dump_snapshot writes one:
the dict torch.cuda.memory._snapshot() returns (documented in torch/cuda/memory.py, keys as
torch/csrc/cuda/Module.cpp and memory_snapshot.cpp write them), pickled by Python's own pickle.

A small caching allocator is simulated per device so the file is self-consistent: segment_alloc
before the allocations that need a new segment, alloc, free_requested + free_completed, segment_free
of empty segments, an optional OOM at the end; the final segments and their blocks are the
simulated state. Frame dicts are shared objects (torch symbolizes each frame once) and each entry
gets its own frames list (as _snapshot does) unless --share-lists (as the C++ pickler does).

usage: snapshot_gen.py OUT --entries N [--devices D] [--protocol 2..5] [--seed S] [--oom]
                        [--truncate K] [--depth MIN:MAX] [--share-lists] [--no-time]
"""
import argparse
import pickle
import random
import sys

PY_FILES = ["/work/train.py", "/work/model/transformer.py", "/work/model/attention.py",
            "/usr/lib/python3/dist-packages/torch/nn/modules/linear.py",
            "/usr/lib/python3/dist-packages/torch/nn/modules/module.py"]
CPP = [("/pytorch/c10/cuda/CUDACachingAllocator.cpp", "c10::cuda::CUDACachingAllocator::Native::DeviceCachingAllocator::malloc"),
       ("/pytorch/aten/src/ATen/native/cuda/EmptyTensor.cpp", "at::detail::empty_cuda"),
       ("/pytorch/aten/src/ATen/core/boxing/impl/make_boxed_from_unboxed_functor.h", "c10::impl::call_functor_with_args_from_stack"),
       ("/pytorch/aten/src/ATen/RegisterCUDA.cpp", "at::(anonymous namespace)::wrapper_CUDA__empty"),
       ("/pytorch/torch/csrc/profiler/combined_traceback.cpp", "torch::CapturedTraceback::gather"),
       ("??", "unwind::unwind"),
       ("/usr/src/python3.11/Python/ceval.c", "_PyEval_EvalFrameDefault"),
       ("/pytorch/aten/src/ATen/native/Linear.cpp", "at::native::linear"),
       ("/pytorch/aten/src/ATen/native/cuda/Blas.cpp", "at::native::addmm_out_cuda_impl")]


def make_frames(rnd, count):
    frames = []
    for i in range(count):
        if i % 3 == 0:
            f, n = CPP[i % len(CPP)]
            frames.append({"name": n, "filename": f, "line": rnd.randrange(0, 4000)})
        else:
            frames.append({"name": "forward_%d" % (i % 97), "filename": PY_FILES[i % len(PY_FILES)],
                           "line": rnd.randrange(1, 2000)})
    return frames


def simulate(rnd, device, n, frames, stacks, args, t0):
    trace, segs, live, live_list, current = [], [], {}, [], {}
    next_addr = 0x7f0000000000 + device * 0x10000000000
    t = t0
    streams = [0, 0, 0, 0x55d0c4a1b2c0 + device]

    def frames_for(k):
        s = stacks[k]
        return s if args.share_lists else list(s)

    def entry(action, addr, size, stream, k, **extra):
        nonlocal t
        t += rnd.randrange(1, 50)
        e = {"action": action, "addr": addr, "size": size, "stream": stream}
        if not args.no_time:
            e["time_us"] = t
        e.update(extra)
        if k is not None:
            e["frames"] = frames_for(k)
        trace.append(e)

    while len(trace) < n:
        if live and (rnd.random() < 0.42 or len(live) > 400):
            j = rnd.randrange(len(live_list))
            addr = live_list[j]
            live_list[j] = live_list[-1]
            live_list.pop()
            size, stream, k, seg = live.pop(addr)
            seg["live"] -= 1
            entry("free_requested", addr, size, stream, k)
            entry("free_completed", addr, size, stream, k)
            if seg["live"] == 0 and current.get(seg["stream"]) is not seg and rnd.random() < 0.3:
                segs.remove(seg)
                entry("segment_free", seg["addr"], seg["size"], seg["stream"], seg["k"])
            continue
        size = rnd.choice([512, 1024, 4096, 65536, 1 << 20, 2 << 20, 3 << 20, 8 << 20, 20 << 20, 40 << 20])
        size = ((size + rnd.randrange(0, 4096)) + 511) // 512 * 512
        stream = rnd.choice(streams)
        k = rnd.randrange(len(stacks))
        # Allocations fill the stream's newest segment; a new one is mapped when it is full (the
        # search stays O(1), so a million entries take seconds).
        seg = current.get(stream)
        if seg is None or seg["size"] - seg["used"] < size:
            ssize = max(2 << 20, (size + (2 << 20) - 1) // (2 << 20) * (2 << 20))
            seg = {"addr": next_addr, "size": ssize, "used": 0, "live": 0, "stream": stream, "k": k, "blocks": []}
            next_addr += ssize + (1 << 21)
            segs.append(seg)
            current[stream] = seg
            extra = {"pool_id": (0, 0)} if rnd.random() < 0.5 else {}
            entry("segment_alloc", seg["addr"], ssize, stream, k, **extra)
        addr = seg["addr"] + seg["used"]
        seg["used"] += size
        seg["live"] += 1
        seg["blocks"].append(addr)
        live[addr] = (size, stream, k, seg)
        live_list.append(addr)
        extra = {}
        if rnd.random() < 0.1:
            extra["compile_context"] = "[0/%d] torch/_dynamo" % rnd.randrange(3)
        if rnd.random() < 0.05:
            extra["user_metadata"] = "step %d" % rnd.randrange(10)
        entry("alloc", addr, size, stream, k, **extra)
    if args.oom:
        trace.append({"action": "oom", "device_free": 123 << 20, "size": 80 << 30, "stream": 0,
                      "time_us": t + 10, "frames": frames_for(0)})
    if args.truncate:
        trace = trace[args.truncate:]
    segments = []
    for s in segs:
        blocks, at = [], s["addr"]
        for addr in sorted(a for a in live if live[a][3] is s):
            if addr > at:
                blocks.append({"address": at, "size": addr - at, "requested_size": 0, "state": "inactive", "frames": []})
            size, stream, k, _ = live[addr]
            blocks.append({"address": addr, "size": size, "requested_size": size - rnd.randrange(0, 512),
                           "state": "active_allocated", "frames": frames_for(k)})
            at = addr + size
        if at < s["addr"] + s["size"]:
            blocks.append({"address": at, "size": s["addr"] + s["size"] - at, "requested_size": 0,
                           "state": "inactive", "frames": []})
        alloc = sum(b["size"] for b in blocks if b["state"] != "inactive")
        segments.append({"device": device, "address": s["addr"], "total_size": s["size"], "allocated_size": alloc,
                         "active_size": alloc, "requested_size": sum(b["requested_size"] for b in blocks),
                         "stream": s["stream"], "segment_type": "large" if s["size"] > (1 << 20) else "small",
                         "segment_pool_id": (0, 0), "is_expandable": False, "frames": frames_for(s["k"]),
                         "blocks": blocks})
    return trace, segments


def generate(args):
    rnd = random.Random(args.seed)
    lo, hi = (int(x) for x in args.depth.split(":"))
    frames = make_frames(rnd, 600)
    stacks = [[frames[rnd.randrange(len(frames))] for _ in range(rnd.randint(lo, hi))] for _ in range(400)]
    stacks[1] = []  # an allocation with no frames recorded
    traces, segments = [], []
    for d in range(args.devices):
        tr, segs = simulate(rnd, d, args.entries // args.devices, frames, stacks, args, 1764000000000000 + d)
        traces.append(tr)
        segments.extend(segs)
    snap = {"segments": segments, "device_traces": traces,
            "allocator_settings": {"PYTORCH_CUDA_ALLOC_CONF": "", "max_split_size": -1,
                                   "garbage_collection_threshold": 0.0, "expandable_segments": False,
                                   "roundup_power2_divisions": {"1": 0}},
            "external_annotations": [{"stage": "START", "name": "step", "device": d, "time_us": 1764000000000100}
                                     for d in range(args.devices)]}
    return snap


def main():
    p = argparse.ArgumentParser()
    p.add_argument("out")
    p.add_argument("--entries", type=int, default=1000)
    p.add_argument("--devices", type=int, default=1)
    p.add_argument("--protocol", type=int, default=4, choices=[2, 3, 4, 5])
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--oom", action="store_true")
    p.add_argument("--truncate", type=int, default=0)
    p.add_argument("--depth", default="4:24")
    p.add_argument("--share-lists", action="store_true")
    p.add_argument("--no-time", action="store_true")
    args = p.parse_args()
    snap = generate(args)
    with open(args.out, "wb") as f:
        pickle.dump(snap, f, protocol=args.protocol)


if __name__ == "__main__":
    sys.exit(main())
