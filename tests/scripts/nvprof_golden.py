"""Golden check of `kinetoscope summary` on nvprof databases against torch 1.13 itself.

torch.autograd.profiler.parse_nvprof_trace reads the database built by nvprof_db.py; after
EventList._build_tree() its key_averages() rows are the reference. Two torch 1.13 bugs are undone
on torch's side, not copied on ours: it takes nvprof's nanoseconds for microseconds (so its numbers
are divided by 1000 here), and its table() cannot print device time carried by non-legacy CPU
events (so rows are compared, not tables). A third, key_averages() failing on the events' missing
stacks, is worked around below.

Usage: nvprof_golden.py KINETOSCOPE WORKDIR
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nvprof_db  # noqa: E402

from torch.autograd import profiler  # noqa: E402


def torch_rows(path):
    events = profiler.EventList(profiler.parse_nvprof_trace(path))
    events._build_tree()
    # parse_nvprof_trace leaves stack None, on which torch 1.13's key_averages() fails; an empty
    # stack is what every other path gives and changes no number.
    for e in events:
        e.stack = []
    rows = []
    for a in events.key_averages():
        rows.append((a.key, a.self_cpu_time_total, a.cpu_time_total, a.self_cuda_time_total,
                     a.cuda_time_total, a.count))
    return rows


def kinetoscope_rows(binary, path):
    out = subprocess.run([binary, "summary", path, "--time-unit", "us", "--row-limit", "-1"],
                         check=True, capture_output=True, text=True).stdout
    lines = out.splitlines()
    header = lines[1]
    assert "Self CUDA" in header, "no CUDA columns: " + header
    rows = []
    for line in lines[3:]:
        if line.startswith("---"):
            break
        cells = re.split(r"\s{2,}", line.strip())
        # Name, Self CPU %, Self CPU, CPU total %, CPU total, CPU time avg, Self CUDA, Self CUDA %,
        # CUDA total, CUDA time avg, # of Calls
        rows.append((cells[0], cells[2], cells[4], cells[6], cells[8], int(cells[10])))
    return rows


def us(ns):
    return "%.3fus" % (ns / 1000.0)


def main():
    binary, work = sys.argv[1], sys.argv[2]
    failures = 0
    for steps in (1, 2, 5):
        path = os.path.join(work, "emit_nvtx_%d.nvvp" % steps)
        nvprof_db.build(path, steps)
        expected = [(k, us(a), us(b), us(c), us(d), n) for k, a, b, c, d, n in torch_rows(path)]
        got = kinetoscope_rows(binary, path)
        if expected != got:
            failures += 1
            print("MISMATCH for %s (%d steps)" % (path, steps))
            for i in range(max(len(expected), len(got))):
                e = expected[i] if i < len(expected) else None
                g = got[i] if i < len(got) else None
                if e != g:
                    print("  row %d torch: %s\n         kinetoscope: %s" % (i, e, g))
        else:
            print("ok: %d steps, %d rows, %d with CUDA time" %
                  (steps, len(got), sum(1 for r in got if r[4] != "0.000us")))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
