#include "core/collect/cuptidecoder.h"

#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <cupti.h>

namespace ks::collect {

using record::DeviceActivity;
using record::DeviceArg;

// Byte offsets of every field we read, per record generation. Taken with offsetof from the
// structs of each generation as our headers declare them (the CUDA 12 ones live in
// cupti_activity_deprecated.h), so a layout change between generations shows up here and nowhere
// else.
struct CuptiDecoder::Layout {
    struct {
        size_t registers, start, end, device, context, stream, grid, block, staticShared, dynamicShared,
            correlation, name, queued;
    } kernel;
    struct {
        size_t copyKind, srcKind, dstKind, bytes, start, end, device, context, stream, correlation;
    } memcpy;
    struct {
        size_t memoryKind, bytes, start, end, device, context, stream, correlation;
    } memset;
    struct {
        size_t cbid, start, end, processId, threadId, correlation;
    } api;
    struct {
        size_t kind, id, correlation;
    } external;
    struct {
        size_t type, start, end, correlation, context, stream, event;
    } sync;
    struct {
        size_t kind, start, end;
    } overhead;
    struct {
        size_t operation, memoryKind, correlation, address, bytes, timestamp, device, stream;
    } memory;
};

namespace {

#define KS_KERNEL(T)                                                                                         \
    {                                                                                                        \
        offsetof(T, registersPerThread), offsetof(T, start), offsetof(T, end), offsetof(T, deviceId),        \
            offsetof(T, contextId), offsetof(T, streamId), offsetof(T, gridX), offsetof(T, blockX),          \
            offsetof(T, staticSharedMemory), offsetof(T, dynamicSharedMemory), offsetof(T, correlationId),   \
            offsetof(T, name), offsetof(T, queued)                                                           \
    }
#define KS_MEMCPY(T)                                                                                         \
    {                                                                                                        \
        offsetof(T, copyKind), offsetof(T, srcKind), offsetof(T, dstKind), offsetof(T, bytes),               \
            offsetof(T, start), offsetof(T, end), offsetof(T, deviceId), offsetof(T, contextId),             \
            offsetof(T, streamId), offsetof(T, correlationId)                                                \
    }
#define KS_MEMSET(T)                                                                                         \
    {                                                                                                        \
        offsetof(T, memoryKind), offsetof(T, bytes), offsetof(T, start), offsetof(T, end),                   \
            offsetof(T, deviceId), offsetof(T, contextId), offsetof(T, streamId), offsetof(T, correlationId) \
    }
#define KS_API(T)                                                                                            \
    {                                                                                                        \
        offsetof(T, cbid), offsetof(T, start), offsetof(T, end), offsetof(T, processId),                     \
            offsetof(T, threadId), offsetof(T, correlationId)                                                \
    }
#define KS_EXTERNAL(T)                                                                                       \
    {                                                                                                        \
        offsetof(T, externalKind), offsetof(T, externalId), offsetof(T, correlationId)                       \
    }
#define KS_SYNC(T)                                                                                           \
    {                                                                                                        \
        offsetof(T, type), offsetof(T, start), offsetof(T, end), offsetof(T, correlationId),                 \
            offsetof(T, contextId), offsetof(T, streamId), offsetof(T, cudaEventId)                          \
    }
#define KS_OVERHEAD(T)                                                                                       \
    {                                                                                                        \
        offsetof(T, overheadKind), offsetof(T, start), offsetof(T, end)                                      \
    }
#define KS_MEMORY(T)                                                                                         \
    {                                                                                                        \
        offsetof(T, memoryOperationType), offsetof(T, memoryKind), offsetof(T, correlationId),               \
            offsetof(T, address), offsetof(T, bytes), offsetof(T, timestamp), offsetof(T, deviceId),         \
            offsetof(T, streamId)                                                                            \
    }

const CuptiDecoder::Layout kCuda12 = {
    KS_KERNEL(CUpti_ActivityKernel9),
    KS_MEMCPY(CUpti_ActivityMemcpy5),
    KS_MEMSET(CUpti_ActivityMemset4),
    KS_API(CUpti_ActivityAPI),
    KS_EXTERNAL(CUpti_ActivityExternalCorrelation),
    KS_SYNC(CUpti_ActivitySynchronization),
    KS_OVERHEAD(CUpti_ActivityOverhead2),
    KS_MEMORY(CUpti_ActivityMemory3),
};

// Kernel11 (CUDA 13.1) appends to Kernel10 like Kernel10 appended to Kernel9; the fields read here
// sit in the shared prefix.
const CuptiDecoder::Layout kCuda13 = {
    KS_KERNEL(CUpti_ActivityKernel10),
    KS_MEMCPY(CUpti_ActivityMemcpy6),
    KS_MEMSET(CUpti_ActivityMemset4),
    KS_API(CUpti_ActivityAPI),
    KS_EXTERNAL(CUpti_ActivityExternalCorrelation),
    KS_SYNC(CUpti_ActivitySynchronization2),
    KS_OVERHEAD(CUpti_ActivityOverhead3),
    KS_MEMORY(CUpti_ActivityMemory4),
};

#undef KS_KERNEL
#undef KS_MEMCPY
#undef KS_MEMSET
#undef KS_API
#undef KS_EXTERNAL
#undef KS_SYNC
#undef KS_OVERHEAD
#undef KS_MEMORY

template <typename T>
T field(const uint8_t* r, size_t offset)
{
    T v;
    std::memcpy(&v, r + offset, sizeof v);
    return v;
}

std::string triple(int32_t x, int32_t y, int32_t z)
{
    char b[48];
    std::snprintf(b, sizeof b, "[%d, %d, %d]", x, y, z);
    return b;
}

const char* syncName(uint32_t type)
{
    switch (type) {
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE:
        return "Event Sync";
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT:
        return "Stream Wait Event";
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE:
        return "Stream Sync";
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE:
        return "Context Sync";
    default:
        return "Unknown Sync";
    }
}

const char* overheadName(uint32_t kind)
{
    switch (kind) {
    case CUPTI_ACTIVITY_OVERHEAD_DRIVER_COMPILER:
        return "Driver Compiler";
    case CUPTI_ACTIVITY_OVERHEAD_CUPTI_BUFFER_FLUSH:
        return "Buffer Flush";
    case CUPTI_ACTIVITY_OVERHEAD_CUPTI_INSTRUMENTATION:
        return "Instrumentation";
    case CUPTI_ACTIVITY_OVERHEAD_CUPTI_RESOURCE:
        return "Resource";
    case CUPTI_ACTIVITY_OVERHEAD_RUNTIME_TRIGGERED_MODULE_LOADING:
        return "Runtime Triggered Module Loading";
    case CUPTI_ACTIVITY_OVERHEAD_LAZY_FUNCTION_LOADING:
        return "Lazy Function Loading";
    case CUPTI_ACTIVITY_OVERHEAD_COMMAND_BUFFER_FULL:
        return "Command Buffer Full";
    case CUPTI_ACTIVITY_OVERHEAD_ACTIVITY_BUFFER_REQUEST:
        return "Activity Buffer Request";
    case CUPTI_ACTIVITY_OVERHEAD_UVM_ACTIVITY_INIT:
        return "UVM Activity Init";
    default:
        return "Unknown";
    }
}

// API calls Kineto leaves out of its traces: frequent and never interesting.
bool noisyCall(const std::string& name)
{
    return name == "cudaGetDevice" || name == "cuKernelGetAttribute" ||
           name == "cuDevicePrimaryCtxGetState" || name == "cuCtxGetCurrent";
}

// Calls that put work on a GPU stream start a launch arrow.
bool launchesWork(const std::string& name)
{
    return name.find("Launch") != std::string::npos || name.rfind("cudaMemcpy", 0) == 0 ||
           name.rfind("cudaMemset", 0) == 0 || name.rfind("cuMemcpy", 0) == 0 ||
           name.rfind("cuMemset", 0) == 0;
}

double bandwidth(uint64_t bytes, int64_t durNs)
{
    return double(bytes) / double(durNs); // bytes per ns = GB/s
}

// An activity of the given kind over the record's start and end.
template <typename RecordLayout>
CuptiDecoder::Decoded span(const uint8_t* r, const RecordLayout& L, DeviceActivity::Kind kind)
{
    CuptiDecoder::Decoded d;
    d.type = CuptiDecoder::Decoded::Type::Activity;
    d.activity.kind = kind;
    d.activity.startNs = int64_t(field<uint64_t>(r, L.start));
    d.activity.endNs = int64_t(field<uint64_t>(r, L.end));
    return d;
}

} // namespace

bool CuptiDecoder::setVersion(uint32_t v, std::string& why)
{
    if (v >= 130000) {
        m_generation = Generation::Cuda13;
        m_layout = &kCuda13;
        return true;
    }
    if (v >= 19) {
        m_generation = Generation::Cuda12;
        m_layout = &kCuda12;
        return true;
    }
    m_generation = Generation::None;
    m_layout = nullptr;
    why = v == 0 ? std::string("cuptiGetVersion failed")
                 : "CUPTI API version " + std::to_string(v) +
                       " is from CUDA 11 or older; Kinetoscope reads the records of CUDA 12 and 13";
    return false;
}

const char* CuptiDecoder::copyKindName(uint32_t kind)
{
    static const char* const names[] = {"Unknown", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA",
                                        "AtoD",    "DtoA", "DtoD", "HtoH", "PtoP"};
    return kind < sizeof names / sizeof names[0] ? names[kind] : "Unknown";
}

const char* CuptiDecoder::memoryKindName(uint32_t kind)
{
    static const char* const names[] = {"Unknown", "Pageable", "Pinned",        "Device",
                                        "Array",   "Managed",  "Device Static", "Managed Static"};
    return kind < sizeof names / sizeof names[0] ? names[kind] : "Unknown";
}

std::string CuptiDecoder::apiName(std::string raw)
{
    const size_t v = raw.rfind("_v");
    if (v != std::string::npos && v + 2 < raw.size() &&
        raw.find_first_not_of("0123456789", v + 2) == std::string::npos)
        raw.resize(v);
    return raw;
}

const std::string& CuptiDecoder::callName(bool driver, uint32_t cbid)
{
    const uint64_t key = (uint64_t(driver) << 32) | cbid;
    auto it = m_names.find(key);
    if (it != m_names.end()) return it->second;
    std::string n = m_facade ? apiName(m_facade->callbackName(driver, cbid)) : std::string();
    if (n.empty()) n = std::string(driver ? "cuda_driver_" : "cuda_runtime_") + std::to_string(cbid);
    return m_names.emplace(key, std::move(n)).first->second;
}

CuptiDecoder::Decoded CuptiDecoder::decode(const uint8_t* r)
{
    if (!m_layout || !r) return {};
    switch (field<uint32_t>(r, 0)) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
        return kernel(r);
    case CUPTI_ACTIVITY_KIND_MEMCPY:
        return memcpy(r);
    case CUPTI_ACTIVITY_KIND_MEMSET:
        return memset(r);
    case CUPTI_ACTIVITY_KIND_RUNTIME:
        return api(r, false);
    case CUPTI_ACTIVITY_KIND_DRIVER:
        return api(r, true);
    case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION:
        return external(r);
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
        return sync(r);
    case CUPTI_ACTIVITY_KIND_OVERHEAD:
        return overhead(r);
    case CUPTI_ACTIVITY_KIND_MEMORY2:
        return memory(r);
    default:
        return {};
    }
}

CuptiDecoder::Decoded CuptiDecoder::kernel(const uint8_t* r)
{
    const auto& L = m_layout->kernel;
    Decoded d = span(r, L, DeviceActivity::Kind::Kernel);
    DeviceActivity& a = d.activity;
    const uint32_t device = field<uint32_t>(r, L.device);
    const uint32_t context = field<uint32_t>(r, L.context);
    a.device = int32_t(device);
    a.stream = field<uint32_t>(r, L.stream);
    a.correlation = field<uint32_t>(r, L.correlation);
    const char* name = field<const char*>(r, L.name);
    a.name = name ? name : "";
    // Kineto spells a kernel CUPTI calls "kernel" with a capital K.
    if (a.name == "kernel") a.name = "Kernel";
    noteContext(context, device);
    const int32_t g[3] = {field<int32_t>(r, L.grid), field<int32_t>(r, L.grid + 4),
                          field<int32_t>(r, L.grid + 8)};
    const int32_t b[3] = {field<int32_t>(r, L.block), field<int32_t>(r, L.block + 4),
                          field<int32_t>(r, L.block + 8)};
    const int registers = field<uint16_t>(r, L.registers);
    const int shared = field<int32_t>(r, L.staticShared) + field<int32_t>(r, L.dynamicShared);
    a.ownArgs = true;
    a.args.push_back(DeviceArg::integer("queued", int64_t(field<uint64_t>(r, L.queued))));
    a.args.push_back(DeviceArg::integer("device", device));
    a.args.push_back(DeviceArg::integer("context", context));
    a.args.push_back(DeviceArg::integer("stream", a.stream));
    a.args.push_back(DeviceArg::integer("correlation", a.correlation));
    a.args.push_back(DeviceArg::integer("registers per thread", registers));
    a.args.push_back(DeviceArg::integer("shared memory", shared));
    CuptiFacade::DeviceLimits lim;
    const bool known = m_facade && m_facade->deviceLimits(int(device), lim) && lim.warpSize > 0;
    if (known) {
        const double blocks = double(g[0]) * g[1] * g[2];
        const int threads = b[0] * b[1] * b[2];
        const int warpsPerBlock = (threads + lim.warpSize - 1) / lim.warpSize;
        const double blocksPerSm = blocks / lim.numSms;
        const double warpsPerSm = blocksPerSm * warpsPerBlock;
        a.args.push_back(DeviceArg::real("blocks per SM", blocksPerSm));
        a.args.push_back(DeviceArg::real("warps per SM", warpsPerSm));
        a.args.push_back(DeviceArg::json("grid", triple(g[0], g[1], g[2])));
        a.args.push_back(DeviceArg::json("block", triple(b[0], b[1], b[2])));
        // Theoretical resident blocks per SM from the block, register and shared-memory limits,
        // then the share of the SM's warp slots the launch can actually fill.
        const int maxWarps = lim.maxThreadsPerSm / lim.warpSize;
        int resident = lim.maxBlocksPerSm > 0 ? lim.maxBlocksPerSm : 32;
        if (warpsPerBlock > 0) resident = std::min(resident, maxWarps / warpsPerBlock);
        if (registers > 0 && threads > 0)
            resident = std::min(resident, lim.regsPerSm / (registers * warpsPerBlock * lim.warpSize));
        if (shared > 0) resident = std::min(resident, lim.sharedPerSm / shared);
        const double active = std::min(warpsPerSm, double(resident * warpsPerBlock));
        a.args.push_back(DeviceArg::integer(
            "est. achieved occupancy %", maxWarps > 0 ? int64_t(std::lround(100.0 * active / maxWarps)) : 0));
    } else {
        a.args.push_back(DeviceArg::json("grid", triple(g[0], g[1], g[2])));
        a.args.push_back(DeviceArg::json("block", triple(b[0], b[1], b[2])));
    }
    return d;
}

template <typename RecordLayout>
CuptiDecoder::Decoded CuptiDecoder::transfer(const uint8_t* r, const RecordLayout& L,
                                             DeviceActivity::Kind kind, std::string name)
{
    Decoded d = span(r, L, kind);
    DeviceActivity& a = d.activity;
    const uint32_t device = field<uint32_t>(r, L.device);
    const uint32_t context = field<uint32_t>(r, L.context);
    noteContext(context, device);
    a.device = int32_t(device);
    a.stream = field<uint32_t>(r, L.stream);
    a.correlation = field<uint32_t>(r, L.correlation);
    const uint64_t bytes = field<uint64_t>(r, L.bytes);
    a.name = std::move(name);
    a.ownArgs = true;
    a.args.push_back(DeviceArg::integer("device", device));
    a.args.push_back(DeviceArg::integer("context", context));
    a.args.push_back(DeviceArg::integer("stream", a.stream));
    a.args.push_back(DeviceArg::integer("correlation", a.correlation));
    a.args.push_back(DeviceArg::integer("bytes", int64_t(bytes)));
    if (a.endNs > a.startNs)
        a.args.push_back(DeviceArg::real("memory bandwidth (GB/s)", bandwidth(bytes, a.endNs - a.startNs)));
    return d;
}

CuptiDecoder::Decoded CuptiDecoder::memcpy(const uint8_t* r)
{
    const auto& L = m_layout->memcpy;
    return transfer(r, L, DeviceActivity::Kind::Memcpy,
                    std::string("Memcpy ") + copyKindName(field<uint8_t>(r, L.copyKind)) + " (" +
                        memoryKindName(field<uint8_t>(r, L.srcKind)) + " -> " +
                        memoryKindName(field<uint8_t>(r, L.dstKind)) + ")");
}

CuptiDecoder::Decoded CuptiDecoder::memset(const uint8_t* r)
{
    const auto& L = m_layout->memset;
    return transfer(r, L, DeviceActivity::Kind::Memset,
                    std::string("Memset (") + memoryKindName(field<uint16_t>(r, L.memoryKind)) + ")");
}

CuptiDecoder::Decoded CuptiDecoder::api(const uint8_t* r, bool driver)
{
    const auto& L = m_layout->api;
    const uint32_t cbid = field<uint32_t>(r, L.cbid);
    const std::string& name = callName(driver, cbid);
    if (noisyCall(name)) return {};
    Decoded d = span(r, L, driver ? DeviceActivity::Kind::Driver : DeviceActivity::Kind::Runtime);
    DeviceActivity& a = d.activity;
    a.hostTid = field<uint32_t>(r, L.threadId);
    a.correlation = field<uint32_t>(r, L.correlation);
    a.name = name;
    a.flowStart = launchesWork(name);
    a.ownArgs = true;
    a.args.push_back(DeviceArg::integer("cbid", cbid));
    a.args.push_back(DeviceArg::integer("correlation", a.correlation));
    return d;
}

CuptiDecoder::Decoded CuptiDecoder::external(const uint8_t* r)
{
    const auto& L = m_layout->external;
    // Only our own kind: CUSTOM0/1 belong to Kineto when it shares the process.
    if (field<uint32_t>(r, L.kind) != CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2) return {};
    Decoded d;
    d.type = Decoded::Type::External;
    d.externalId = int64_t(field<uint64_t>(r, L.id));
    d.correlation = field<uint32_t>(r, L.correlation);
    return d;
}

CuptiDecoder::Decoded CuptiDecoder::sync(const uint8_t* r)
{
    const auto& L = m_layout->sync;
    Decoded d = span(r, L, DeviceActivity::Kind::Sync);
    DeviceActivity& a = d.activity;
    a.correlation = field<uint32_t>(r, L.correlation);
    const uint32_t context = field<uint32_t>(r, L.context);
    const uint32_t stream = field<uint32_t>(r, L.stream);
    // Sync records name no device: take the one the context's work ran on.
    auto it = m_contextDevice.find(context);
    a.device = it != m_contextDevice.end() ? int32_t(it->second) : 0;
    a.stream = stream == CUPTI_SYNCHRONIZATION_INVALID_VALUE ? -1 : int64_t(stream);
    a.name = syncName(field<uint32_t>(r, L.type));
    a.ownArgs = true;
    a.args.push_back(DeviceArg::string("cuda_sync_kind", a.name));
    a.args.push_back(DeviceArg::integer("stream", a.stream));
    a.args.push_back(DeviceArg::integer("correlation", a.correlation));
    a.args.push_back(DeviceArg::integer("device", a.device));
    a.args.push_back(DeviceArg::integer("context", context));
    const uint32_t event = field<uint32_t>(r, L.event);
    if (event != CUPTI_SYNCHRONIZATION_INVALID_VALUE &&
        field<uint32_t>(r, L.type) == CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE)
        a.args.push_back(DeviceArg::integer("wait_on_cuda_event_id", event));
    return d;
}

CuptiDecoder::Decoded CuptiDecoder::overhead(const uint8_t* r)
{
    const auto& L = m_layout->overhead;
    Decoded d = span(r, L, DeviceActivity::Kind::Overhead);
    DeviceActivity& a = d.activity;
    a.name = overheadName(field<uint32_t>(r, L.kind));
    a.ownArgs = true;
    return d;
}

CuptiDecoder::Decoded CuptiDecoder::memory(const uint8_t* r)
{
    const auto& L = m_layout->memory;
    const uint32_t op = field<uint32_t>(r, L.operation);
    if (op != CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION &&
        op != CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE)
        return {};
    Decoded d;
    d.type = Decoded::Type::Activity;
    DeviceActivity& a = d.activity;
    a.kind = DeviceActivity::Kind::Memory;
    a.startNs = a.endNs = int64_t(field<uint64_t>(r, L.timestamp));
    a.device = int32_t(field<uint32_t>(r, L.device));
    a.correlation = field<uint32_t>(r, L.correlation);
    a.address = field<uint64_t>(r, L.address);
    const int64_t bytes = int64_t(field<uint64_t>(r, L.bytes));
    a.bytes = op == CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION ? bytes : -bytes;
    a.name = "[memory]";
    return d;
}

} // namespace ks::collect
