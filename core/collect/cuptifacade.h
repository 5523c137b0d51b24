#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ks::collect {

// The part of libcupti the CUPTI collector uses, as an interface so that tests can drive the
// collector's buffer, flush, correlation and clock logic with a fake (no GPU on CI). Results are
// CUptiResult codes (0 = success); kinds are CUpti_ActivityKind values.
class CuptiFacade {
public:
    // CUPTI's buffer callbacks (cuptiActivityRegisterCallbacks). CUPTI keeps one pair per process
    // and passes no user data, so they are plain functions.
    using RequestFn = void (*)(uint8_t** buffer, size_t* size, size_t* maxNumRecords);
    using CompleteFn = void (*)(void* context, uint32_t streamId, uint8_t* buffer, size_t size,
                                size_t validSize);

    virtual ~CuptiFacade() = default;

    // cuptiGetVersion: 130001 for CUDA 13.0 Update 1, 19-28 for CUDA 12.x.
    virtual uint32_t version() = 0;
    // Why CUDA cannot work in this process (no libcuda.so.1, ...); empty when a driver is there.
    virtual std::string driverProblem() = 0;
    // cuptiSubscribe_v2 followed at once by cuptiUnsubscribe: tells whether another tool holds
    // CUPTI (39, with its name in otherTool) without keeping the one subscriber slot.
    virtual int probeSubscriber(std::string& otherTool) = 0;
    virtual int registerCallbacks(RequestFn request, CompleteFn complete) = 0;
    virtual int enable(int kind) = 0;
    virtual int disable(int kind) = 0;
    // cuptiActivityFlushAll; flags 1 = CUPTI_ACTIVITY_FLAG_FLUSH_FORCED.
    virtual int flushAll(uint32_t flags) = 0;
    // cuptiActivityGetNextRecord: *record is the previous record (null to start); returns
    // CUPTI_ERROR_MAX_LIMIT_REACHED (12) after the last one.
    virtual int nextRecord(uint8_t* buffer, size_t validSize, uint8_t** record) = 0;
    virtual size_t droppedRecords(uint32_t streamId) = 0;
    // cuptiActivityPush/PopExternalCorrelationId with kind CUSTOM2.
    virtual int pushExternal(uint64_t id) = 0;
    virtual int popExternal() = 0;
    // cuptiGetTimestamp: the clock of every record, ns.
    virtual int64_t timestamp() = 0;
    // "CUPTI_ERROR_UNKNOWN" for 999, ...
    virtual std::string resultName(int code) = 0;
    // Runtime (driver = false) or driver API name for a cbid, e.g. "cudaLaunchKernel_v7000".
    virtual std::string callbackName(bool driver, uint32_t cbid) = 0;
    // The GPUs as Kineto's "deviceProperties" entries (JSON objects), once the driver is
    // initialised; empty before that.
    virtual std::vector<std::string> deviceProperties() { return {}; }
    // Per-device numbers for the occupancy args; false when unknown.
    struct DeviceLimits {
        int numSms = 0;
        int maxThreadsPerSm = 0;
        int maxBlocksPerSm = 0;
        int regsPerSm = 0;
        int sharedPerSm = 0;
        int warpSize = 32;
    };
    virtual bool deviceLimits(int device, DeviceLimits& out)
    {
        (void)device;
        (void)out;
        return false;
    }
};

} // namespace ks::collect
