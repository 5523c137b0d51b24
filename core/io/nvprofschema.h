#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ks {

// The parts of nvprof's database schema the nvprof reader reads: for each table the columns, in
// the order the reader's rows expect them. A missing optional column reads as NULL; a missing
// required one makes the file "not an nvprof database". Device tables start with the same six
// columns (start, end, deviceId, streamId, correlationId, then the name or copy kind).
struct NvprofColumn {
    std::string_view name;
    bool required = true;
};

struct NvprofTable {
    enum class Kind { Strings, Marker, Runtime, Kernel, Memcpy, Memset };
    Kind kind;
    std::string_view name;
    std::vector<NvprofColumn> columns;
};

const NvprofTable& nvprofStringTable();
const NvprofTable& nvprofMarkerTable();
const NvprofTable& nvprofRuntimeTable();
// CONCURRENT_KERNEL, KERNEL, MEMCPY, MEMSET.
const std::vector<const NvprofTable*>& nvprofDeviceTables();

// cudaLaunchKernel for a CUPTI runtime callback id, or "cudaRuntime#<cbid>" for ids not listed.
std::string nvprofRuntimeName(long long cbid);
// "HtoD" etc. for CUpti_ActivityMemcpyKind.
const char* nvprofCopyKindName(long long kind);

} // namespace ks
