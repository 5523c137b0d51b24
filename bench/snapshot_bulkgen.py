#!/usr/bin/env python3
"""Writes a large CUDA memory snapshot pickle fast: the opcodes Python's pickler would write for
torch.cuda.memory._snapshot()'s dict (protocol 4: every dict and list memoized, strings and the
frame dicts written once and referenced with BINGET/LONG_BINGET after), but emitted directly from
precomputed pieces, so a gigabyte takes seconds rather than the minutes of pickling a simulated
allocator (tests/scripts/snapshot_gen.py). The structure repeats: a fixed set of frames and stacks,
allocations in slots of one big segment, each freed (free_requested, free_completed) at random
and its slot reused; the final segment lists the live blocks. pickle.load reads the result.

usage: bench/snapshot_bulkgen.py OUT --mb 1024 [--depth 100:200] [--slots 400] [--seed 1]
"""
import argparse
import random
import struct

PROTO4 = b"\x80\x04"
MARK, STOP, EMPTY_DICT, EMPTY_LIST, SETITEMS, APPENDS, MEMOIZE = b"(", b".", b"}", b"]", b"u", b"e", b"\x94"
NEWFALSE = b"\x89"


class Writer:
    def __init__(self, f):
        self.f = f
        self.memo = 0
        self.buf = []
        self.size = 0

    def put(self, b):
        self.buf.append(b)
        self.size += len(b)
        if len(self.buf) > 65536:
            self.flush()

    def flush(self):
        self.f.write(b"".join(self.buf))
        self.buf = []

    def memoize(self):
        """MEMOIZE after the object on the stack; returns its memo index."""
        self.put(MEMOIZE)
        self.memo += 1
        return self.memo - 1


def get(i):
    return b"h" + bytes([i]) if i < 256 else b"j" + struct.pack("<I", i)


def text(s):
    b = s.encode()
    assert len(b) < 256
    return b"\x8c" + bytes([len(b)]) + b


def integer(v):
    if 0 <= v < 256:
        return b"K" + bytes([v])
    if 0 <= v < 65536:
        return b"M" + struct.pack("<H", v)
    if -(1 << 31) <= v < (1 << 31):
        return b"J" + struct.pack("<i", v)
    n = (v.bit_length() + 8) // 8  # two's complement with its sign bit, as pickle's LONG1
    return b"\x8a" + bytes([n]) + v.to_bytes(n, "little", signed=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--mb", type=float, default=1024)
    ap.add_argument("--depth", default="100:200")
    ap.add_argument("--slots", type=int, default=400)
    ap.add_argument("--frames", type=int, default=600)
    ap.add_argument("--stacks", type=int, default=400)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    rnd = random.Random(a.seed)
    dmin, dmax = (int(x) for x in a.depth.split(":"))
    target = int(a.mb * 1024 * 1024)
    slot = 64 << 20
    base = 0x7F0000000000
    sizes = [512, 1024, 4096, 65536, 1 << 20, 2 << 20, 3 << 20, 8 << 20, 20 << 20, 40 << 20]

    with open(a.out, "wb") as f:
        w = Writer(f)
        w.put(PROTO4 + EMPTY_DICT)
        w.memoize()
        w.put(MARK)
        keys = {}

        def key(k):
            # A dict key: written and memoized the first time, referenced after (as the pickler does).
            if k in keys:
                w.put(get(keys[k]))
            else:
                w.put(text(k))
                keys[k] = w.memoize()

        # The frame dicts are written (and memoized) where they first occur: the first entry's stack.
        key("device_traces")
        w.put(EMPTY_LIST)
        w.memoize()
        w.put(MARK + EMPTY_LIST)  # device 0's trace
        w.memoize()
        w.put(MARK)

        names = ["forward_%d" % (i % 97) for i in range(a.frames)]
        files = ["/work/train.py", "/work/model/transformer.py", "/work/model/attention.py",
                 "/usr/lib/python3/dist-packages/torch/nn/modules/linear.py",
                 "/usr/lib/python3/dist-packages/torch/nn/modules/module.py"]
        frame_memo = []
        t = 1764000000000000
        live = {}  # slot -> (size, stack)
        free_slots = list(range(a.slots))
        entries = 0

        def entry(action, addr, size, stack, first_frames=None):
            nonlocal t, entries
            t += rnd.randrange(1, 50)
            w.put(EMPTY_DICT)
            w.memoize()
            w.put(MARK)
            key("action")
            key(action)  # action names are memoized strings too
            key("addr")
            w.put(integer(addr))
            key("size")
            w.put(integer(size))
            key("stream")
            w.put(b"K\x00")
            key("time_us")
            w.put(integer(t))
            key("frames")
            w.put(EMPTY_LIST)
            w.memoize()
            w.put(MARK)
            if first_frames is not None:
                first_frames()
            else:
                w.put(stack_bytes[stack])
            w.put(APPENDS + SETITEMS)
            entries += 1

        def write_frames():
            # The first entry's stack holds every frame dict once; the others reference them.
            for i in range(a.frames):
                w.put(EMPTY_DICT)
                frame_memo.append(w.memoize())
                w.put(MARK)
                key("name")
                w.put(text(names[i]))
                key("filename")
                w.put(text(files[i % len(files)]))
                key("line")
                w.put(integer(rnd.randrange(1, 2000)))
                w.put(SETITEMS)

        stack_bytes = []
        entry("segment_alloc", base, a.slots * slot, 0, first_frames=write_frames)
        for _ in range(a.stacks):
            d = rnd.randrange(dmin, dmax + 1)
            stack_bytes.append(b"".join(get(frame_memo[rnd.randrange(a.frames)]) for _ in range(d)))

        # The pickler appends a list's items in batches of 1000 (MARK ... APPENDS).
        batched = 0
        while w.size < target:
            if entries - batched >= 1000:
                w.put(APPENDS + MARK)
                batched = entries
            if free_slots and (not live or rnd.random() < 0.55):
                s = free_slots.pop(rnd.randrange(len(free_slots)))
                size = rnd.choice(sizes) + rnd.randrange(0, 4096) // 512 * 512
                stack = rnd.randrange(a.stacks)
                live[s] = (size, stack)
                entry("alloc", base + s * slot, size, stack)
            else:
                s = rnd.choice(tuple(live))
                size, stack = live.pop(s)
                entry("free_requested", base + s * slot, size, stack)
                entry("free_completed", base + s * slot, size, stack)
                free_slots.append(s)
        w.put(APPENDS + APPENDS)  # device 0's entries, then the list of devices

        # The segment at the snapshot: every slot, its block active when the slot is live.
        key("segments")
        w.put(EMPTY_LIST)
        w.memoize()
        w.put(MARK + EMPTY_DICT)
        w.memoize()
        w.put(MARK)
        for k, v in (("device", 0), ("address", base), ("total_size", a.slots * slot), ("stream", 0)):
            key(k)
            w.put(integer(v))
        key("segment_type")
        w.put(text("large"))
        key("is_expandable")
        w.put(NEWFALSE)
        key("blocks")
        w.put(EMPTY_LIST)
        w.memoize()
        w.put(MARK)
        for s in range(a.slots):
            parts = []
            if s in live:
                size, stack = live[s]
                parts.append((size, size, "active_allocated", stack))
                parts.append((slot - size, 0, "inactive", None))
            else:
                parts.append((slot, 0, "inactive", None))
            for size, requested, state, stack in parts:
                w.put(EMPTY_DICT)
                w.memoize()
                w.put(MARK)
                key("size")
                w.put(integer(size))
                key("requested_size")
                w.put(integer(requested))
                key("state")
                w.put(text(state))
                key("frames")
                w.put(EMPTY_LIST)
                w.memoize()
                if stack is not None:
                    w.put(MARK + stack_bytes[stack] + APPENDS)
                w.put(SETITEMS)
        w.put(APPENDS + SETITEMS + APPENDS)  # blocks, the segment's items, the segments
        key("allocator_settings")
        w.put(EMPTY_DICT)
        w.memoize()
        w.put(SETITEMS + STOP)
        w.flush()
    print("%s: %.1f MiB, %d entries" % (a.out, w.size / 1048576.0, entries))


if __name__ == "__main__":
    main()
