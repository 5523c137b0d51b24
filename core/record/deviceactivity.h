#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ks::record {

// A typed argument of a device activity ("grid": [1, 2, 1] is Json with text "[1, 2, 1]").
struct DeviceArg {
    enum class Type : uint8_t { Int, Double, String, Json } type = Type::Int;
    std::string key;
    int64_t i = 0;
    double d = 0;
    std::string text;

    static DeviceArg integer(std::string k, int64_t v) { return {Type::Int, std::move(k), v, 0, {}}; }
    static DeviceArg real(std::string k, double v) { return {Type::Double, std::move(k), 0, v, {}}; }
    static DeviceArg string(std::string k, std::string v)
    {
        return {Type::String, std::move(k), 0, 0, std::move(v)};
    }
    static DeviceArg json(std::string k, std::string v)
    {
        return {Type::Json, std::move(k), 0, 0, std::move(v)};
    }
};

// One activity reported by a GPU collector (CUPTI, Level Zero) for a profiling window. Times are
// monotonic ns (the recorder's clock). It is turned into the event Kineto would write for it.
struct DeviceActivity {
    enum class Kind : uint8_t {
        Kernel,   // cat "kernel" on pid = device, tid = stream
        Memcpy,   // cat "gpu_memcpy"
        Memset,   // cat "gpu_memset"
        Sync,     // cat "cuda_sync"
        Runtime,  // cat "cuda_runtime" (or xpu_runtime) on the calling host thread
        Driver,   // cat "cuda_driver"
        Overhead, // cat "overhead" on pid -1
        Range,    // an NVTX/ITT range on a host thread: cat "user_annotation"
        Mark,     // an NVTX/ITT mark: instant on a host thread
        Memory,   // a device allocation (bytes > 0) or free (bytes < 0): a "[memory]" instant
    };
    // Which runtime the device rows belong to; names the rows as Kineto does for it.
    enum class Backend : uint8_t { Cuda, Xpu };

    Kind kind = Kind::Kernel;
    Backend backend = Backend::Cuda;
    int64_t startNs = 0;
    int64_t endNs = 0;
    int32_t device = 0;
    int64_t stream = 0;
    uint64_t hostTid = 0; // Runtime/Driver/Range/Mark: the calling thread
    std::string name;
    std::string category;    // overrides the kind's default category when set (e.g. "xpu_runtime")
    int64_t correlation = 0; // CUPTI/L0 correlation id; 0 = none
    int64_t externalId = 0;  // our range id linked through external correlation; 0 = none
    bool flowStart = false;  // Runtime/Driver calls that launch GPU work start an ac2g flow
    // Memory: the address; bytes are the signed "bytes" of a Memory activity.
    uint64_t address = 0;
    int64_t bytes = 0;
    // false: args come after the leading ones built from the fields above ("device", "stream",
    // "correlation", "External id"). true: args already hold everything Kineto writes for this
    // kind, in its order; only "External id" (always first in Kineto's output) is added.
    bool ownArgs = false;
    std::vector<DeviceArg> args;
};

} // namespace ks::record
