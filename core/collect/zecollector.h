#pragma once

#include "core/collect/zeloader.h"
#include "core/collect/zetimestamps.h"
#include "core/record/collector.h"
#include "core/record/rangehooks.h"

#include <atomic>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

namespace ks::collect {

struct ZeTracer;

// Intel GPU activity through the Level Zero loader's tracing layer (live-attach spec §2): epilogue
// callbacks on kernel launches, copies, fills and barriers become "xpu_runtime" calls with
// correlation ids and, once their events have signalled, GPU operations on the device's queue rows
// with kernel timestamps mapped to the recorder's clock.
//
// Timestamps come from the application's own signal event when it is a kernel-timestamp event;
// otherwise the append is given one of our timestamp events and the application's event (if any)
// is signalled after it with a barrier. Results are read at the application's sync points
// (event/fence/queue synchronisation, event reset) and by a poll thread. Kernel ticks wrap at
// kernelTimestampValidBits; host calibration uses zeDeviceGetGlobalTimestamps every syncPeriodMs.
class ZeCollector : public record::ActivityCollector, public record::RangeListener {
public:
    struct Options {
        int pollPeriodMs = 100;
        int syncPeriodMs = 250;
    };

    ZeCollector();
    explicit ZeCollector(Options options);
    ~ZeCollector() override;

    // The process-wide collector (one tracer per process is plenty).
    static std::shared_ptr<ZeCollector> shared();
    // Sets ZE_ENABLE_TRACING_LAYER=1 unless already set: only effective before the process's first
    // zeInit (loader < 1.16), so the injection library calls it from its constructor.
    static void requestTracingLayer();

    record::Activity activity() const override { return record::Activity::XPU; }
    const char* name() const override { return "Level Zero"; }
    bool prepare(std::string& status) override;
    void start() override;
    void stop() override;
    void collect(std::vector<record::DeviceActivity>& out) override;
    std::vector<std::string> deviceProperties() override;
    std::vector<std::string> warnings() override;

    // Live path: operations finished since the last drain. Safe from any thread.
    size_t drain(std::vector<record::DeviceActivity>& out) override;
    // Reads the timestamps of every operation that has finished.
    void harvest();
    // Operations appended but not finished yet.
    size_t inFlight();

    // Only registered so the recorder keeps per-thread range ids (record/rangehooks.h): appends read
    // the innermost one as their External id.
    void rangeBegan(int64_t) override {}
    void rangeEnded(int64_t) override {}

private:
    bool setUp(std::string& status);
    void pollLoop();

    Options m_options;
    std::unique_ptr<ZeTracer> m_tracer;
    bool m_setUp = false;
    std::string m_setUpError;
    std::atomic<bool> m_running{false};
    bool m_listening = false;
    std::thread m_poller;
    std::mutex m_pollMutex;
    std::condition_variable m_pollWake;
    bool m_stopPoller = false;
};

} // namespace ks::collect
