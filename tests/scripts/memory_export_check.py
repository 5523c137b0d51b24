#!/usr/bin/python3
"""Checks `kinetoscope export-memory` outputs against the source trace, independently of the C++ code.

usage: memory_export_check.py TRACE DEVICE OUT_PREFIX

OUT_PREFIX.json, .json.gz, .raw.json.gz and .html must have been written for DEVICE. The trace is
parsed with Python's json module (times as exact decimals), and:
  - the raw tuples' CREATE/DESTROY times and sizes are exactly the device's [memory] events, in
    epoch ns (baseTimeNanoseconds + ts * 1000), and every tuple has torch's shape;
  - the PREEXISTING bytes are the frees of never-allocated addresses plus, when the trace reports
    Total Allocated, the untouched baseline (Total Allocated before the first event minus those);
  - .json is torch's _coalesce_timeline of the raw tuples, re-implemented here from the spec
    (int(t / 1000) in Python, one row per distinct consecutive time, -1 rows take the smallest
    positive time), and json.dump's exact text;
  - .json.gz decompresses to the same text and its gzip header names the file without ".gz";
  - .html is torch's six lines around a base64 PNG of 1600x960 whose chunks' CRCs and zlib stream
    are intact.
"""
import base64
import decimal
import gzip
import json
import struct
import sys
import zlib

DEVICE_TYPES = ["cpu", "cuda", "mkldnn", "opengl", "opencl", "ideep", "hip", "fpga", "maia", "xla",
                "vulkan", "metal", "xpu", "mps", "meta", "hpu", "ve", "lazy", "ipu", "mtia",
                "privateuseone"]


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def device_name(args):
    t = int(args.get("Device Type", 0))
    name = DEVICE_TYPES[t] if 0 <= t < len(DEVICE_TYPES) else "device%d" % t
    if t == 0:
        return "cpu"
    return "%s:%d" % (name, int(args.get("Device Id", -1)))


def load_trace(path):
    opener = gzip.open if open(path, "rb").read(2) == b"\x1f\x8b" else open
    with opener(path, "rt", encoding="utf-8") as f:
        return json.load(f, parse_float=decimal.Decimal)


def ts_ns(ts):
    # The reader keeps three fractional digits of a microsecond; the shared traces have no more.
    return int((decimal.Decimal(ts) * 1000).to_integral_value(rounding=decimal.ROUND_HALF_UP))


def coalesce(raw):
    times, sizes, t_min = [], [], -1
    for t, action, nbytes, category in raw:
        if t != -1:
            t = int(t / 1000)
        if t > 0 and (t_min == -1 or t < t_min):
            t_min = t
        if not times:
            times.append(t)
            sizes.append([0] * 9)
        elif t != times[-1]:
            times.append(t)
            sizes.append(list(sizes[-1]))
        sizes[-1][category + 1] += nbytes
    return [t_min if t < 0 else t for t in times], sizes


def check_png(png):
    if png[:8] != b"\x89PNG\r\n\x1a\n":
        fail("PNG signature")
    pos, idat, width, height = 8, b"", None, None
    while pos < len(png):
        (length,) = struct.unpack(">I", png[pos:pos + 4])
        kind = png[pos + 4:pos + 8]
        data = png[pos + 8:pos + 8 + length]
        (crc,) = struct.unpack(">I", png[pos + 8 + length:pos + 12 + length])
        if zlib.crc32(kind + data) != crc:
            fail("PNG chunk %r has a bad CRC" % kind)
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", data[:10])
            if (depth, colour) != (8, 2):
                fail("PNG is not 8-bit RGB")
        elif kind == b"IDAT":
            idat += data
        pos += 12 + length
    if (width, height) != (1600, 960):
        fail("PNG is %sx%s, not 1600x960" % (width, height))
    if len(zlib.decompress(idat)) != height * (1 + width * 3):
        fail("PNG pixel data has the wrong size")


def main():
    trace_path, device, prefix = sys.argv[1:4]
    trace = load_trace(trace_path)
    events = trace["traceEvents"] if isinstance(trace, dict) else trace
    base = int(trace.get("baseTimeNanoseconds", 0)) if isinstance(trace, dict) else 0
    mem = [e for e in events if isinstance(e, dict) and e.get("name") == "[memory]"
           and device_name(e.get("args", {})) == device and int(e["args"].get("Bytes", 0)) != 0]
    mem.sort(key=lambda e: decimal.Decimal(e["ts"]))  # stable: file order on ties
    if not mem:
        fail("no [memory] events on %s in %s" % (device, trace_path))

    # Independent Pass A over the events: frees of addresses not live are pre-existing.
    live, preexisting_bytes = {}, 0
    paired_by_size = "Addr" not in mem[0]["args"]
    by_size = {}
    for e in mem:
        a = e["args"]
        b = int(a["Bytes"])
        if paired_by_size:
            stack = by_size.setdefault(abs(b), [])
            if b > 0:
                stack.append(1)
            elif stack:
                stack.pop()
            else:
                preexisting_bytes += -b
        elif b > 0:
            if a["Addr"] in live:
                fail("re-allocation at a live address: this checker does not model it")
            live[a["Addr"]] = b
        elif a["Addr"] in live:
            del live[a["Addr"]]
        else:
            preexisting_bytes += -b
    first_total = next(((i, e) for i, e in enumerate(mem) if "Total Allocated" in e["args"]), None)
    if first_total:
        i, e = first_total
        baseline = int(e["args"]["Total Allocated"]) - sum(int(x["args"]["Bytes"]) for x in mem[:i + 1])
        preexisting_bytes = max(baseline, preexisting_bytes)

    with gzip.open(prefix + ".raw.json.gz", "rt") as f:
        raw = json.load(f)
    for t in raw:
        if not (isinstance(t, list) and len(t) == 4 and all(isinstance(v, int) for v in t)):
            fail("raw tuple %r is not four ints" % (t,))
        if t[1] not in (1, 2, 3, 4) or not 0 <= t[3] <= 7:
            fail("raw tuple %r has a bad action or category" % (t,))
        if (t[0] == -1) != (t[1] == 1):
            fail("raw tuple %r: only PREEXISTING sits at -1" % (t,))
        if (t[1] == 4) != (t[2] < 0) and t[1] != 3:
            fail("raw tuple %r: DESTROY and only DESTROY is negative" % (t,))
    keys = [(t[0], t[2]) for t in raw if t[1] in (2, 4)]
    expected = sorted((base + ts_ns(e["ts"]), int(e["args"]["Bytes"])) for e in mem)
    if sorted(keys) != expected:
        fail("raw CREATE/DESTROY tuples differ from the trace's events on %s" % device)
    if [t[0] for t in raw] != sorted(t[0] for t in raw):
        fail("raw tuples are not sorted by time")
    pre = sum(t[2] for t in raw if t[1] == 1)
    if pre != preexisting_bytes:
        fail("PREEXISTING bytes %d, expected %d" % (pre, preexisting_bytes))

    text = open(prefix + ".json", encoding="utf-8").read()
    times, sizes = coalesce(raw)
    if text != json.dumps([times, sizes]):
        fail(".json differs from torch's coalescing of the raw tuples")
    with open(prefix + ".json.gz", "rb") as f:
        gz = f.read()
    if gzip.decompress(gz).decode("utf-8") != text:
        fail(".json.gz does not hold the .json text")
    flags = gz[3]
    name = gz[10:gz.index(b"\0", 10)] if flags & 8 else b""
    if name.decode() != prefix.rsplit("/", 1)[-1] + ".json":
        fail(".json.gz FNAME is %r" % name)

    lines = open(prefix + ".html", encoding="utf-8").read().split("\n")
    if len(lines) != 6 or lines[0] != "<html>" or lines[5] != "</html>" or lines[2] != "<body>" \
            or lines[4] != "</body>" or lines[1] != '<head><meta charset="utf-8" /><title>GPU Memory ' \
            'Timeline HTML</title></head>':
        fail(".html is not torch's six-line page")
    tail = "' style='max-width:100%;height:auto'>"
    if not (lines[3].startswith("  <img src='data:image/png;base64,") and lines[3].endswith(tail)):
        fail(".html image line")
    check_png(base64.b64decode(lines[3][34:-len(tail)], validate=True))
    print("ok %s %s: %d events, %d rows" % (trace_path.rsplit("/", 1)[-1][:40], device, len(mem), len(times)))


if __name__ == "__main__":
    main()
