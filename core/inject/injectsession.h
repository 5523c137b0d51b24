#pragma once

#include "core/record/collector.h"

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace ks::inject {

// Whole-process recording for the injection library: recording starts when the library is first
// entered (its constructor, CUDA's InitializeInjection, NVTX's InitializeInjectionNvtx2, the ITT
// collector hooks). Two ways out:
//  - live: with $KINETOSCOPE_ENDPOINT set (a target launched by the viewer or `kinetoscope record`)
//    the library opens its own connection to the session (same pid, so the viewer files it under
//    the same process): the recorder's ranges (NVTX, ITT) stream as events, and a pump thread
//    drains the collectors' device activity into Device frames every few milliseconds;
//  - file: otherwise one Kineto trace is written at exit to $KINETOSCOPE_OUTPUT ("%p" becomes the
//    pid, so every process of a multi-process job writes its own).
//
// Status lines ("CUDA: not available: ...") go to stderr as "kinetoscope: ...", and into the trace
// as the top-level "kinetoscope_status" array or, live, into the session's console.
class InjectSession {
public:
    static InjectSession& instance();

    // Starts recording (once) and arranges for finish() at exit.
    void start();
    // Prepares and starts a collector for the rest of the process; its status line is reported.
    // A collector tried before (attached or not) is left alone: one status line per collector.
    void attach(const std::shared_ptr<record::ActivityCollector>& collector);
    // Stops everything and writes the trace, or ends the live connection (once).
    void finish();
    void reportStatus(const std::string& line);
    std::vector<std::string> status();
    bool live() const { return m_live; }

private:
    InjectSession() = default;
    static void atExit();
    static void afterForkInChild();
    void startLive(const char* endpoint);
    void pump();
    // Moves whatever the collectors hold into Device frames; final after they stopped.
    void drainCollectors(bool final);
    void finishLive(const std::vector<std::shared_ptr<record::ActivityCollector>>& collectors);

    std::mutex m_mutex;
    bool m_started = false;
    bool m_finished = false;
    bool m_forkedChild = false;
    std::atomic<bool> m_live{false};
    std::atomic<bool> m_stopPump{false};
    std::thread m_pump;
    std::mutex m_pumpMutex;
    std::condition_variable m_pumpWake;
    uint64_t m_startTicks = 0;
    std::vector<std::shared_ptr<record::ActivityCollector>> m_collectors;
    std::vector<std::shared_ptr<record::ActivityCollector>> m_tried;
    std::vector<std::string> m_status;
};

} // namespace ks::inject
