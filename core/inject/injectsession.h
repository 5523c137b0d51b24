#pragma once

#include "record/collector.h"

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace ks::inject {

// Whole-process recording for the injection library: recording starts when the library is first
// entered (its constructor, CUDA's InitializeInjection, NVTX's InitializeInjectionNvtx2, the ITT
// collector hooks) and, for now, one Kineto trace is written at exit to $KINETOSCOPE_OUTPUT ("%p"
// becomes the pid, so every process of a multi-process job writes its own). The live-streaming
// work replaces finish()'s file with a socket; everything else stays.
//
// Status lines ("CUDA: not available: ...") go to stderr as "kinetoscope: ..." and into the trace
// as the top-level "kinetoscope_status" array.
class InjectSession {
public:
    static InjectSession& instance();

    // Starts recording (once) and arranges for finish() at exit.
    void start();
    // Prepares and starts a collector for the rest of the process; its status line is reported.
    // A collector tried before (attached or not) is left alone: one status line per collector.
    void attach(const std::shared_ptr<record::ActivityCollector>& collector);
    // Stops everything and writes the trace (once).
    void finish();
    void reportStatus(const std::string& line);
    std::vector<std::string> status();

private:
    InjectSession() = default;
    static void atExit();
    static void afterForkInChild();

    std::mutex m_mutex;
    bool m_started = false;
    bool m_finished = false;
    bool m_forkedChild = false;
    uint64_t m_startTicks = 0;
    std::vector<std::shared_ptr<record::ActivityCollector>> m_collectors;
    std::vector<std::shared_ptr<record::ActivityCollector>> m_tried;
    std::vector<std::string> m_status;
};

} // namespace ks::inject
