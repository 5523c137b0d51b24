#pragma once

// A stand-in for libcupti that behaves like the parts the collector relies on: one pair of buffer
// callbacks, flushAll handing back buffers filled with CUDA 13 records, a per-thread external
// correlation stack, and a clock of its own (Unix-epoch ns, offset as the test chooses).

#include "core/collect/cuptifacade.h"
#include "core/record/clock.h"

#include <atomic>
#include <cstring>
#include <cupti.h>
#include <map>
#include <mutex>
#include <string>
#include <vector>

class FakeCupti : public ks::collect::CuptiFacade {
public:
    // Shared with the test after the facade moves into the collector.
    struct State {
        std::mutex mutex;
        RequestFn request = nullptr;
        CompleteFn complete = nullptr;
        std::vector<std::vector<uint8_t>> pending; // records not yet delivered, in order
        std::vector<uint32_t> flushFlags;          // every flushAll call
        std::map<int, int> enableResult;           // kind -> forced result
        int probeResult = 0;
        std::string probeName;
        std::vector<int> enabled;
        std::vector<uint64_t> externalStack; // one thread is enough for these tests
        uint32_t nextCorrelation = 1;
        int64_t clockOffsetNs = 0; // foreign = monotonic + offset
        size_t dropped = 0;
        std::atomic<int> pushes{0};
    };

    explicit FakeCupti(std::shared_ptr<State> s) : m_s(std::move(s)) {}

    uint32_t version() override { return 130001; }
    std::string driverProblem() override { return {}; }
    int probeSubscriber(std::string& other) override
    {
        other = m_s->probeName;
        return m_s->probeResult;
    }
    int registerCallbacks(RequestFn request, CompleteFn complete) override
    {
        m_s->request = request;
        m_s->complete = complete;
        return 0;
    }
    int enable(int kind) override
    {
        std::lock_guard lock(m_s->mutex);
        auto it = m_s->enableResult.find(kind);
        if (it != m_s->enableResult.end() && it->second != 0) return it->second;
        m_s->enabled.push_back(kind);
        return 0;
    }
    int disable(int kind) override
    {
        std::lock_guard lock(m_s->mutex);
        std::erase(m_s->enabled, kind);
        return 0;
    }
    // Like CUPTI: asks for a buffer, fills it with whole records, hands it back.
    int flushAll(uint32_t flags) override
    {
        std::vector<std::vector<uint8_t>> records;
        {
            std::lock_guard lock(m_s->mutex);
            m_s->flushFlags.push_back(flags);
            records.swap(m_s->pending);
        }
        if (records.empty() || !m_s->request) return 0;
        uint8_t* buffer = nullptr;
        size_t size = 0, maxRecords = 0;
        m_s->request(&buffer, &size, &maxRecords);
        if (!buffer) return 0;
        size_t used = 0;
        for (const auto& r : records) {
            if (used + r.size() > size) break;
            std::memcpy(buffer + used, r.data(), r.size());
            used += r.size();
        }
        m_s->complete(nullptr, 0, buffer, size, used);
        return 0;
    }
    int nextRecord(uint8_t* buffer, size_t validSize, uint8_t** record) override
    {
        uint8_t* next = *record ? *record + recordSize(*record) : buffer;
        if (next >= buffer + validSize) return CUPTI_ERROR_MAX_LIMIT_REACHED;
        *record = next;
        return 0;
    }
    size_t droppedRecords(uint32_t) override { return std::exchange(m_s->dropped, 0); }
    int pushExternal(uint64_t id) override
    {
        m_s->pushes++;
        m_s->externalStack.push_back(id);
        return 0;
    }
    int popExternal() override
    {
        if (m_s->externalStack.empty()) return CUPTI_ERROR_QUEUE_EMPTY;
        m_s->externalStack.pop_back();
        return 0;
    }
    int64_t timestamp() override { return int64_t(ks::record::Clock::monotonicNs()) + m_s->clockOffsetNs; }
    std::string resultName(int code) override
    {
        switch (code) {
        case CUPTI_ERROR_UNKNOWN:
            return "CUPTI_ERROR_UNKNOWN";
        case CUPTI_ERROR_NOT_SUPPORTED:
            return "CUPTI_ERROR_NOT_SUPPORTED";
        default:
            return "CUPTI_ERROR_" + std::to_string(code);
        }
    }
    std::string callbackName(bool driver, uint32_t cbid) override
    {
        if (!driver && cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000)
            return "cudaLaunchKernel_v7000";
        if (!driver && cbid == CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020)
            return "cudaStreamSynchronize_v3020";
        return {};
    }
    bool deviceLimits(int, DeviceLimits& out) override
    {
        out = DeviceLimits{132, 2048, 32, 65536, 233472, 32}; // H100 SXM figures
        return true;
    }

    static size_t recordSize(const uint8_t* r)
    {
        uint32_t kind;
        std::memcpy(&kind, r, 4);
        switch (kind) {
        case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
            return sizeof(CUpti_ActivityKernel10);
        case CUPTI_ACTIVITY_KIND_MEMCPY:
            return sizeof(CUpti_ActivityMemcpy6);
        case CUPTI_ACTIVITY_KIND_RUNTIME:
        case CUPTI_ACTIVITY_KIND_DRIVER:
            return sizeof(CUpti_ActivityAPI);
        case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION:
            return sizeof(CUpti_ActivityExternalCorrelation);
        default:
            return 8;
        }
    }

    // The CUPTI clock now (what records written "now" would carry).
    int64_t now() { return timestamp(); }

    // A cudaLaunchKernel made now on the calling thread: the external correlation record(s) of
    // the pushed ids, the API record, and the kernel record that runs gpuDelayNs later. Returns
    // the correlation id. splitKernel keeps the kernel back until the next flush.
    uint32_t launch(const char* name, uint32_t tid, int64_t gpuDelayNs = 20000, bool kernelLater = false)
    {
        std::lock_guard lock(m_s->mutex);
        const uint32_t corr = m_s->nextCorrelation++;
        const int64_t t = timestamp();
        if (!m_s->externalStack.empty()) {
            CUpti_ActivityExternalCorrelation x{};
            x.kind = CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION;
            x.externalKind = CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2;
            x.externalId = m_s->externalStack.back();
            x.correlationId = corr;
            m_s->pending.push_back(bytes(x));
        }
        CUpti_ActivityAPI api{};
        api.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
        api.cbid = CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000;
        api.start = uint64_t(t);
        api.end = uint64_t(t + 3000);
        api.threadId = tid;
        api.correlationId = corr;
        CUpti_ActivityKernel10 k{};
        k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
        k.start = uint64_t(t + gpuDelayNs);
        k.end = uint64_t(t + gpuDelayNs + 5000);
        k.deviceId = 0;
        k.contextId = 1;
        k.streamId = 7;
        k.correlationId = corr;
        k.name = name;
        k.gridX = 264;
        k.gridY = k.gridZ = 1;
        k.blockX = 256;
        k.blockY = k.blockZ = 1;
        k.registersPerThread = 32;
        if (kernelLater) {
            m_s->pending.insert(m_s->pending.begin(), bytes(k));
            m_heldApi = bytes(api);
        } else {
            m_s->pending.push_back(bytes(api));
            m_s->pending.push_back(bytes(k));
        }
        return corr;
    }
    // The API record kept back by launch(kernelLater = true) becomes deliverable.
    void releaseHeldApi()
    {
        std::lock_guard lock(m_s->mutex);
        if (!m_heldApi.empty()) m_s->pending.push_back(std::move(m_heldApi));
        m_heldApi.clear();
    }

    template <typename T>
    static std::vector<uint8_t> bytes(const T& rec)
    {
        std::vector<uint8_t> v(sizeof rec);
        std::memcpy(v.data(), &rec, sizeof rec);
        return v;
    }

private:
    std::shared_ptr<State> m_s;
    std::vector<uint8_t> m_heldApi;
};
