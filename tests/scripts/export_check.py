#!/usr/bin/python3
"""Checks a `kinetoscope export` output against its source trace with Python's own json module.

usage: export_check.py SOURCE EXPORTED [EXPORTED ...]

Independent of Kinetoscope's reader: both files are parsed by Python (numbers as exact decimals),
and the events of the export are compared with the source's, phase by phase:

* every 'X' of the source (plus every matched 'B'/'E' pair) is an 'X' of the export with the same
  pid, tid, ts, dur, name, cat and args (key order and values);
* every 'i'/'I' is an 'i' with the same fields and scope;
* every 's'/'f' flow event is there with the same id, pid, tid, ts, cat, "bp";
* every numeric series of every 'C' event is one 'C' event of the export;
* the 'M' events say the same thing: for each process (and each thread that has events) the last
  process_name/labels/sort_index and thread_name/sort_index of the source;
* every top-level key has the same value, Kineto's key order is used, the gzip output is a single
  member, and the per-phase event counts agree (printed).

Normalisations, all documented choices of the writer: pids/tids written as digit strings become
numbers; "args": {} is the same as no args; 'I' is written 'i'; a missing "s" is "t"; a missing
"dur" is 0; a legacy bare array is written as an object with only "traceEvents".
"""

import collections
import decimal
import gzip
import json
import sys
import zlib

D = decimal.Decimal


def load(path):
    with open(path, 'rb') as f:
        raw = f.read()
    if raw[:2] == b'\x1f\x8b':
        d = zlib.decompressobj(31)
        text = d.decompress(raw) + d.flush()
        if d.unused_data:
            raise SystemExit(f'{path}: more than one gzip member ({len(d.unused_data)} bytes after the first)')
        if text != gzip.decompress(raw):
            raise SystemExit(f'{path}: zlib and gzip disagree')
        raw = text
    # Exact numbers: ts of 2020 traces (epoch microseconds) do not survive a double times 1000.
    return json.loads(raw, parse_float=D)


def ns(v):
    """Microseconds as the reader keeps them: integer ns, the fourth decimal rounding half up."""
    if v is None:
        return None
    if isinstance(v, str):
        v = D(v)
    return int(D(v).scaleb(3).quantize(D(1), rounding=decimal.ROUND_HALF_UP))


def key(v):
    if isinstance(v, str) and v and (v.isdigit() or (v[0] == '-' and v[1:].isdigit())) and len(v) <= 19:
        return int(v)
    return v


def norm(v):
    """A hashable form of a JSON value; floats compare by their double value, types are kept."""
    if isinstance(v, D):
        return ('float', float(v))
    if isinstance(v, bool):
        return ('bool', v)
    if isinstance(v, int):
        return ('int', v)
    if isinstance(v, list):
        return ('list', tuple(norm(x) for x in v))
    if isinstance(v, dict):
        return ('dict', tuple((k, norm(x)) for k, x in v.items()))
    return (type(v).__name__, v)


def args_of(e):
    a = e.get('args')
    return norm(a if isinstance(a, dict) else {})


def name_of(e):
    n = e.get('name')
    if n is None or isinstance(n, str):
        return n
    return json.dumps(n)


def events_of(doc):
    return doc if isinstance(doc, list) else doc.get('traceEvents', [])


def summarize(doc):
    """Per phase, a multiset of comparable tuples; plus the effective 'M' state."""
    out = collections.defaultdict(collections.Counter)
    open_b = collections.defaultdict(list)
    meta = {}
    rows = set()
    for e in events_of(doc):
        if not isinstance(e, dict) or 'ph' not in e:
            continue
        ph = e['ph']
        pid, tid = key(e.get('pid', 0)), key(e.get('tid', 0))
        if ph in ('X', 'B', 'i', 'I'):
            rows.add((pid, tid))
        if ph == 'X' and 'ts' in e:
            dur = max(ns(e.get('dur', 0)) or 0, 0)
            out['X'][(pid, tid, ns(e['ts']), dur, name_of(e), e.get('cat'), args_of(e))] += 1
        elif ph == 'B' and 'ts' in e:
            open_b[(pid, tid)].append(e)
        elif ph == 'E' and open_b[(pid, tid)] and 'ts' in e:
            b = open_b[(pid, tid)].pop()
            args = b.get('args') if b.get('args') else e.get('args')
            dur = max(ns(e['ts']) - ns(b['ts']), 0)
            out['X'][(pid, tid, ns(b['ts']), dur, name_of(b), b.get('cat'), norm(args or {}))] += 1
        elif ph in ('i', 'I') and 'ts' in e:
            out['i'][(pid, tid, ns(e['ts']), name_of(e), e.get('cat'), e.get('s', 't'), args_of(e))] += 1
        elif ph in ('s', 'f') and 'ts' in e and 'id' in e:
            bp = e.get('bp') if ph == 'f' else None
            out[ph][(e['id'], pid, tid, ns(e['ts']), e.get('cat'), bp)] += 1
        elif ph == 'C' and 'ts' in e:
            for series, v in (e.get('args') or {}).items():
                if isinstance(v, (int, D)) and not isinstance(v, bool):
                    out['C'][(pid, name_of(e), series, ns(e['ts']), float(v))] += 1
        elif ph == 'M':
            a = e.get('args') or {}
            n = e.get('name')
            if n in ('process_name', 'process_labels', 'process_sort_index'):
                field = {'process_name': 'name', 'process_labels': 'labels', 'process_sort_index': 'sort_index'}[n]
                meta[(n, pid)] = norm(a.get(field))
            elif n in ('thread_name', 'thread_sort_index'):
                field = 'name' if n == 'thread_name' else 'sort_index'
                meta[(n, pid, tid)] = norm(a.get(field))
    # The model names only threads that have events.
    meta = {k: v for k, v in meta.items() if len(k) == 2 or (k[1], k[2]) in rows}
    return out, meta


def count_phases(doc):
    return collections.Counter(e.get('ph') for e in events_of(doc) if isinstance(e, dict))


def check_top_level(src, exp, path):
    if not isinstance(exp, dict):
        raise SystemExit(f'{path}: the export is not a JSON object')
    keys = list(exp.keys())
    src_keys = [k for k in src.keys() if k != 'traceEvents'] if isinstance(src, dict) else []
    if sorted(k for k in keys if k != 'traceEvents') != sorted(src_keys):
        raise SystemExit(f'{path}: top-level keys {keys} vs source {src_keys}')
    for k in src_keys:
        if src[k] != exp[k]:
            raise SystemExit(f'{path}: top-level value of {k!r} differs')
    placed_front = [k for k in ('schemaVersion', 'deviceProperties') if k in keys]
    placed_back = [k for k in ('displayTimeUnit', 'baseTimeNanoseconds', 'traceEvents', 'traceName') if k in keys]
    others = [k for k in src_keys if k not in placed_front and k not in placed_back]
    if keys != placed_front + others + placed_back:
        raise SystemExit(f'{path}: key order {keys} is not Kineto\'s')


def main():
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    src = load(sys.argv[1])
    want, want_meta = summarize(src)
    src_phases = count_phases(src)
    for path in sys.argv[2:]:
        exp = load(path)
        check_top_level(src, exp, path)
        got, got_meta = summarize(exp)
        for ph in sorted(set(want) | set(got)):
            if want[ph] != got[ph]:
                missing = list((want[ph] - got[ph]).items())[:3]
                extra = list((got[ph] - want[ph]).items())[:3]
                raise SystemExit(f'{path}: {ph!r} events differ\n  only in source: {missing}\n  only in export: {extra}')
        if want_meta != got_meta:
            diff = {k: (want_meta.get(k), got_meta.get(k)) for k in set(want_meta) | set(got_meta)
                    if want_meta.get(k) != got_meta.get(k)}
            raise SystemExit(f'{path}: M events differ: {list(diff.items())[:5]}')
        exp_phases = count_phases(exp)
        # Phases that map one to one keep their counts exactly.
        for ph in ('s', 'f'):
            if src_phases[ph] != exp_phases[ph]:
                raise SystemExit(f'{path}: {src_phases[ph]} {ph!r} events in the source, {exp_phases[ph]} exported')
        if src_phases['i'] + src_phases['I'] != exp_phases['i']:
            raise SystemExit(f'{path}: instant counts differ')
        # 'X' gains the source's B/E pairs; 'C' has one event per numeric series of each source event.
        for ph in ('X', 'C'):
            if sum(want[ph].values()) != exp_phases[ph]:
                raise SystemExit(f'{path}: {sum(want[ph].values())} {ph!r} expected, {exp_phases[ph]} exported')
        print(f'{path}: ok; source phases {dict(sorted(src_phases.items()))}, '
              f'export {dict(sorted(exp_phases.items()))}')


if __name__ == '__main__':
    main()
