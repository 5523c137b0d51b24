#!/usr/bin/env python3
"""Compares `kinetoscope analyze --csv` output with TraceLens's own published CSVs.

usage: analyze_tracelens_check.py OURS_DIR REFERENCE_DIR

Tolerances (relative): gpu_timeline 0.5%; ops_summary_by_category, ops_summary and kernel_summary
totals per category / op 1%; perf-model rows (same op name and parameters) GFLOPS, Data Moved and
TFLOPS/s 2%. Prints the largest relative error per file and column; exits 1 on any violation.

Deliberate differences from TraceLens (docs/analyze.md):
  * Reduce: TraceLens reads dim/keepdim from Concrete Inputs as Python ints/bools, but Kineto writes
    strings, so TraceLens always reduces to one output element. Kinetoscope parses them, so
    `num_output_elems` is left out of the row key (Data Moved then differs by the output size).
  * Normalization: TraceLens tests `Input Dims[i] is not None` for weight/bias, which is always true
    in Kineto traces (absent tensors are []), and `bool("False")` for batch norm's training flag;
    Kinetoscope tests for a non-empty shape and the text "True". So Kinetoscope may split one
    TraceLens row into affine / non-affine rows. The key then leaves out is_affine and has_bias:
    GFLOPS and Data Moved are compared with the Kinetoscope row that has TraceLens's flags (when
    there is one), and instead of TFLOPS/s mean the merged rows' call count and total kernel time are
    compared (1%), plus their call-weighted TFLOPS/s mean (2%).
    RMS norm's FLOPs depend on is_affine, so its split rows compare only by count and kernel time.
  * Values TraceLens writes as floats because pandas widened a column (num_channels '16.0') compare
    as numbers.
"""
import csv
import math
import os
import sys

SKIP_PARAMS = set()
# TraceLens reports Kinetoscope does not write (docs/analyze.md); not compared.
NOT_WRITTEN = {"ops_unique_args.csv", "unified_perf_summary.csv", "short_kernels_summary.csv", "coll_analysis.csv"}
SKIP_PARAMS_BY_SHEET = {"Reduce_fwd": {"num_output_elems"}, "Reduce_bwd": {"num_output_elems"}}
MERGE_PARAMS_BY_SHEET = {"Normalization": {"is_affine", "has_bias"}}


def read(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def num(s):
    try:
        return float(s)
    except (TypeError, ValueError):
        return None


def norm_value(s, column=""):
    s = (s or "").strip()
    if column == "param: bias" and s == "[]":
        return "False"  # TraceLens's CONV_bwd writes `dims[3] and ...`, i.e. [] for no bias
    if s in ("", "None", "nan"):
        return ""
    v = num(s)
    return repr(v) if v is not None else s


def rel(ours, ref):
    if ref == 0:
        return 0.0 if abs(ours) < 1e-9 else math.inf
    return abs(ours - ref) / abs(ref)


class Report:
    def __init__(self, name):
        self.name = name
        self.max_err = {}
        self.failures = []

    def check(self, file, column, key, ours, ref, tol, abs_floor=0.0):
        if ours is None or ref is None:
            if (ours is None) != (ref is None):
                self.failures.append(f"{file} {column} {key}: ours={ours} ref={ref}")
            return
        err = rel(ours, ref)
        if abs(ours - ref) <= abs_floor:
            err = min(err, 0.0)
        k = (file, column)
        self.max_err[k] = max(self.max_err.get(k, 0.0), err)
        if err > tol:
            self.failures.append(f"{file} {column} {key}: ours={ours} ref={ref} ({err * 100:.3f}%)")


def compare_timeline(rep, ours_dir, ref_dir):
    ref = {r["type"]: num(r["time ms"]) for r in read(os.path.join(ref_dir, "gpu_timeline.csv"))}
    ours = {r["type"]: num(r["time ms"]) for r in read(os.path.join(ours_dir, "gpu_timeline.csv"))}
    # Near-zero rows (exposed times of a few ns) get a floor of 1 ns, below the trace's resolution.
    for k, v in ref.items():
        rep.check("gpu_timeline.csv", "time ms", k, ours.get(k), v, 0.005, abs_floor=1e-6)


def totals(rows, key, value):
    out = {}
    for r in rows:
        out[r.get(key, "")] = out.get(r.get(key, ""), 0.0) + (num(r[value]) or 0.0)
    return out


def compare_totals(rep, file, ours_rows, ref_rows, key, value, tol=0.01):
    ref = totals(ref_rows, key, value)
    ours = totals(ours_rows, key, value)
    for k, v in ref.items():
        rep.check(file, f"{value} by {key}", k, ours.get(k, 0.0), v, tol, abs_floor=1e-3)
    for k in ours:
        if k not in ref and ours[k] > 1e-3:
            rep.failures.append(f"{file} {key} {k!r}: ours={ours[k]} but TraceLens has no such row")


def compare_perf(rep, sheet, ours_rows, ref_rows):
    file = sheet + ".csv"
    skip = SKIP_PARAMS | SKIP_PARAMS_BY_SHEET.get(sheet, set()) | MERGE_PARAMS_BY_SHEET.get(sheet, set())
    merged = MERGE_PARAMS_BY_SHEET.get(sheet, set())
    params = [c for c in (ref_rows[0].keys() if ref_rows else []) if c.startswith("param: ")]
    params = [c for c in params if c[len("param: "):] not in skip]
    ours_params = set(ours_rows[0].keys()) if ours_rows else set()
    params = [c for c in params if c in ours_params]

    def key(r):
        return (r["name"],) + tuple(norm_value(r.get(c), c) for c in params)

    ours = {}
    for r in ours_rows:
        ours.setdefault(key(r), []).append(r)
    for r in ref_rows:
        cands = ours.get(key(r))
        if not cands:
            if num(r.get("GFLOPS_first")) == 0 and num(r.get("Data Moved (MB)_first")) is None:
                print(f"  note: {file}: {r['name']} recorded without shapes; TraceLens writes an empty model row")
            elif not r["name"].startswith("aten::") and not any(o["name"] == r["name"] for o in ours_rows):
                print(f"  note: {file}: {r['name']} has no Kinetoscope model (docs/analyze.md)")
            else:
                rep.failures.append(f"{file}: no row for {key(r)}")
            continue
        same = [o for o in cands if all(norm_value(o.get("param: " + m)) == norm_value(r.get("param: " + m))
                                        for m in merged)]
        first = same[0] if same else None
        for col in ("GFLOPS_first", "Data Moved (MB)_first"):
            if sheet in SKIP_PARAMS_BY_SHEET and col == "Data Moved (MB)_first":
                continue  # differs by design (see module docstring)
            if first is not None:
                rep.check(file, col, key(r)[:3], num(first.get(col)), num(r.get(col)), 0.02)
        if len(cands) == 1 and first is not None:
            rep.check(file, "TFLOPS/s_mean", key(r)[:3], num(first.get("TFLOPS/s_mean")),
                      num(r.get("TFLOPS/s_mean")), 0.02)
            continue
        count = sum(num(o["name_count"]) for o in cands)
        ksum = sum(num(o["Kernel Time (µs)_sum"]) or 0.0 for o in cands)
        tf = [(num(o["TFLOPS/s_mean"]), num(o["name_count"])) for o in cands if num(o["TFLOPS/s_mean"]) is not None]
        rep.check(file, "name_count (merged)", key(r)[:3], count, num(r["name_count"]), 0.0)
        rep.check(file, "Kernel Time (µs)_sum (merged)", key(r)[:3], ksum, num(r["Kernel Time (µs)_sum"]), 0.01)
        # RMS norm's FLOPs depend on is_affine (TraceLens counts the weight multiply for calls without
        # a weight), so the weighted rate only compares where the split rows agree on GFLOPS.
        same_flops = len({norm_value(o.get("GFLOPS_first")) for o in cands}) == 1
        if tf and same_flops and first is not None and sheet not in SKIP_PARAMS_BY_SHEET:
            weighted = sum(a * n for a, n in tf) / sum(n for _, n in tf)
            rep.check(file, "TFLOPS/s_mean (merged, weighted)", key(r)[:3], weighted,
                      num(r.get("TFLOPS/s_mean")), 0.02)


def main():
    ours_dir, ref_dir = sys.argv[1], sys.argv[2]
    rep = Report(os.path.basename(ref_dir.rstrip("/")))
    compare_timeline(rep, ours_dir, ref_dir)
    for name in ("ops_summary_by_category.csv", "ops_summary.csv", "kernel_summary.csv"):
        ref_path = os.path.join(ref_dir, name)
        if not os.path.exists(ref_path):
            continue
        ours_path = os.path.join(ours_dir, name)
        if not os.path.exists(ours_path):
            rep.failures.append(f"{name}: not written")
            continue
        ours_rows, ref_rows = read(ours_path), read(ref_path)
        if name == "ops_summary_by_category.csv":
            compare_totals(rep, name, ours_rows, ref_rows, "op category", "total_direct_kernel_time_ms")
            compare_totals(rep, name, ours_rows, ref_rows, "op category", "Count")
        elif name == "ops_summary.csv":
            compare_totals(rep, name, ours_rows, ref_rows, "name", "total_direct_kernel_time_sum")
            compare_totals(rep, name, ours_rows, ref_rows, "name", "Count")
        else:
            compare_totals(rep, name, ours_rows, ref_rows, "Parent op category", "Kernel duration (µs)_sum")
            if ref_rows and "Parent cpu_op" in ref_rows[0]:
                compare_totals(rep, name, ours_rows, ref_rows, "Parent cpu_op", "Kernel duration (µs)_sum")
            compare_totals(rep, name, ours_rows, ref_rows, "Kernel name", "Kernel duration (µs)_count")
    for f in sorted(os.listdir(ref_dir)):
        sheet = f[:-4]
        if f in ("gpu_timeline.csv", "ops_summary_by_category.csv", "ops_summary.csv", "kernel_summary.csv",
                 "short_kernel_histogram.csv") or not f.endswith(".csv") or f in NOT_WRITTEN or "_kl_overlap" in f:
            continue
        ours_path = os.path.join(ours_dir, f)
        ref_rows = read(os.path.join(ref_dir, f))
        if not os.path.exists(ours_path):
            if all(num(r.get("GFLOPS_first")) == 0 for r in ref_rows):
                print(f"  note: {f}: only shape-less rows in TraceLens's file; not written")
            else:
                rep.failures.append(f"{f}: not written")
            continue
        compare_perf(rep, sheet, read(ours_path), ref_rows)
    ref_hist = read(os.path.join(ref_dir, "short_kernel_histogram.csv"))
    ours_hist = read(os.path.join(ours_dir, "short_kernel_histogram.csv"))
    rep.check("short_kernel_histogram.csv", "total count", "all", sum(num(r["count"]) for r in ours_hist),
              sum(num(r["count"]) for r in ref_hist), 0.01)
    if len(ours_hist) != len(ref_hist):
        rep.failures.append(f"short_kernel_histogram.csv: {len(ours_hist)} bins, TraceLens {len(ref_hist)}")
    for i, (o, r) in enumerate(zip(ours_hist, ref_hist)):
        rep.check("short_kernel_histogram.csv", "bin_start", i, num(o["bin_start"]), num(r["bin_start"]), 0.005)
        rep.check("short_kernel_histogram.csv", "bin_end", i, num(o["bin_end"]), num(r["bin_end"]), 0.005)
        rep.check("short_kernel_histogram.csv", "count per bin", i, num(o["count"]), num(r["count"]), 0.0)

    print(f"== {rep.name}")
    for (file, col), err in sorted(rep.max_err.items()):
        print(f"  max rel err {err * 100:9.4f}%  {file}  {col}")
    for f in rep.failures:
        print("  FAIL:", f)
    return 1 if rep.failures else 0


if __name__ == "__main__":
    sys.exit(main())
