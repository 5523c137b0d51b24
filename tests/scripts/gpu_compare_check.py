"""tests/gpu/compare.py on made-up traces: a recording equal to torch's but for a 1% duration spread
passes, and each way a recording can differ from torch's (a kernel missing, an extra memcpy, two
kernels of a stream swapped, durations 20% longer, a kernel without its launch, GPU work that reached
the live session only at its end) fails with its own line. Nothing here needs a GPU or torch.

usage: gpu_compare_check.py COMPARE_PY WORKDIR
"""
import copy
import json
import os
import subprocess
import sys

compare_py, work = sys.argv[1], sys.argv[2]
KERNELS = ["volta_sgemm_128x64_nn", "vectorized_elementwise_kernel<relu>", "flash_fwd_kernel",
           "reduce_kernel<sum>", "multi_tensor_apply_kernel<adamw>"]


def trace(scale=1.0, steps=3, warmup=0):
    ev = [{"ph": "M", "name": "process_name", "pid": 0, "args": {"name": "GPU 0"}}]
    corr = 1
    t = 1000
    for i in list(range(-warmup, 0)) + list(range(steps)):
        start = t
        gpu_t = t + 500
        for j, k in enumerate(KERNELS + ["Memcpy HtoD (Pinned -> Device)"]):
            ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
                       "ts": t, "dur": 5, "args": {"correlation": corr, "External id": corr}})
            dur = (10 + 7 * j) * scale
            cat = "gpu_memcpy" if k.startswith("Memcpy") else "kernel"
            ev.append({"ph": "X", "cat": cat, "name": k, "pid": 0, "tid": 7, "ts": gpu_t, "dur": dur,
                       "args": {"correlation": corr, "stream": 7, "External id": corr, "device": 0}})
            ev.append({"ph": "s", "cat": "ac2g", "id": corr, "pid": 1, "tid": 1, "ts": t, "name": "ac2g"})
            corr += 1
            t += 10
            gpu_t += 100
        t = max(t, gpu_t) + 10
        ev.append({"ph": "X", "cat": "user_annotation", "name": f"ks_step_{i}", "pid": 1, "tid": 1, "ts": start,
                   "dur": t - start, "args": {}})
        t += 50
    return {"traceEvents": ev}


def write(d, name, doc):
    with open(os.path.join(d, f"{name}.pt.trace.json"), "w") as f:
        json.dump(doc, f)


def setup(d, ours, live_gpu=(120, 240, 360, 480, 600, 720, 840, 960)):
    os.makedirs(d, exist_ok=True)
    write(d, "torch", trace())
    for n in ("kinetoscope", "record", "live", "windows", "stopped"):
        write(d, n, ours)
    for n, median in (("plain", 0.010), ("torch", 0.011), ("kinetoscope", 0.0105), ("record", 0.0104)):
        with open(os.path.join(d, f"{n}.out"), "w") as f:
            f.write("step 0 loss 1.0\n")
            f.write("timing: " + json.dumps({"mode": n, "median_s": median, "step_s": [median]}) + "\n")
    for n in ("live", "record"):
        with open(os.path.join(d, f"{n}.out"), "a") as f:
            for i, g in enumerate(live_gpu):
                f.write(f"[kinetoscope] step {i}: 10.000 ms (pid 1), {g} GPU ops received\n")


def run(name, ours, expect, **kw):
    d = os.path.join(work, name)
    setup(d, ours, **kw)
    p = subprocess.run([sys.executable, compare_py, "--dir", d], capture_output=True, text=True)
    fails = [line.strip() for line in p.stdout.splitlines() if line.startswith("  FAIL")]
    if expect is None:
        ok = p.returncode == 0 and not fails
    else:
        ok = p.returncode == 1 and any(expect in f for f in fails)
    print(f"{'ok' if ok else 'WRONG'}: {name}: exit {p.returncode}; {fails[:3]}")
    if not ok:
        print(p.stdout + p.stderr)
    return ok


good = trace(scale=1.01, warmup=2)  # the unmodified script's record also holds the warm-up steps
cases = [("equal", good, None, {})]

missing = copy.deepcopy(good)
flash = [e for e in missing["traceEvents"] if e.get("name") == "flash_fwd_kernel"]
missing["traceEvents"].remove(flash[-1])  # one of the last measured step's
cases.append(("kernel missing", missing, "kernel:", {}))

extra = copy.deepcopy(good)
last = [e for e in extra["traceEvents"] if e.get("cat") == "gpu_memcpy"][-1]
launch = [e for e in extra["traceEvents"] if e.get("cat") == "cuda_runtime"
          and e["args"]["correlation"] == last["args"]["correlation"]][0]
extra["traceEvents"] += [dict(launch, args={"correlation": 99999}),
                         dict(last, name="Memcpy DtoD (Device -> Device)", cat="gpu_memcpy", ts=last["ts"] + 50,
                              args=dict(last["args"], correlation=99999))]
cases.append(("extra memcpy", extra, "gpu_memcpy:", {}))

swapped = copy.deepcopy(good)
ks = [e for e in swapped["traceEvents"] if e.get("cat") == "kernel"]
ks[-1]["ts"], ks[-2]["ts"] = ks[-2]["ts"], ks[-1]["ts"]
cases.append(("stream order", swapped, "kernel order", {}))

cases.append(("slower", trace(scale=1.2, warmup=2), "duration ratio", {}))

unlinked = copy.deepcopy(good)
[e for e in unlinked["traceEvents"] if e.get("cat") == "kernel"][-1]["args"]["correlation"] = 123456
cases.append(("unlinked", unlinked, "linked to its launch", {}))

no_ext = copy.deepcopy(good)
del [e for e in no_ext["traceEvents"] if e.get("cat") == "kernel"][-1]["args"]["External id"]
cases.append(("no external id", no_ext, "External id", {}))

cases.append(("gpu work only at the end", good, "GPU work arrived", {"live_gpu": (0, 0, 0, 0, 0, 0, 0, 960)}))

results = [run(n, o, e, **kw) for n, o, e, kw in cases]
sys.exit(0 if all(results) else 1)
