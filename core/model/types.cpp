#include "core/model/types.h"

#include "core/util/asciitext.h"

#include <algorithm>
#include <cctype>
#include <string>

namespace ks {

EventKind classifyCategory(std::string_view cat)
{
    const std::string c = asciiLower(cat);
    if (c == "cpu_op" || c == "operator") return EventKind::CpuOp;
    if (c == "user_annotation") return EventKind::UserAnnotation;
    if (c == "gpu_user_annotation" || c == "user") return EventKind::GpuUserAnnotation;
    if (c == "python_function") return EventKind::PythonFunction;
    // Kineto's ActivityType names (libkineto/include/ActivityType.h) for every accelerator: CUDA/ROCm,
    // XPU, MTIA, HPU (Gaudi's host-side runtime events) and out-of-tree PrivateUse1 backends.
    if (c == "cuda_runtime" || c == "runtime" || c == "xpu_runtime" || c == "privateuse1_runtime" ||
        c == "mtia_runtime" || c == "hip_runtime" || c == "hpu_op")
        return EventKind::Runtime;
    if (c == "cuda_driver" || c == "xpu_driver" || c == "privateuse1_driver" || c == "driver")
        return EventKind::Driver;
    // MTIA writes all its on-device work, kernels and DMA copies alike, as mtia_ccp_events; HTA counts
    // the category as GPU kernels (hta/common/types.py KERNEL_CATEGORY_PATTERN).
    if (c == "kernel" || c == "xpu_kernel" || c == "mtia_ccp_events") return EventKind::Kernel;
    if (c == "gpu_memcpy" || c == "memcpy") return EventKind::Memcpy;
    if (c == "gpu_memset" || c == "memset") return EventKind::Memset;
    if (c == "cuda_sync" || c == "xpu_sync") return EventKind::Sync;
    if (c == "cuda_event") return EventKind::CudaEvent;
    if (c == "overhead") return EventKind::Overhead;
    if (c == "trace") return EventKind::Span;
    if (c == "cpu_instant_event") return EventKind::InstantCpu;
    if (c == "ac2g" || c == "fwdbwd" || c == "async" || c == "async_cpu_to_gpu" || c == "async_gpu" ||
        c == "forward_backward")
        return EventKind::Flow;
    return EventKind::Other;
}

const char* eventKindName(EventKind kind)
{
    switch (kind) {
    case EventKind::Other:
        return "other";
    case EventKind::CpuOp:
        return "cpu_op";
    case EventKind::UserAnnotation:
        return "user_annotation";
    case EventKind::GpuUserAnnotation:
        return "gpu_user_annotation";
    case EventKind::PythonFunction:
        return "python_function";
    case EventKind::Runtime:
        return "runtime";
    case EventKind::Driver:
        return "driver";
    case EventKind::Kernel:
        return "kernel";
    case EventKind::Memcpy:
        return "memcpy";
    case EventKind::Memset:
        return "memset";
    case EventKind::Sync:
        return "sync";
    case EventKind::CudaEvent:
        return "cuda_event";
    case EventKind::Overhead:
        return "overhead";
    case EventKind::Span:
        return "span";
    case EventKind::InstantCpu:
        return "instant";
    case EventKind::Flow:
        return "flow";
    }
    return "other";
}

const char* trackKindName(TrackKind kind)
{
    switch (kind) {
    case TrackKind::CpuThread:
        return "cpu_thread";
    case TrackKind::GpuStream:
        return "gpu_stream";
    case TrackKind::GpuAnnotation:
        return "gpu_annotation";
    case TrackKind::Span:
        return "span";
    case TrackKind::Other:
        return "other";
    }
    return "other";
}

} // namespace ks
