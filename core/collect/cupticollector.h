#pragma once

#include "core/collect/clockoffset.h"
#include "core/collect/correlationjoin.h"
#include "core/collect/cuptidecoder.h"
#include "core/collect/cuptifacade.h"
#include "core/record/collector.h"
#include "core/record/rangehooks.h"

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace ks::collect {

// NVIDIA GPU activity through the CUPTI Activity API (live-attach spec §1): kernels, copies,
// memsets, runtime/driver calls, synchronisation, device allocations and CUPTI's own overhead.
//  - Small buffers and our own flush thread (cuptiActivityFlushAll(0) every flushPeriodMs, FORCED
//    at stop) so records reach a live view within about one period; drain() hands them out.
//  - Our ranges (record/api.h) push CUPTI external correlation CUSTOM2 while the collector runs,
//    so kernels carry the "External id" of the range that launched them; Kineto keeps CUSTOM0/1.
//  - Record times stay in CUPTI's clock (CLOCK_REALTIME) and are mapped to the recorder's
//    monotonic clock with an offset resampled every clockResampleMs.
//  - Never subscribes to the callback API (the one subscriber slot stays free for torch.profiler),
//    only probes it to name a tool that already holds CUPTI.
// Every failure becomes a status line; nothing here throws or aborts the host program.
class CuptiCollector : public record::ActivityCollector, public record::RangeListener {
public:
    struct Options {
        int flushPeriodMs = 100;
        int clockResampleMs = 1000;
        size_t bufferBytes = 256 * 1024;
        // Buffers CUPTI may hold at once; beyond that CUPTI drops records (and counts them).
        size_t maxBufferBytes = 64u << 20;
    };

    // The real libcupti, loaded at the first prepare().
    CuptiCollector();
    explicit CuptiCollector(std::unique_ptr<CuptiFacade> facade);
    CuptiCollector(std::unique_ptr<CuptiFacade> facade, Options options);
    ~CuptiCollector() override;

    // The process-wide collector: CUPTI has one set of buffer callbacks per process.
    static std::shared_ptr<CuptiCollector> shared();

    record::Activity activity() const override { return record::Activity::CUDA; }
    const char* name() const override { return "CUPTI"; }
    bool prepare(std::string& status) override;
    void start() override;
    void stop() override;
    void collect(std::vector<record::DeviceActivity>& out) override;
    std::vector<std::string> deviceProperties() override;

    // Live path: what arrived since the last drain, GPU work held back until its launch record is
    // there. Safe from any thread.
    size_t drain(std::vector<record::DeviceActivity>& out) override;
    // Asks CUPTI for completed buffers now (the flush thread does this every period).
    void flush(bool forced = false);
    // Problems met while recording (dropped records, CUPTI errors): one line each, cleared by prepare.
    std::vector<std::string> warnings() override;
    uint64_t droppedRecords() const { return m_dropped.load(); }
    uint64_t buffersCompleted() const { return m_buffersCompleted.load(); }
    bool running() const { return m_running.load(); }
    ClockOffset& clock() { return m_clock; }

    void rangeBegan(int64_t externalId) override;
    void rangeEnded(int64_t externalId) override;

    // CUPTI's buffer callbacks; they route to the collector that registered them.
    static void bufferRequested(uint8_t** buffer, size_t* size, size_t* maxNumRecords);
    static void bufferCompleted(void* context, uint32_t streamId, uint8_t* buffer, size_t size,
                                size_t validSize);

private:
    bool loadFacade(std::string& why);
    bool enableKinds(std::string& status);
    void disableKinds();
    std::string explain(int code, const char* what);
    void flushLoop();
    void processBuffer(uint8_t* buffer, size_t validSize, uint32_t streamId);
    uint8_t* takeBuffer();
    void giveBuffer(uint8_t* buffer);
    void warn(std::string line);

    std::unique_ptr<CuptiFacade> m_facade;
    Options m_options;
    CuptiDecoder m_decoder;
    ClockOffset m_clock;
    std::vector<int> m_enabled;
    bool m_prepared = false;
    bool m_registered = false;
    std::string m_loadError;

    std::mutex m_mutex; // decoder, join, warnings
    CorrelationJoin m_join;
    std::vector<std::string> m_warnings;
    int64_t m_windowStartNs = 0;

    std::mutex m_bufferMutex;
    std::vector<uint8_t*> m_freeBuffers;
    size_t m_outstandingBytes = 0;

    std::thread m_flusher;
    std::mutex m_flushMutex;
    std::condition_variable m_flushWake;
    std::atomic<bool> m_running{false};
    bool m_stopFlusher = false;

    std::atomic<uint64_t> m_dropped{0};
    std::atomic<uint64_t> m_buffersCompleted{0};
    std::atomic<bool> m_listening{false};
};

} // namespace ks::collect
