#pragma once

#include "core/live/frames.h"
#include "core/live/steptracker.h"
#include "core/record/deviceactivity.h"

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace ks::live {

struct SenderOptions {
    std::string endpoint;              // socket path, or "unix:<path>"
    std::string capture = "{}";        // capture options (JSON object) forwarded in the hello
    std::string program;               // defaults to /proc/self/comm
    int flushMs = 10;                  // drain period while the recorder is busy or idle
    size_t maxPendingBytes = 32 << 20; // unsent bytes above which new event batches are dropped
    size_t maxControlItems = 65536;    // queued steps/logs/windows above which they are dropped
    // Hard cap on what recording and sending hold (docs/live-protocol.md, "Memory cap"): 0 takes
    // KINETOSCOPE_LIVE_MAX_MB from the environment, else kDefaultMemoryCap. A quarter of it for
    // undrained records, a quarter for the drained copy being encoded, an eighth for unsent frames
    // (which also lowers maxPendingBytes).
    size_t memoryCapBytes = 0;
    static constexpr size_t kDefaultMemoryCap = size_t(64) << 20;
};

// The sending side of a live session, in the profiled process: a background thread drains the
// recorder every few milliseconds (so partial batches go out when the program is idle), turns
// ticks into monotonic ns, defines strings and threads once, and writes frames to the session
// socket without ever blocking the program's threads. When the viewer falls behind, unsent bytes
// pile up to maxPendingBytes; after that whole drained batches are dropped and counted, and a gap
// frame per thread tells the viewer where. When the program records faster than this thread can
// drain and encode, the recorder's buffers stop growing at their share of memoryCapBytes and the
// recording threads drop records (counted exactly, sent as gap frames too).
//
// Steps, log lines, window files and device activities are queued from any thread and sent on the
// next wake-up (the thread is woken at once, so a step reaches the viewer within a millisecond or
// two). One sender per process is expected (processSender()); fork() gives the child a fresh,
// not yet connected sender that reconnects on its next use (afterForkInChild()).
class StreamSender {
public:
    StreamSender();
    ~StreamSender();
    StreamSender(const StreamSender&) = delete;
    StreamSender& operator=(const StreamSender&) = delete;

    // Connects, sends the hello, switches recording on and starts the thread.
    bool start(const SenderOptions& options, std::string& error);
    // Sends what is left and a goodbye, then closes (waits up to ~2 s for a slow viewer).
    void stop(int32_t reason = 0);
    bool active() const;
    // True once the viewer went away (write failed); recording is then switched off.
    bool broken() const;

    // Counts a step for requester (see StepTracker). Returns the global step count afterwards.
    int64_t step(std::string_view requester);
    // The first step starts now, unless a step has already finished (e.g. the optimizer was built).
    void stepOrigin();
    void log(LogLevel level, std::string text);
    void info(std::string key, std::string value);
    void window(WindowFrame w);
    void device(std::vector<record::DeviceActivity> activities);

    // In a forked child: drop the parent's connection and reconnect with the child's pid.
    bool afterForkInChild(std::string& error);
    StatsFrame stats() const;
    std::string status() const;

    // pthread_atfork handlers of processSender().
    void prepareFork();
    void parentAfterFork();
    void childAfterFork();

private:
    struct State;
    void run(State* s);
    void cycle(State* s, bool final);
    void encodeRecords(State* s);
    bool flush(State* s, int timeoutMs);
    void restartIfForked();

    std::mutex m_lifecycle; // start/stop/fork restarts
    std::unique_ptr<State> m_state;
    bool m_forkLocked = false;
    std::atomic<bool> m_forked{false};
    SenderOptions m_forkOptions;
};

// The process's sender (never destroyed: threads may still record while statics go away). The C
// ABI (ks_stream_*) and the injection library use it.
StreamSender& processSender();

} // namespace ks::live
