"""Stand-ins for what torch_geometric.profile reads on GPU machines, for tests/scripts/
pyg_profile_check.py on a machine without one: device events and allocator statistics of
torch.cuda / torch.xpu, a tensor that says it is on GPU 0, pytorch_memlab's LineProfiler,
intel_extension_for_pytorch's XPU statistics, an nvidia-smi program, and CUDA's profiler and NVTX
calls. Each gives fixed figures, so that the reference and kinetoscope can be compared exactly.
"""
import contextlib
import os
import sys
import types

import torch

# One GPU's allocator peaks in bytes, as torch.cuda.memory_stats() names them.
PEAKS = {"allocated_bytes.all.peak": 3 * 2 ** 20 + 123456, "reserved_bytes.all.peak": 8 * 2 ** 20,
         "active_bytes.all.peak": 5 * 2 ** 20 + 777}
ELAPSED_MS = 12.5
# nvidia-smi's two GPUs: (free MiB, used MiB); the second reports no used figure.
SMI = [("80000 MiB", "1234 MiB"), ("40000 MiB", "[N/A]")]

_SMI_SCRIPT = """#!/bin/sh
# A fake nvidia-smi: answers --query-gpu=FIELD[,FIELD] --format=csv for two GPUs.
[ -n "${FAKE_SMI_FAIL:-}" ] && { echo "NVIDIA-SMI has failed" >&2; exit 9; }
for a in "$@"; do case "$a" in --query-gpu=*) q="${a#--query-gpu=}";; esac; done
header=""; row0=""; row1=""
IFS=,
for f in $q; do
    case "$f" in
        memory.free) h="memory.free [MiB]"; v0="%s"; v1="%s";;
        memory.used) h="memory.used [MiB]"; v0="%s"; v1="%s";;
        *) echo "unknown field $f" >&2; exit 2;;
    esac
    header="${header:+$header, }$h"; row0="${row0:+$row0, }$v0"; row1="${row1:+$row1, }$v1"
done
printf '%%s\\n%%s\\n%%s\\n' "$header" "$row0" "$row1"
""" % (SMI[0][0], SMI[1][0], SMI[0][1], SMI[1][1])


def write_nvidia_smi(bin_dir):
    os.makedirs(bin_dir, exist_ok=True)
    path = os.path.join(bin_dir, "nvidia-smi")
    with open(path, "w") as f:
        f.write(_SMI_SCRIPT)
    os.chmod(path, 0o755)
    return path


class FakeEvent:
    def __init__(self, enable_timing=False):
        self.enable_timing = enable_timing

    def record(self, stream=None):
        pass

    def elapsed_time(self, other):
        return ELAPSED_MS


class GpuTensor(torch.Tensor):
    """A CPU tensor whose get_device() says GPU 0: what profileit reads to pick the device."""

    def get_device(self):
        return 0


class LineProfiler:
    """pytorch_memlab.LineProfiler as PyG drives it; its line records carry the fixed peaks."""

    def __init__(self, *functions, target_gpu=0):
        self.target_gpu = target_gpu
        self._code_infos = {}
        self._raw_line_records = []

    def enable(self):
        # Two lines: the second's peaks are the highest, as after a forward pass's last layer.
        self._raw_line_records = [{k: v // 2 for k, v in PEAKS.items()}, dict(PEAKS)]

    def disable(self):
        pass

    def add_function(self, func):
        pass


class _IpexXpu:
    resets = 0

    @staticmethod
    def memory_stats_as_nested_dict(device=0):
        return {k.split(".")[0]: {"all": {"peak": v}} for k, v in PEAKS.items()}

    @classmethod
    def reset_peak_memory_stats(cls, device=0):
        cls.resets += 1


@contextlib.contextmanager
def patched(obj, **attrs):
    """Sets attributes of obj (a module or a namespace) and restores them on exit."""
    missing = object()
    saved = {k: getattr(obj, k, missing) for k in attrs}
    for k, v in attrs.items():
        setattr(obj, k, v)
    try:
        yield obj
    finally:
        for k, v in saved.items():
            if v is missing:
                delattr(obj, k)
            else:
                setattr(obj, k, v)


@contextlib.contextmanager
def gpu_machine(bin_dir):
    """Everything profileit("cuda"/"xpu") and the memory readers reach for on a GPU machine."""
    write_nvidia_smi(bin_dir)
    memlab = types.ModuleType("pytorch_memlab")
    memlab.LineProfiler = LineProfiler
    ipex = types.ModuleType("intel_extension_for_pytorch")
    ipex.xpu = _IpexXpu
    # torch 1.13 has no torch.xpu; newer torch has one without a device.
    xpu = getattr(torch, "xpu", None) or types.SimpleNamespace(is_available=lambda: False)
    old_path = os.environ["PATH"]
    os.environ["PATH"] = bin_dir + os.pathsep + old_path
    sys.modules.update({"pytorch_memlab": memlab, "intel_extension_for_pytorch": ipex})
    try:
        with patched(torch.cuda, Event=FakeEvent, synchronize=lambda device=None: None,
                     reset_peak_memory_stats=lambda device=None: None,
                     memory_stats=lambda device=None: dict(PEAKS)), \
                patched(xpu, Event=FakeEvent, synchronize=lambda device=None: None), \
                patched(torch, xpu=xpu):
            yield
    finally:
        os.environ["PATH"] = old_path
        del sys.modules["pytorch_memlab"], sys.modules["intel_extension_for_pytorch"]


class CudaProfilerCalls:
    """torch.cuda with CUDA available, its profiler start/stop and NVTX pushes counted."""

    def __init__(self):
        self.starts = self.stops = 0
        self.pushes = []
        self.depth = 0

    @contextlib.contextmanager
    def installed(self):
        calls = self

        class Rt:
            def cudaProfilerStart(self):  # noqa: N802 - CUDA's name
                calls.starts += 1

            def cudaProfilerStop(self):  # noqa: N802
                calls.stops += 1

        def push(msg):
            calls.pushes.append(msg)
            calls.depth += 1

        def pop():
            calls.depth -= 1

        nvtx = types.SimpleNamespace(range_push=push, range_pop=pop)
        with patched(torch.cuda, is_available=lambda: True, cudart=lambda: Rt(), nvtx=nvtx,
                     synchronize=lambda device=None: None):
            yield self
