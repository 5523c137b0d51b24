#!/usr/bin/env python3
"""Writes the small snapshot fixtures of tst_snapshotreader (run from this folder; committed output).

tiny_pN.pickle: one snapshot, pickled with protocol N (2..5), whose figures are worked out by hand in
tst_snapshotreader.cpp: device 0 starts with the free of an allocation made before the history
(256 bytes), maps a 4096-byte segment, allocates 1024 and 512 bytes (peak 1536 + 0 after the early
free), frees the 512 (free_requested, free_completed) and ends with an OOM; device 1 has no history
and one segment whose active block (requested 2000 bytes) is alive all along. The frame dict fB is
one object in two stacks, so the pickle refers to it through the memo.
legacy_list.pickle: torch 1.x's _snapshot(), the list of segments alone.
"""
import pickle

fA = {"filename": "/work/model.py", "line": 10, "name": "forward"}
fB = {"filename": "/work/train.py", "line": 42, "name": "step"}
fC = {"filename": "/work/model.py", "line": 20, "name": "attention"}
fU = {"filename": "??", "line": 0, "name": "unwind::unwind"}  # hidden by memory_viz's frameFilter


def snapshot():
    t = 1764000000000000
    dev0 = [
        {"action": "free_completed", "addr": 0x9000, "size": 256, "stream": 0, "time_us": t + 1, "frames": []},
        {"action": "segment_alloc", "addr": 0x1000, "size": 4096, "stream": 0, "time_us": t + 2, "frames": [fB]},
        {"action": "alloc", "addr": 0x1000, "size": 1024, "stream": 0, "time_us": t + 3, "frames": [fU, fA, fB],
         "compile_context": "[0/0]"},
        {"action": "alloc", "addr": 0x1400, "size": 512, "stream": 7, "time_us": t + 4, "frames": [fC, fB],
         "user_metadata": "fwd"},
        {"action": "free_requested", "addr": 0x1400, "size": 512, "stream": 7, "time_us": t + 5, "frames": [fC, fB]},
        {"action": "free_completed", "addr": 0x1400, "size": 512, "stream": 7, "time_us": t + 6, "frames": [fC, fB]},
        {"action": "oom", "device_free": 777, "size": 1 << 30, "stream": 0, "time_us": t + 7, "frames": [fA]},
    ]
    segments = [
        {"device": 0, "address": 0x1000, "total_size": 4096, "allocated_size": 1024, "active_size": 1024,
         "requested_size": 1000, "stream": 0, "segment_type": "small", "segment_pool_id": (0, 0),
         "is_expandable": False, "frames": [fB],
         "blocks": [{"address": 0x1000, "size": 1024, "requested_size": 1000, "state": "active_allocated",
                     "frames": [fU, fA, fB]},
                    {"address": 0x1400, "size": 3072, "requested_size": 0, "state": "inactive", "frames": []}]},
        {"device": 1, "address": 0x200000, "total_size": 2 << 20, "allocated_size": 2048, "active_size": 2048,
         "requested_size": 2000, "stream": 0, "segment_type": "large", "segment_pool_id": (1, 3),
         "is_expandable": True, "frames": [],
         "blocks": [{"address": 0x200000, "size": 2048, "requested_size": 2000, "state": "active_allocated",
                     "frames": [fC]},
                    {"address": 0x200800, "size": (2 << 20) - 2048, "requested_size": 0, "state": "inactive",
                     "frames": []}]},
    ]
    return {"segments": segments, "device_traces": [dev0, []],
            "allocator_settings": {"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True", "max_split_size": -1},
            "external_annotations": [{"stage": "START", "name": "fwd", "device": 0, "time_us": t + 3}]}


for proto in (2, 3, 4, 5):
    with open("tiny_p%d.pickle" % proto, "wb") as f:
        pickle.dump(snapshot(), f, protocol=proto)
with open("legacy_list.pickle", "wb") as f:
    pickle.dump(snapshot()["segments"], f, protocol=2)
