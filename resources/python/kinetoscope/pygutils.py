"""torch_geometric.profile's utilities (its utils.py, benchmark.py and nvtx.py): model and data
sizes, memory read from the garbage collector, nvidia-smi and IPEX, the `benchmark` table and
`nvtxit`, with PyG's signatures, return types, printed output and errors (docs/pyg-profile.md).

torch is imported inside the functions, never at import: `import kinetoscope` works without it.
"""
import functools
import gc
import io
import subprocess
import sys
import time
import warnings
from collections.abc import Mapping, Sequence

from .ranges import range as _range


def byte_to_megabyte(value, digits=2):
    """Bytes to MiB (PyG calls them megabytes), rounded to `digits`."""
    return round(value / (1024 * 1024), digits)


def medibyte_to_megabyte(value, digits=2):
    """nvidia-smi's MiB to PyG's "megabytes": PyG scales by 1.0485 (2^20 / 10^6, rounded)."""
    return round(1.0485 * value, digits)


def count_parameters(model):
    """Number of trainable parameters (those with requires_grad) of a torch.nn.Module, an int."""
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


def get_model_size(model):
    """Bytes of the model's state_dict as torch.save writes it. PyG saves it to a randomly named
    file in the working directory and deletes it; saving to memory gives the same figure (up to the
    archive's folder name, which torch derives from the file name) and writes nothing."""
    import torch
    buf = io.BytesIO()
    torch.save(model.state_dict(), buf)
    return buf.getbuffer().nbytes


def _is_sparse_tensor_like(obj):
    # torch_sparse.SparseTensor (PyG sizes it by its CSR form); torch_sparse is not imported
    # here, so anything offering csr() that is not a torch.Tensor stands for it.
    return callable(getattr(obj, "csr", None))


def get_data_size(data):
    """Bytes held by the tensors of a graph object, each storage counted once (by data_ptr).

    PyG takes a torch_geometric Data/HeteroData and walks `data.stores`. Without torch_geometric,
    any object with a `stores` attribute (a list of mappings) is walked the same way; any other
    object is walked itself (a tensor, a mapping, a sequence). torch_sparse SparseTensors count as
    their CSR tensors, as in PyG."""
    import torch
    seen = set()

    def size(obj):
        if isinstance(obj, torch.Tensor):
            ptr = obj.data_ptr()
            if ptr in seen:
                return 0
            seen.add(ptr)
            return obj.numel() * obj.element_size()
        if _is_sparse_tensor_like(obj):
            return size(obj.csr())
        if isinstance(obj, Mapping):
            return sum(size(v) for v in obj.values())
        if isinstance(obj, Sequence) and not isinstance(obj, (str, bytes)):
            return sum(size(v) for v in obj)
        return 0

    stores = getattr(data, "stores", None)
    return size(list(stores) if stores is not None else data)


def _tensor_bytes(keep):
    import torch
    total = 0
    # isinstance on every object the collector tracks touches deprecated torch.distributed
    # attributes on some versions; their warnings are noise here. PyG silences them for the
    # rest of the process; a local filter leaves the caller's warning settings alone.
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", ".*torch.distributed.reduce_op.*")
        for obj in gc.get_objects():
            try:
                if isinstance(obj, torch.Tensor) and keep(obj):
                    total += obj.numel() * obj.element_size()
            except Exception:  # objects whose attributes raise (half-built, proxies) are skipped
                pass
    return total


def get_cpu_memory_from_gc():
    """Bytes of the CPU tensors the garbage collector tracks, an int. (PyG counts every tensor
    that is not CUDA, XPU ones included; only CPU tensors are counted here.)"""
    return _tensor_bytes(lambda t: t.device.type == "cpu")


def get_gpu_memory_from_gc(device=0):
    """Bytes of the tensors on GPU `device` (tensor.get_device() == device) that the garbage
    collector tracks, an int."""
    return _tensor_bytes(lambda t: t.get_device() == device)


def get_gpu_memory_from_nvidia_smi(device=0, digits=2):
    """(free, used) memory of GPU `device` in PyG's megabytes (nvidia-smi's MiB × 1.0485, rounded
    to `digits`), as nvidia-smi reports it; a figure nvidia-smi does not give ([N/A]) is 0.
    FileNotFoundError without nvidia-smi, AttributeError for a GPU it does not list (as PyG)."""
    cmd = ["nvidia-smi", "--query-gpu=memory.free,memory.used", "--format=csv"]
    try:
        out = subprocess.check_output(cmd).decode("utf-8")
    except FileNotFoundError:
        raise FileNotFoundError(
            "get_gpu_memory_from_nvidia_smi: nvidia-smi is not on PATH (it comes with the NVIDIA driver)") from None
    rows = []
    for line in out.splitlines()[1:]:  # the first line is the CSV header
        if not line.strip():
            continue
        row = []
        for field in line.split(",")[:2]:
            try:
                row.append(int(field.split()[0]))
            except (IndexError, ValueError):  # "[N/A]", "[Not Supported]"
                row.append(None)
        rows.append(row + [None] * (2 - len(row)))
    if device < 0 or device >= len(rows):
        raise AttributeError(f"GPU {device} not available (found {len(rows)} GPUs)")
    free, used = rows[device]
    return (0 if free is None else medibyte_to_megabyte(free, digits),
            0 if used is None else medibyte_to_megabyte(used, digits))


def get_gpu_memory_from_ipex(device=0, digits=2):
    """(max allocated, max reserved, max active) memory of XPU `device` in MB since the last call,
    whose peaks it then resets: from intel_extension_for_pytorch as in PyG, or, without it, from
    torch.xpu's own allocator statistics (torch >= 2.5). ModuleNotFoundError when neither is there."""
    try:
        import intel_extension_for_pytorch as ipex
    except ImportError:
        ipex = None
    if ipex is not None:
        nested = ipex.xpu.memory_stats_as_nested_dict(device)
        peaks = [nested[k]["all"]["peak"] for k in ("allocated_bytes", "reserved_bytes", "active_bytes")]
        reset = ipex.xpu.reset_peak_memory_stats
    else:
        import torch
        xpu = getattr(torch, "xpu", None)
        if xpu is None or not hasattr(xpu, "memory_stats") or not xpu.is_available():
            raise ModuleNotFoundError(
                "get_gpu_memory_from_ipex: no XPU memory statistics (intel_extension_for_pytorch is not "
                "installed and torch.xpu is not available)", name="intel_extension_for_pytorch")
        flat = xpu.memory_stats(device)
        peaks = [flat[f"{k}.all.peak"] for k in ("allocated_bytes", "reserved_bytes", "active_bytes")]
        reset = xpu.reset_peak_memory_stats
    result = tuple(byte_to_megabyte(p, digits) for p in peaks)
    reset(device)
    return result


# --- benchmark ---------------------------------------------------------------------------------

def _require_grad(x, requires_grad):
    import torch
    # Dense floating tensors get a fresh leaf each step, so a backward pass never reaches the
    # caller's graph; sparse tensors are passed as they are (PyG: is_torch_sparse_tensor).
    if isinstance(x, torch.Tensor) and x.is_floating_point() and x.layout == torch.strided:
        return x.detach().requires_grad_(requires_grad)
    if isinstance(x, list):
        return [_require_grad(v, requires_grad) for v in x]
    if isinstance(x, tuple):
        return tuple(_require_grad(v, requires_grad) for v in x)
    if isinstance(x, dict):
        return {k: _require_grad(v, requires_grad) for k, v in x.items()}
    return x


def _func_name(func):
    if hasattr(func, "__name__"):
        return func.__name__
    if hasattr(func, "__class__"):
        return func.__class__.__name__
    raise ValueError(f"Could not infer name for function '{func}'")


def _psql_table(header, rows):
    """A table in tabulate's "psql" format, which PyG's benchmark prints (every cell here is text,
    so left-aligned; a column is at least its header plus two wide)."""
    widths = [max([len(h) + 2] + [len(r[i]) for r in rows]) for i, h in enumerate(header)]
    rule = "+".join("-" * (w + 2) for w in widths)

    def line(cells):
        return "| " + " | ".join(c.ljust(w) for c, w in zip(cells, widths)) + " |"

    return "\n".join(["+" + rule + "+", line(header), "|" + rule + "|"] + [line(r) for r in rows] +
                     ["+" + rule + "+"])


def benchmark(funcs, args, num_steps, func_names=None, num_warmups=10, backward=False, per_step=False,
              progress_bar=False):
    """Times each of `funcs` over `num_steps` calls after `num_warmups` (forward and, with
    `backward`, the backward pass of the summed outputs against a random gradient) and prints
    PyG's table: Name, Forward[, Backward, Total], totals in seconds to 4 decimals or, with
    `per_step`, per-step means to 6. `args`: one argument tuple for all, a list of one per
    function, or callables making them. Each call and backward pass is also a Kinetoscope range
    (the function's name, "<name>.backward"). progress_bar prints a line per function on stderr."""
    import torch
    if num_steps <= 0:
        raise ValueError(f"'num_steps' must be a positive integer (got {num_steps})")
    if num_warmups <= 0:
        raise ValueError(f"'num_warmups' must be a positive integer (got {num_warmups})")
    if func_names is None:
        func_names = [_func_name(f) for f in funcs]
    if len(funcs) != len(func_names):
        raise ValueError(f"Length of 'funcs' (got {len(funcs)}) and 'func_names' (got {len(func_names)}) "
                         "must be equal")
    args_list = args if isinstance(args, list) else [args] * len(funcs)
    cuda = torch.cuda.is_available()

    def sync():
        if cuda:
            torch.cuda.synchronize()

    rows = []
    for k, (func, inputs, name) in enumerate(zip(funcs, args_list, func_names)):
        if progress_bar:
            print(f"benchmark: {k + 1}/{len(funcs)} {name}", file=sys.stderr, flush=True)
        fwd_range, bwd_range = _range(name), _range(f"{name}.backward")
        t_forward = t_backward = 0.0
        for i in range(num_warmups + num_steps):
            step_args = _require_grad(inputs() if callable(inputs) else inputs, backward)
            sync()
            t0 = time.perf_counter()
            with fwd_range:
                out = func(*step_args)
            sync()
            if i >= num_warmups:
                t_forward += time.perf_counter() - t0
            if backward:
                if isinstance(out, dict):
                    out = out.values()
                if not isinstance(out, torch.Tensor):
                    out = sum(o.sum() for o in out if isinstance(o, torch.Tensor))
                grad = torch.randn_like(out)
                t0 = time.perf_counter()
                with bwd_range:
                    out.backward(grad)
                sync()
                if i >= num_warmups:
                    t_backward += time.perf_counter() - t0
        if per_step:
            row = [name, f"{t_forward / num_steps:.6f}s"]
            if backward:
                row += [f"{t_backward / num_steps:.6f}s", f"{(t_forward + t_backward) / num_steps:.6f}s"]
        else:
            row = [name, f"{t_forward:.4f}s"]
            if backward:
                row += [f"{t_backward:.4f}s", f"{t_forward + t_backward:.4f}s"]
        rows.append(row)
    header = ["Name", "Forward"] + (["Backward", "Total"] if backward else [])
    print(_psql_table(header, rows))


# --- nvtxit ------------------------------------------------------------------------------------

# Whether an nvtxit-wrapped call has started the CUDA profiler: nested wrapped calls leave it
# to the outermost, so the capture range covers it whole.
_cuda_profile_started = False


def nvtxit(name=None, n_warmups=0, n_iters=None):
    """Decorator: after `n_warmups` calls, the next `n_iters` (all when None) are recorded as
    ranges "<name>_<i>" (i counting every call, warmups included; name: the function's). Each is a
    Kinetoscope range; with CUDA it is also an NVTX range, and the outermost such call starts and
    stops the CUDA profiler (cudaProfilerStart/Stop, for `nsys --capture-range=cudaProfilerApi`),
    as PyG does. PyG does nothing without CUDA; here the Kinetoscope ranges are recorded on any
    device."""

    def wrap(func):
        label = name if name is not None else func.__name__
        calls = 0

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            nonlocal calls
            global _cuda_profile_started
            if calls < n_warmups:
                calls += 1
                return func(*args, **kwargs)
            if n_iters is not None and calls >= n_warmups + n_iters:
                return func(*args, **kwargs)
            # The index is taken before the call and the count advanced after it, as PyG does:
            # a recursive call made inside gets the same index.
            index = calls
            torch = sys.modules.get("torch")
            cuda = torch is not None and torch.cuda.is_available()
            with _range(f"{label}_{index}"):
                if not cuda:
                    result = func(*args, **kwargs)
                else:
                    outer = not _cuda_profile_started
                    if outer:
                        _cuda_profile_started = True
                        torch.cuda.cudart().cudaProfilerStart()
                    torch.cuda.nvtx.range_push(f"{label}_{index}")
                    try:
                        result = func(*args, **kwargs)
                    finally:
                        torch.cuda.nvtx.range_pop()
                        if outer:
                            _cuda_profile_started = False
                            torch.cuda.cudart().cudaProfilerStop()
            calls += 1
            return result

        return wrapper

    return wrap
