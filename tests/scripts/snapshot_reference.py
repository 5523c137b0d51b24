#!/usr/bin/env python3
"""Reference for `kinetoscope snapshot --json --series --top 0`: the same figures computed from
pickle.load of the file, written from memory_viz's definitions (torch/utils/viz/MemoryViz.js,
process_alloc_data and frameFilter) without looking at the C++ code, then compared with the JSON.

usage: snapshot_reference.py SNAPSHOT.pickle CLI.json     exit 0 when every figure matches
"""
import json
import pickle
import sys

OMIT_NAMES = ["unwind::unwind", "CapturedTraceback::gather", "gather_with_cpp", "_start",
              "__libc_start_main", "PyEval_", "PyObject_", "PyFunction_"]
OMIT_FILES = ["core/boxing", "/Register", "/Redispatch", "pythonrun.c", "Modules/main.c", "Objects/call.c",
              "Objects/methodobject.c", "pycore_ceval.h", "ceval.c", "cpython/abstract.h"]
NO_FRAMES = "<no frames recorded>"


def shown(f):
    return not any(o in f["name"] for o in OMIT_NAMES) and not any(o in f["filename"] for o in OMIT_FILES)


def text(f):
    return "%s:%d:%s" % (f["filename"], f["line"], f["name"])


def device_reference(snap, device):
    trace = snap["device_traces"][device] if device < len(snap.get("device_traces", [])) else []
    elements = []  # [size, frames, begin, end]; begin None: before the trace; end None: alive at the end
    by_addr = {}
    delta = 0
    deltas = []
    unmatched = 0
    initial = 0
    ooms = []
    for i, e in enumerate(trace):
        a = e["action"]
        if a == "alloc":
            elements.append([e["size"], e.get("frames", []), i, None])
            by_addr[e["addr"]] = len(elements) - 1
            delta += e["size"]
        elif a == "free_completed":
            if e["addr"] in by_addr:
                el = elements[by_addr.pop(e["addr"])]
                el[3] = i
                delta -= el[0]
            else:
                elements.append([e["size"], e.get("frames", []), None, i])
                initial += e["size"]
                delta -= e["size"]
                unmatched += 1
        elif a == "oom":
            ooms.append(i)
        deltas.append(delta)
    reserved_end = 0
    for seg in snap["segments"]:
        if seg.get("device", 0) != device:
            continue
        reserved_end += seg["total_size"]
        addr = seg["address"]
        for b in seg["blocks"]:
            if b["state"] == "active_allocated" and addr not in by_addr:
                size = b.get("requested_size") or b["size"]
                elements.append([size, b.get("frames", []), None, None])
                initial += size
            addr += b["size"]
    live = [initial + d for d in deltas]
    peak, peak_at = initial, None
    for i, v in enumerate(live):
        if v > peak:
            peak, peak_at = v, i
    reserved = [0] * len(trace)
    r = reserved_end
    for i in range(len(trace) - 1, -1, -1):
        reserved[i] = r
        a = trace[i]["action"]
        if a in ("segment_alloc", "segment_map"):
            r -= trace[i]["size"]
        elif a in ("segment_free", "segment_unmap"):
            r += trace[i]["size"]

    def alive(el):
        if peak_at is None:
            return el[2] is None
        return (el[2] is None or el[2] <= peak_at) and (el[3] is None or el[3] > peak_at)

    top, per_frame = {}, {}
    at_peak = [el for el in elements if alive(el)]
    for size, frames, _, _ in at_peak:
        first = next((text(f) for f in frames if shown(f)), NO_FRAMES)
        g = top.setdefault(first, [0, 0])
        g[0] += size
        g[1] += 1
        for t in set(text(f) for f in frames):
            g = per_frame.setdefault(t, [0, 0])
            g[0] += size
            g[1] += 1
    oom_out = []
    for i in ooms:
        e = trace[i]
        first = next((text(f) for f in e.get("frames", []) if shown(f)), NO_FRAMES)
        oom_out.append({"entry": i, "requested": e["size"], "device_free": e["device_free"],
                        "allocated": live[i], "reserved": reserved[i], "top_frame": first})
    return {"device": device, "entries": len(trace), "allocations": len(elements), "initial_bytes": initial,
            "peak_bytes": peak, "peak_entry": peak_at, "unmatched_frees": unmatched,
            "alive_at_peak": len(at_peak), "final_reserved": reserved_end,
            "reserved_at_peak": reserved[peak_at] if peak_at is not None else None,
            "top_frames_at_peak": top, "frames_at_peak": per_frame, "ooms": oom_out,
            "live_after": live, "reserved_after": reserved}


def main():
    with open(sys.argv[1], "rb") as f:
        snap = pickle.load(f)
    if isinstance(snap, list):
        snap = {"segments": snap, "device_traces": []}
    got = json.load(open(sys.argv[2]))
    devices = max([len(snap.get("device_traces", []))] + [s.get("device", 0) + 1 for s in snap["segments"]])
    errors = []
    if len(got["devices"]) != devices:
        errors.append("devices: %d, reference %d" % (len(got["devices"]), devices))
    for d in range(min(devices, len(got["devices"]))):
        ref, cli = device_reference(snap, d), got["devices"][d]
        for k in ("entries", "allocations", "initial_bytes", "peak_bytes", "peak_entry", "unmatched_frees",
                  "alive_at_peak", "final_reserved", "live_after", "reserved_after"):
            if ref[k] != cli[k]:
                errors.append("device %d %s: %s, reference %s" % (d, k, str(cli[k])[:200], str(ref[k])[:200]))
        if ref["reserved_at_peak"] is not None and ref["reserved_at_peak"] != cli["reserved_at_peak"]:
            errors.append("device %d reserved_at_peak: %s, reference %s" % (d, cli["reserved_at_peak"], ref["reserved_at_peak"]))
        for k in ("top_frames_at_peak", "frames_at_peak"):
            mine = {g["frame"]: [g["bytes"], g["count"]] for g in cli[k]}
            if mine != ref[k]:
                diff = [f for f in set(mine) | set(ref[k]) if mine.get(f) != ref[k].get(f)]
                errors.append("device %d %s differ on %d frames, e.g. %s: %s, reference %s" % (
                    d, k, len(diff), diff[0], mine.get(diff[0]), ref[k].get(diff[0])))
        mine_ooms = [{k: o[k] for k in ("entry", "requested", "device_free", "allocated", "reserved", "top_frame")}
                     for o in cli["ooms"]]
        if mine_ooms != ref["ooms"]:
            errors.append("device %d ooms: %s, reference %s" % (d, mine_ooms, ref["ooms"]))
        print("device %d: %d entries, peak %d bytes at entry %s, %d frames at the peak: %s" % (
            d, ref["entries"], ref["peak_bytes"], ref["peak_entry"], len(ref["frames_at_peak"]),
            "ok" if not errors else "MISMATCH"))
    for e in errors:
        print("FAIL:", e, file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
