#!/usr/bin/env python3
"""Writes HTA's own critical path results for a trace, the reference tst_criticalpath compares with.

Run with HTA (facebookresearch/HolisticTraceAnalysis, its hta/ folder on PYTHONPATH; pandas and
networkx installed) on a directory that holds the one trace:

    hta_reference.py DIR ANNOTATION INSTANCE > NAME.hta.json

INSTANCE is the instance number HTA's critical_path_analysis() takes ("none" for the whole trace).
Times are in microseconds as HTA has them; event times are relative to the first critical event.
"""
import contextlib
import io
import json
import sys

from hta.trace_analysis import TraceAnalysis

d, ann, inst = sys.argv[1], sys.argv[2], sys.argv[3]
ta = TraceAnalysis(trace_dir=d)
g, ok = ta.critical_path_analysis(rank=0, annotation=ann, instance_id=None if inst == "none" else int(inst))
df = ta.t.get_trace(0)
sym = ta.t.symbol_table.get_sym_table()
edge_types = {}
for u, v in g.edges:
    t = g.edges[u, v]["object"].type.value
    edge_types[t] = edge_types.get(t, 0) + 1
events = sorted((int(df.loc[i, "ts"]), int(df.loc[i, "dur"]), sym[df.loc[i, "name"]]) for i in g.critical_path_events_set)
t0 = events[0][0]
with contextlib.redirect_stdout(io.StringIO()):
    bd = g.get_critical_path_breakdown()
out = {
    "annotation": ann,
    "instance": inst,
    "ok": bool(ok),
    "nodes": len(g.node_list),
    "edges": g.number_of_edges(),
    "edge_types": edge_types,
    "path_nodes": len(g.critical_path_nodes),
    "path_edges": len(g.critical_path_edges_set),
    "length_us": int(sum(e.weight for e in g.critical_path_edges_set)),
    "bound_by_us": {k: int(v) for k, v in bd.groupby("bound_by").duration.sum().items() if k},
    "critical_events": [[ts - t0, dur, name] for ts, dur, name in events],
}
json.dump(out, sys.stdout, indent=1)
print()
