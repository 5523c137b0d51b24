"""A small PyG-style benchmark script run against torch_geometric.profile's behaviour (argv[1] ==
"reference": tests/scripts/pyg_reference.py on torch.profiler) or with kinetoscope swapped in
("kinetoscope"), in the working directory argv[3]. Writes what both must agree on to argv[2] as
JSON: {"same": {...}, "own": {...}}. "same" holds names present, files written, CSV columns and
rows, return types, field names and values, printed lines (times masked) and errors as
{"error": type, "mro": [...], "message": ...}; "own" holds what each does its own way (which
profiler recorded, Kinetoscope's ranges), checked by test_pyg_profile.sh on its own.
"""
import collections
import contextlib
import csv
import dataclasses
import io
import json
import math
import os
import re
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pyg_fakes  # noqa: E402

which, out_path, workdir = sys.argv[1:4]
if which == "reference":
    import pyg_reference as profile
else:
    import kinetoscope as profile

# torch_geometric.profile's names: profile.py's 18, the rest of the package's __init__, and
# utils.medibyte_to_megabyte.
NAMES = ["timeit", "profileit", "get_stats_summary", "torch_profile", "xpu_profile", "trace_handler",
         "print_time_total", "rename_profile_file", "save_profile_data", "read_from_memlab",
         "get_gpu_memory_from_nvidia_smi", "get_gpu_memory_from_ipex", "byte_to_megabyte", "format_prof_time",
         "GPUStats", "CUDAStats", "GPUStatsSummary", "CUDAStatsSummary",
         "benchmark", "nvtxit", "count_parameters", "get_model_size", "get_data_size", "get_cpu_memory_from_gc",
         "get_gpu_memory_from_gc", "medibyte_to_megabyte"]

same, own = {}, {}
os.makedirs(workdir, exist_ok=True)
os.chdir(workdir)
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 4))
x = torch.randn(50, 16)


def error(fn):
    try:
        fn()
    except Exception as e:
        return {"error": type(e).__name__, "mro": [c.__name__ for c in type(e).__mro__], "message": str(e)}
    return "no error"


def files():
    return sorted(os.listdir("."))


@contextlib.contextmanager
def new_dir(name):
    os.makedirs(name)
    os.chdir(name)
    try:
        yield
    finally:
        os.chdir("..")


def captured(fn):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        fn()
    return buf.getvalue()


def plain(value):
    """JSON-comparable: dataclasses as [type, fields, values], nan as "nan"."""
    if dataclasses.is_dataclass(value):
        return [type(value).__name__, [f.name for f in dataclasses.fields(value)],
                plain(list(dataclasses.astuple(value)))]
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, float) and math.isnan(value):
        return "nan"
    return value


def recorder():
    if torch.autograd._profiler_enabled():
        return "torch.profiler"
    ks = sys.modules.get("kinetoscope")
    return "kinetoscope" if ks is not None and ks.recording() else "none"


same["names"] = [n for n in NAMES if hasattr(profile, n)]

# --- timeit --------------------------------------------------------------------------------------
t = profile.timeit(log=False)
with t:
    inside = hasattr(t, "duration")
    model(x)
    t.reset()
    after_reset = t.duration > 0
    del t.duration
    after_del = hasattr(t, "duration")
same["timeit"] = [inside, after_reset, after_del, t.duration > 0]


def logged():
    with profile.timeit() as t:
        model(x)
        t.reset()


lines = captured(logged).splitlines()
same["timeit_log"] = [bool(re.fullmatch(r"Time: \d+\.\d{8}s", ln)) for ln in lines]
with profile.timeit(log=False, avg_time_divisor=4) as t:
    time.sleep(0.04)
same["timeit_divisor"] = 0.009 < t.duration < 0.03


@profile.timeit(log=False)
def decorated(a):
    return a + 1


same["timeit_decorator"] = decorated(1)
same["timeit_reset_unstarted"] = error(lambda: profile.timeit(log=False).reset())

# --- torch_profile, trace_handler, print_time_total, rename_profile_file --------------------------


def table_facts(text):
    """Column titles, whether rows are in descending Self CPU order, the total line."""
    lines = text.splitlines()
    rules = [i for i, ln in enumerate(lines) if ln.startswith("---")]
    titles = [c.strip() for c in lines[rules[0] + 1].split("  ") if c.strip()]
    col = titles.index("Self CPU")
    unit = {"us": 1, "ms": 1e3, "s": 1e6}

    def self_cpu(ln):
        v = [c.strip() for c in re.split(r"\s{2,}", ln.strip()) if c.strip()][col]
        m = re.fullmatch(r"([\d.]+)(us|ms|s)", v)
        return float(m.group(1)) * unit[m.group(2)]

    values = [self_cpu(ln) for ln in lines[rules[1] + 1:rules[2]]]
    return {"titles": titles, "sorted": values == sorted(values, reverse=True) and len(values) > 0,
            "total": any(ln.startswith("Self CPU time total:") for ln in lines)}


with new_dir("torch_profile"):
    seen = {}

    def run():
        with profile.torch_profile():
            seen["recorder"] = recorder()
            model(x)

    out = captured(run)
    same["torch_profile_files"] = files()
    same["torch_profile_table"] = table_facts(out)
    own["torch_profile_recorder"] = seen["recorder"]
    trace = json.load(open("timeline.json"))
    events = trace["traceEvents"] if isinstance(trace, dict) else trace
    same["timeline_has_linear"] = any(e.get("name") == "aten::linear" for e in events)
    profile.rename_profile_file("GraphSAGE", "cpu")
    same["renamed_files"] = files()
    same["rename_missing"] = error(lambda: profile.rename_profile_file("again"))
    open("timeline.json", "w").close()
    same["rename_not_str"] = error(lambda: profile.rename_profile_file("run", 3))

with new_dir("no_export"):
    def run():
        with profile.torch_profile(export_chrome_trace=False):
            model(x)

    same["no_export_table"] = table_facts(captured(run))["total"]
    same["no_export_files"] = files()

with new_dir("csv"):
    csv_data = collections.defaultdict(list)

    def run():
        with profile.torch_profile(csv_data=csv_data, write_csv="prof"):
            for _ in range(3):
                model(x).sum().backward()

    captured(run)
    columns = list(csv_data)
    with open("prof.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(columns)
        w.writerows(zip(*(csv_data[c] for c in columns)))
    rows = list(csv.DictReader(open("prof.csv")))
    same["csv_files"] = files()
    same["csv_columns"] = columns
    same["csv_rows"] = len(rows)
    same["csv_types"] = {c: sorted({type(v).__name__ for v in csv_data[c]}) for c in columns}
    self_cpu = csv_data["SELF CPU"]
    same["csv_sorted"] = self_cpu == sorted(self_cpu, reverse=True)
    same["csv_total_pct_ge_self_pct"] = all(a >= b for a, b in zip(csv_data["CPU TOTAL %"], csv_data["SELF CPU %"]))
    same["csv_calls_positive"] = all(c > 0 for c in csv_data["# OF CALLS"])
    other = collections.defaultdict(list)

    def run_other():
        with profile.torch_profile(csv_data=other, write_csv="other"):
            model(x)

    captured(run_other)
    same["csv_other_mode"] = dict(other)

with new_dir("raising"):
    def run():
        with profile.torch_profile():
            model(x)
            raise KeyError("in the block")

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        same["raising_error"] = error(run)
    same["raising_files"] = files()

with new_dir("xpu"):
    same["xpu_profile"] = error(lambda: profile.xpu_profile().__enter__())
    same["xpu_profile_no_export"] = error(lambda: profile.xpu_profile(export_chrome_trace=False).__enter__())
    same["xpu_files"] = files()

# --- save_profile_data, format_prof_time on given rows ---------------------------------------------
Row = collections.namedtuple("Row", "key self_cpu_time_total cpu_time_total self_cuda_time_total count")
given = [Row("aten::addmm", 3000.0, 4000.0, 500.0, 2), Row("aten::relu", 1000.0, 1000.0, 250.0, 2),
         Row("a", 500.0, 9000.0, 0.0, 1), Row("b", 250.0, 250.0, 0.0, 1), Row("c", 125.0, 125.0, 0.0, 1),
         Row("d", 125.0, 125.0, 0.0, 1)]
for use_cuda in (False, True):
    data = collections.defaultdict(list)
    profile.save_profile_data(data, given, use_cuda)
    same[f"save_profile_data_cuda{int(use_cuda)}"] = dict(data)
same["save_profile_data_plain_dict"] = error(lambda: profile.save_profile_data({}, given, False))
same["format_prof_time"] = [profile.format_prof_time(v) for v in (1234567.0, 0.0, 999.0, 1500.0)]

# --- profileit ------------------------------------------------------------------------------------


def train(m, inp):
    return float(m(inp).sum())


same["profileit_cpu_device"] = error(lambda: profile.profileit("cpu")(train)(model, x))
same["profileit_not_module"] = error(lambda: profile.profileit("cuda")(train)(x, model))
same["profileit_no_tensor"] = error(lambda: profile.profileit("cuda")(lambda m: 0)(model))
same["profileit_cpu_tensor"] = error(lambda: profile.profileit("cuda")(train)(model, x))
same["profileit_xpu_cpu_tensor"] = error(lambda: profile.profileit("xpu")(train)(model, x))

gpu_x = x.as_subclass(pyg_fakes.GpuTensor)
with pyg_fakes.gpu_machine(os.path.abspath("fake-bin")):
    cuda_runs = [profile.profileit("cuda")(train)(model, gpu_x) for _ in range(3)]
    same["profileit_cuda_result"] = [r[0] == train(model, x) for r in cuda_runs]
    same["profileit_cuda_stats"] = plain(cuda_runs[0][1])
    same["summary_cuda"] = plain(profile.get_stats_summary([r[1] for r in cuda_runs]))
    xpu_runs = [profile.profileit("xpu")(train)(model, inp=gpu_x) for _ in range(2)]
    same["profileit_xpu_stats"] = plain(xpu_runs[0][1])
    same["summary_xpu"] = plain(profile.get_stats_summary([r[1] for r in xpu_runs]))
    same["summary_mixed"] = plain(profile.get_stats_summary([cuda_runs[0][1], xpu_runs[0][1]]))
    same["summary_one"] = plain(profile.get_stats_summary([cuda_runs[0][1]]))
    same["nvidia_smi"] = [plain(profile.get_gpu_memory_from_nvidia_smi()),
                          plain(profile.get_gpu_memory_from_nvidia_smi(device=1)),
                          plain(profile.get_gpu_memory_from_nvidia_smi(0, digits=0))]
    same["nvidia_smi_no_gpu"] = error(lambda: profile.get_gpu_memory_from_nvidia_smi(device=2))
    os.environ["FAKE_SMI_FAIL"] = "1"
    same["nvidia_smi_failing"] = error(lambda: profile.get_gpu_memory_from_nvidia_smi())
    del os.environ["FAKE_SMI_FAIL"]
    resets = pyg_fakes._IpexXpu.resets
    same["ipex"] = plain(profile.get_gpu_memory_from_ipex())
    same["ipex_digits"] = plain(profile.get_gpu_memory_from_ipex(0, digits=4))
    same["ipex_resets_peaks"] = pyg_fakes._IpexXpu.resets - resets
    lp = pyg_fakes.LineProfiler(target_gpu=0)
    lp.enable()
    same["memlab"] = plain(profile.read_from_memlab(lp))
same["fake_bin_removed_from_path"] = "fake-bin" not in os.environ["PATH"]
same["summary_empty"] = error(lambda: profile.get_stats_summary([]))
os.environ["PATH"], saved_path = os.path.abspath("empty-bin"), os.environ["PATH"]
same["nvidia_smi_missing"] = error(lambda: profile.get_gpu_memory_from_nvidia_smi())
os.environ["PATH"] = saved_path
same["ipex_missing"] = error(lambda: profile.get_gpu_memory_from_ipex())
same["memlab_missing"] = error(lambda: profile.read_from_memlab(object()))

# --- utils ----------------------------------------------------------------------------------------
same["byte_to_megabyte"] = [profile.byte_to_megabyte(2 ** 20), profile.byte_to_megabyte(123456789, 3),
                            profile.byte_to_megabyte(0)]
same["medibyte_to_megabyte"] = [profile.medibyte_to_megabyte(1 / 1.0485), profile.medibyte_to_megabyte(1000, 1)]
lin = torch.nn.Linear(32, 128)
same["count_parameters"] = [profile.count_parameters(lin), type(profile.count_parameters(lin)).__name__]
lin.bias.requires_grad_(False)
same["count_parameters_frozen_bias"] = profile.count_parameters(lin)
with new_dir("model_size"):
    size = profile.get_model_size(torch.nn.Linear(32, 128, bias=False))
    same["model_size"] = [32 * 128 * 4 <= size < 32 * 128 * 4 + 2000, type(size).__name__]
    same["model_size_files"] = files()


class Data:
    """torch_geometric.data.Data as get_data_size reads it: `stores`, mappings of attributes."""

    def __init__(self, **attrs):
        self.stores = [attrs]


class SparseTensor:
    """torch_sparse.SparseTensor as get_data_size reads it: its CSR tensors."""

    def __init__(self, n, nnz):
        self.rowptr, self.col = torch.zeros(n + 1, dtype=torch.long), torch.zeros(nnz, dtype=torch.long)

    def csr(self):
        return self.rowptr, self.col, None


feat = torch.randn(10, 128)
same["data_size"] = profile.get_data_size(Data(x=feat, y=feat, edge_index=torch.zeros(2, 30, dtype=torch.long),
                                               names=["a", "b"], num=3))
same["data_size_sparse"] = profile.get_data_size(Data(x=feat, adj_t=SparseTensor(10, 100)))
before = profile.get_cpu_memory_from_gc()
kept = torch.randn(10, 128)
same["cpu_memory_from_gc_delta"] = profile.get_cpu_memory_from_gc() - before
# gpu_x (50 x 16 floats) says it is on GPU 0; nothing says GPU 1.
same["gpu_memory_from_gc"] = [profile.get_gpu_memory_from_gc(), profile.get_gpu_memory_from_gc(device=1)]

# --- benchmark ------------------------------------------------------------------------------------


def add(a, b):
    return a + b


def pair(a, b):
    return a * 2, b * 3


def mask(text):
    return re.sub(r"\d+\.\d+s", lambda m: re.sub(r"\d", "9", m.group(0)), text)


a, b = torch.randn(10), torch.randn(10)
bench = {}
bench["forward"] = mask(captured(lambda: profile.benchmark([add], (a, b), num_steps=2, num_warmups=1)))
bench["backward"] = mask(captured(lambda: profile.benchmark([add, pair], (a, b), num_steps=1, num_warmups=1,
                                                            backward=True)))
bench["per_step"] = mask(captured(lambda: profile.benchmark([add], [lambda: (torch.randn(4), torch.randn(4))],
                                                            num_steps=3, num_warmups=2, func_names=["fresh"],
                                                            per_step=True, backward=True)))
same["benchmark"] = bench
same["benchmark_pyg_header"] = "| Name   | Forward   | Backward   | Total   |" in bench["backward"]
same["benchmark_errors"] = [error(lambda: profile.benchmark([add], (a, b), num_steps=0)),
                            error(lambda: profile.benchmark([add], (a, b), num_steps=1, num_warmups=0)),
                            error(lambda: profile.benchmark([add], (a, b), num_steps=1, func_names=["x", "y"]))]

# --- nvtxit ---------------------------------------------------------------------------------------


def nvtx_functions():
    """Freshly decorated functions (nvtxit counts calls per decorated function): call_a calls
    call_b; step has one warmup call and two recorded ones."""
    @profile.nvtxit()
    def call_b():
        return 42

    @profile.nvtxit()
    def call_a():
        return call_b()

    @profile.nvtxit("named", n_warmups=1, n_iters=2)
    def step(i):
        return i * 2

    return call_a, step


call_a, step = nvtx_functions()
same["nvtxit_no_cuda"] = [call_a(), call_a.__name__, [step(i) for i in range(4)]]
call_a, step = nvtx_functions()
calls = pyg_fakes.CudaProfilerCalls()
with calls.installed():
    call_a()
    same["nvtxit_cuda_steps"] = [step(i) for i in range(4)]
same["nvtxit_cuda"] = [calls.pushes, calls.starts, calls.stops, calls.depth]

# --- Kinetoscope's own recording: the helpers' ranges appear in a kinetoscope.profile window --------
if which == "kinetoscope":
    with profile.profile(activities=[profile.ProfilerActivity.CPU]) as prof:
        with profile.timeit(log=False):
            model(x)
        _, step = nvtx_functions()
        for i in range(4):
            step(i)
        with pyg_fakes.gpu_machine(os.path.abspath("fake-bin")):
            profile.profileit("cuda")(train)(model, gpu_x)
    counts = collections.Counter(e.name for e in prof.events())
    own["ranges"] = {k: counts.get(k, 0) for k in ("timeit", "named_0", "named_1", "named_2", "named_3", "train")}
    with profile.profile(activities=[profile.ProfilerActivity.CPU]) as prof:
        captured(lambda: profile.benchmark([add], (a, b), num_steps=2, num_warmups=1, backward=True))
    counts = collections.Counter(e.name for e in prof.events())
    own["benchmark_ranges"] = {k: counts.get(k, 0) for k in ("add", "add.backward")}

with open(out_path, "w") as f:
    json.dump({"same": same, "own": own}, f, indent=1, sort_keys=True)
