#include "core/io/nvprofschema.h"

#include <map>
#include <string>

namespace ks {

const NvprofTable& nvprofStringTable()
{
    static const NvprofTable t{NvprofTable::Kind::Strings, "StringTable", {{"_id_"}, {"value"}}};
    return t;
}

const NvprofTable& nvprofMarkerTable()
{
    static const NvprofTable t{NvprofTable::Kind::Marker,
                               "CUPTI_ACTIVITY_KIND_MARKER",
                               {{"flags", false}, {"timestamp"}, {"id"}, {"objectId", false}, {"name"}}};
    return t;
}

const NvprofTable& nvprofRuntimeTable()
{
    static const NvprofTable t{
        NvprofTable::Kind::Runtime,
        "CUPTI_ACTIVITY_KIND_RUNTIME",
        {{"start"}, {"end"}, {"cbid"}, {"processId", false}, {"threadId", false}, {"correlationId"}}};
    return t;
}

const std::vector<const NvprofTable*>& nvprofDeviceTables()
{
    // Kernel extras: registersPerThread, staticSharedMemory, dynamicSharedMemory, grid, block.
    static const std::vector<NvprofColumn> kernelColumns{{"start"},
                                                         {"end"},
                                                         {"deviceId"},
                                                         {"streamId"},
                                                         {"correlationId"},
                                                         {"name"},
                                                         {"registersPerThread", false},
                                                         {"staticSharedMemory", false},
                                                         {"dynamicSharedMemory", false},
                                                         {"gridX", false},
                                                         {"gridY", false},
                                                         {"gridZ", false},
                                                         {"blockX", false},
                                                         {"blockY", false},
                                                         {"blockZ", false}};
    static const NvprofTable concurrent{NvprofTable::Kind::Kernel, "CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL",
                                        kernelColumns};
    static const NvprofTable serial{NvprofTable::Kind::Kernel, "CUPTI_ACTIVITY_KIND_KERNEL", kernelColumns};
    static const NvprofTable memcpy{
        NvprofTable::Kind::Memcpy,
        "CUPTI_ACTIVITY_KIND_MEMCPY",
        {{"start"}, {"end"}, {"deviceId"}, {"streamId"}, {"correlationId"}, {"copyKind"}, {"bytes", false}}};
    static const NvprofTable memset{NvprofTable::Kind::Memset,
                                    "CUPTI_ACTIVITY_KIND_MEMSET",
                                    {{"start"},
                                     {"end"},
                                     {"deviceId"},
                                     {"streamId"},
                                     {"correlationId"},
                                     {"value", false},
                                     {"bytes", false}}};
    static const std::vector<const NvprofTable*> all{&concurrent, &serial, &memcpy, &memset};
    return all;
}

std::string nvprofRuntimeName(long long cbid)
{
    // Callback ids from CUPTI's cupti_runtime_cbid.h (stable across CUDA versions): the calls a
    // PyTorch run makes. Others keep their number.
    static const std::map<long long, std::string_view> names{
        {3, "cudaGetDeviceCount"},
        {4, "cudaGetDeviceProperties"},
        {10, "cudaGetLastError"},
        {11, "cudaPeekAtLastError"},
        {13, "cudaLaunch"},
        {15, "cudaFuncGetAttributes"},
        {16, "cudaSetDevice"},
        {17, "cudaGetDevice"},
        {20, "cudaMalloc"},
        {22, "cudaFree"},
        {27, "cudaHostAlloc"},
        {30, "cudaMemGetInfo"},
        {31, "cudaMemcpy"},
        {41, "cudaMemcpyAsync"},
        {44, "cudaMemcpy2DAsync"},
        {47, "cudaMemcpyToSymbolAsync"},
        {49, "cudaMemset"},
        {51, "cudaMemsetAsync"},
        {131, "cudaStreamSynchronize"},
        {134, "cudaEventCreateWithFlags"},
        {135, "cudaEventRecord"},
        {136, "cudaEventDestroy"},
        {137, "cudaEventSynchronize"},
        {138, "cudaEventQuery"},
        {147, "cudaStreamWaitEvent"},
        {151, "cudaPointerGetAttributes"},
        {165, "cudaDeviceSynchronize"},
        {200, "cudaDeviceGetAttribute"},
        {202, "cudaStreamCreateWithPriority"},
        {203, "cudaStreamGetPriority"},
        {207, "cudaOccupancyMaxActiveBlocksPerMultiprocessor"},
        {211, "cudaLaunchKernel"},
        {214, "cudaLaunchKernel_ptsz"},
        {225, "cudaMemcpyAsync_ptsz"},
        {269, "cudaLaunchCooperativeKernel"},
        {273, "cudaFuncSetAttribute"},
        {317, "cudaStreamIsCapturing"},
    };
    const auto it = names.find(cbid);
    if (it != names.end()) return std::string(it->second);
    return "cudaRuntime#" + std::to_string(cbid);
}

const char* nvprofCopyKindName(long long kind)
{
    static const char* const names[] = {"Unknown", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA",
                                        "AtoD",    "DtoA", "DtoD", "HtoH", "PtoP"};
    return kind >= 0 && kind <= 10 ? names[kind] : "Unknown";
}

} // namespace ks
