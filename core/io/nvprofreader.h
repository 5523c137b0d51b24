#pragma once

#include "core/io/tracereader.h"

#include <string>
#include <string_view>

namespace ks {

// nvprof's SQLite output (.nvvp, .prof, .sqlite), as written by `nvprof -o` around a run under
// torch.autograd.profiler.emit_nvtx. The database is turned into the Kineto trace a torch profiler
// would have written for the same run, then loaded like any other trace, so every view, summary and
// export works on it:
//   NVTX ranges (marker start/end pairs)     → "cpu_op" slices on the marking thread
//   CUPTI_ACTIVITY_KIND_RUNTIME              → "cuda_runtime" slices, with "correlation" and "cbid"
//   CONCURRENT_KERNEL / KERNEL               → "kernel" slices on GPU <device> / stream <id>
//   MEMCPY / MEMSET                          → "gpu_memcpy" / "gpu_memset" slices
//   runtime call → its device work           → "ac2g" flows, by correlation id
// Times are nvprof's nanoseconds, rebased to the earliest one (kept as baseTimeNanoseconds). The
// trace carries "sourceFormat": "nvprof", which makes the operator summary follow
// torch.autograd.profiler.parse_nvprof_trace (nvprofaverages.h).
//
// A SQLite file that is not an nvprof database, or whose tables lack the columns read here, is a
// one-line error; ranges left open or device records with impossible times load with a warning.
LoadResult loadNvprofFile(const std::string& path, const LoadOptions& options = {});
LoadResult loadNvprofData(std::string_view bytes, const LoadOptions& options = {});

// True when the bytes start with SQLite's file header ("SQLite format 3\0").
bool isSqliteHeader(std::string_view head);

} // namespace ks
