"""Compares the traces of the GPU check (tests/gpu/check.sh) against torch.profiler's, step for step.

usage: compare.py --dir DIR   (DIR holds torch/kinetoscope/record/live/windows/stopped .pt.trace.json[.gz]
                               and the runs' .out files)

For the measured steps (record_function "ks_step_<i>", i >= 0) of each trace against torch's:
kernel names and counts per name, memcpy/memset counts, each stream's kernel order within a step,
median kernel durations per name (the same kernels on the same GPU: a few % apart), every GPU op
linked to its launch by correlation id, and the step-time overhead of each way of recording against
the plain run. Then the live sessions: steps arrived one by one with GPU work already received, and
the stopped run kept what it had. Prints a report; exit status 1 when a check fails.
"""
import argparse
import collections
import gzip
import json
import os
import re
import statistics
import sys

GPU_CATS = ("kernel", "gpu_memcpy", "gpu_memset")
LAUNCH_CATS = ("cuda_runtime", "cuda_driver")
STEP = re.compile(r"ks_step_(\d+)$")

failures = []


def check(ok, what):
    print(("  ok    " if ok else "  FAIL  ") + what)
    if not ok:
        failures.append(what)


def load(path):
    for p in (path, path + ".gz"):
        if os.path.exists(p):
            opener = gzip.open if p.endswith(".gz") else open
            with opener(p, "rt") as f:
                return json.load(f)
    return None


class Trace:
    def __init__(self, name, doc):
        self.name = name
        ev = [e for e in doc.get("traceEvents", []) if isinstance(e, dict)]
        self.x = [e for e in ev if e.get("ph") == "X"]
        self.gpu = [e for e in self.x if e.get("cat") in GPU_CATS]
        self.launches = {}
        for e in self.x:
            if e.get("cat") in LAUNCH_CATS:
                c = e.get("args", {}).get("correlation")
                if c is not None:
                    self.launches[c] = e
        self.flows = sum(1 for e in ev if e.get("cat") == "ac2g" and e.get("ph") == "s")
        self.steps = {}
        for e in self.x:
            m = STEP.match(str(e.get("name", "")))
            if m and e.get("cat") != "gpu_user_annotation":
                self.steps[int(m.group(1))] = (e["ts"], e["ts"] + e["dur"])
        # Each GPU op belongs to the step its launch was made in.
        self.by_step = collections.defaultdict(list)
        self.unlinked = []
        for g in self.gpu:
            launch = self.launches.get(g.get("args", {}).get("correlation"))
            if launch is None:
                self.unlinked.append(g)
                continue
            for i, (a, b) in self.steps.items():
                if a <= launch["ts"] <= b:
                    self.by_step[i].append(g)
                    break

    def measured(self, cat=None):
        return [g for i in sorted(self.by_step) for g in self.by_step[i] if cat is None or g.get("cat") == cat]

    def counts(self, cat):
        return collections.Counter(g["name"] for g in self.measured(cat))

    def stream_order(self, step):
        order = collections.defaultdict(list)
        for g in sorted(self.by_step.get(step, []), key=lambda g: g["ts"]):
            if g.get("cat") == "kernel":
                order[g.get("args", {}).get("stream", g.get("tid"))].append(g["name"])
        return order

    def median_durations(self):
        d = collections.defaultdict(list)
        for g in self.measured("kernel"):
            d[g["name"]].append(g["dur"])
        return {k: statistics.median(v) for k, v in d.items()}


def timing(path):
    try:
        for line in open(path):
            if line.startswith("timing: "):
                return json.loads(line[len("timing: "):])
    except OSError:
        pass
    return None


def compare(ref, ours):
    print(f"\n{ours.name} against {ref.name}")
    print(f"  steps {len(ours.steps)} / {len(ref.steps)}; GPU ops in measured steps {len(ours.measured())} / "
          f"{len(ref.measured())}; launches {len(ours.launches)}; ac2g flows {ours.flows}")
    check(set(ours.steps) == set(ref.steps), f"measured steps {sorted(ours.steps)}")
    for cat in GPU_CATS:
        a, b = ref.counts(cat), ours.counts(cat)
        missing = {k: v for k, v in a.items() if b.get(k) != v}
        extra = {k: v for k, v in b.items() if k not in a}
        check(not missing and not extra, f"{cat}: {len(b)} names, {sum(b.values())} ops (torch: {len(a)} names, "
              f"{sum(a.values())} ops)" + (f"; differ: {dict(list(missing.items())[:5])} extra: "
                                           f"{dict(list(extra.items())[:5])}" if missing or extra else ""))
    bad_order = []
    for i in sorted(ref.by_step):
        ra, oa = ref.stream_order(i), ours.stream_order(i)
        if sorted(map(len, ra.values())) != sorted(map(len, oa.values())) or \
                sorted(map(tuple, ra.values())) != sorted(map(tuple, oa.values())):
            bad_order.append(i)
    check(not bad_order, f"each stream's kernel order equal in every step" +
          (f" (not in steps {bad_order})" if bad_order else ""))
    rd, od = ref.median_durations(), ours.median_durations()
    ratios = sorted((od[k] / rd[k], k) for k in rd if k in od and rd[k] > 0)
    if ratios:
        total_r = sum(g["dur"] for g in ours.measured("kernel")) / max(1e-9, sum(g["dur"] for g in ref.measured("kernel")))
        mid = statistics.median(r for r, _ in ratios)
        print(f"  kernel median durations, ours/torch per name: median {mid:.3f}, min {ratios[0][0]:.3f} "
              f"({ratios[0][1][:60]}), max {ratios[-1][0]:.3f} ({ratios[-1][1][:60]}); total kernel time {total_r:.3f}")
        check(0.95 <= mid <= 1.05, "median duration ratio within 5%")
    check(not ours.unlinked, f"every GPU op linked to its launch ({len(ours.unlinked)} not)")
    ext = [g for g in ours.measured("kernel") if "External id" not in g.get("args", {})]
    check(not ext or ours.name == "windows", f"every kernel carries an External id ({len(ext)} without)")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    args = ap.parse_args()
    d = args.dir
    docs = {n: load(os.path.join(d, f"{n}.pt.trace.json")) for n in
            ("torch", "kinetoscope", "record", "live", "windows", "stopped")}
    traces = {n: Trace(n, doc) for n, doc in docs.items() if doc is not None}
    print("traces: " + ", ".join(f"{n} ({len(t.x)} slices, {len(t.gpu)} GPU ops)" for n, t in traces.items()))
    ref = traces.get("torch")
    gpu_run = ref is not None and ref.gpu
    if ref is None:
        check(False, "torch.profiler's trace")
    elif not gpu_run:
        print("torch's trace has no GPU activity: a CPU dry run; the GPU comparisons are skipped")
        for n in ("kinetoscope", "record"):
            if n in traces:
                check(set(traces[n].steps) == set(ref.steps), f"{n}: measured steps {sorted(traces[n].steps)}")
    else:
        check(not ref.unlinked, f"torch: every GPU op linked to its launch ({len(ref.unlinked)} not)")
        for n in ("kinetoscope", "record"):
            if n in traces:
                compare(ref, traces[n])
            else:
                check(False, f"{n}: no trace")

    print("\nstep time (median of the measured steps, device synchronized at each step's end)")
    plain = timing(os.path.join(d, "plain.out"))
    for n in ("plain", "torch", "kinetoscope", "record"):
        t = timing(os.path.join(d, f"{n}.out"))
        if t is None:
            check(False, f"{n}: no timing line")
            continue
        rel = f", {t['median_s'] / plain['median_s']:.3f} x plain" if plain else ""
        print(f"  {n:12s} {t['median_s'] * 1e3:8.3f} ms{rel}")

    print("\nlive sessions")
    for n in ("live", "record"):
        try:
            lines = [l for l in open(os.path.join(d, f"{n}.out")) if l.startswith("[kinetoscope] step ")]
        except OSError:
            lines = []
        got = [int(m.group(1)) for m in (re.search(r"(\d+) GPU ops received", l) for l in lines) if m]
        print(f"  {n}: {len(lines)} steps printed as they arrived; GPU ops received by then: {got}")
        check(len(lines) >= 8, f"{n}: steps arrived during the run")
        if gpu_run:
            check(len(got) >= 2 and got[0] > 0 and got == sorted(got) and got[-1] > got[0],
                  f"{n}: GPU work arrived while the program ran")
    for n in ("live", "windows", "stopped"):
        t = traces.get(n)
        if t is None:
            check(False, f"{n}: no trace")
            continue
        kernels = sum(1 for g in t.gpu if g.get("cat") == "kernel")
        print(f"  {n}: {len(t.steps)} ks_step ranges, {kernels} kernels, {len(t.unlinked)} GPU ops unlinked")
        if n == "stopped" and not gpu_run:
            # A CPU dry run on a loaded machine may stop before the first measured step: what
            # arrived until then must still be in the trace.
            check(len(t.x) > 0, f"{n}: what arrived kept ({len(t.x)} slices)")
        else:
            check(len(t.steps) > 0, f"{n}: steps kept")
        if gpu_run:
            check(kernels > 0, f"{n}: kernels kept")
    print(f"\n{len(failures)} checks failed" + (": " + "; ".join(failures) if failures else ""))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
