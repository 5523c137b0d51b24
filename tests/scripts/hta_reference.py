#!/usr/bin/env python3
# How the HTA values in tests/core/tst_hta.cpp and tests/scripts/test_analyze_hta.sh were obtained:
# HolisticTraceAnalysis (commit f4d0062, its hta/ folder on PYTHONPATH) run on one shared trace
# with Debian 12's pandas 1.5.3 / numpy 1.24 (apt install python3-pandas python3-ijson
# python3-plotly python3-networkx python3-psutil python3-yaml python3-pydot). Not run by the test
# suite (HTA is not a dependency); prints one JSON object.
#   PYTHONPATH=/path/to/HolisticTraceAnalysis python3 hta_reference.py TRACE temporal anno queue membw seq=aten::linear
import sys, os, json, tempfile, logging

import pandas as pd
from hta.trace_analysis import TraceAnalysis
from hta.configs.config import logger
logger.setLevel(logging.ERROR)
path = sys.argv[1]
what = sys.argv[2:] or ['temporal']
d = tempfile.mkdtemp()
name = os.path.basename(path)
if not (name.endswith('.json') or name.endswith('.gz')):
    name += '.json'
os.symlink(os.path.abspath(path), os.path.join(d, name))
ta = TraceAnalysis(trace_dir=d)
rank = ta.t.get_ranks()[0]
out = {}
import traceback
def guard(name, fn):
    try:
        fn()
    except Exception as ex:
        out[name + '_error'] = repr(ex)[:300]
def temporal():
    out['temporal'] = ta.get_temporal_breakdown(visualize=False).to_dict('records')
if 'temporal' in what:
    guard('temporal', temporal)
def anno():
    for g in (True, False):
        df = ta.get_gpu_user_annotation_breakdown(visualize=False, num_kernels=1000, use_gpu_annotation=g)
        out['anno_gpu' if g else 'anno_cpu'] = None if df is None else df.to_dict('records')
if 'anno' in what: guard('anno', anno)
def queue():
    ts = ta.get_queue_length_time_series(ranks=[rank])
    s = ta.get_queue_length_summary(ranks=[rank])
    out['queue_summary'] = None if s is None else {str(k): v for k, v in s.reset_index().to_dict('index').items()}
    if s is not None:
        out['queue_summary'] = s.reset_index().to_dict('records')
        out['queue_summary'] = [{("_".join(map(str,k)) if isinstance(k, tuple) else k): v for k, v in r.items()} for r in out['queue_summary']]
    for m in (1024, 2, 1):
        b = ta.get_time_spent_blocked_on_full_queue(ts, max_queue_length=m)
        out[f'blocked_{m}'] = b.to_dict('records')
    if rank in ts:
        out['queue_ts_len'] = len(ts[rank])
        out['queue_ts_head'] = ts[rank].head(12).to_dict('records')
if 'queue' in what: guard('queue', queue)
def membw():
    s = ta.get_memory_bw_summary(ranks=[rank])
    if s is not None:
        r = s.reset_index().to_dict('records')
        out['membw_summary'] = [{("_".join(map(str,k)) if isinstance(k, tuple) else k): v for k, v in x.items()} for x in r]
    ts = ta.get_memory_bw_time_series(ranks=[rank])
    if rank in ts:
        out['membw_ts_len'] = len(ts[rank])
        out['membw_ts_head'] = ts[rank].head(8).to_dict('records')
if 'membw' in what: guard('membw', membw)
for w in what:
    if w.startswith('seq='):
        op = w[4:]
        def seq():
            df = ta.get_frequent_cuda_kernel_sequences(operator_name=op, output_dir=d, visualize=False, rank=rank)
            out['seq:' + op] = df.head(10).to_dict('records')
            out['seqlen:' + op] = len(df)
        guard('seq:' + op, seq)
print(json.dumps(out, indent=1, default=str))
