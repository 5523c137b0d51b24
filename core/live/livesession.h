#pragma once

#include "core/live/captureoptions.h"
#include "core/live/liveingest.h"
#include "core/live/liveresources.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace ks::live {

class ChildProcess;
class ProcSampler;

struct OutputLine {
    enum class Source : uint8_t {
        Stdout,  // the target's standard output
        Stderr,  // its standard error
        Target,  // a log frame from the target's bootstrap
        Session, // what the session itself has to say (launch, stop, how it ended)
    };
    Source source = Source::Session;
    LogLevel level = LogLevel::Info;
    uint32_t pid = 0;
    std::string text;
};

struct SessionStatus {
    enum class State { Idle, Running, Stopping, Ended };
    State state = State::Idle;
    bool listening = false; // accepts connections from any program of the user (no launched target)
    std::string endpoint;
    int pid = -1;     // the launched target
    std::string exit; // "exited with code 0", "killed by signal 9 (SIGKILL)"; empty while running
    int exitCode = -1;
    int exitSignal = 0;
    std::string error; // the first stream or launch error; empty when none
    IngestCounters counters;
    uint64_t bytes = 0;
    size_t connections = 0;
    size_t openConnections = 0;
    bool helloSeen = false;
    uint64_t outputDropped = 0;

    bool ended() const { return state == State::Ended; }
    // One line: state, events, steps, drops, how it ended.
    std::string summary() const;
};

struct LaunchRequest {
    std::vector<std::string> argv;
    std::string workdir;
    // Environment changes on top of the viewer's own environment; nullopt removes a variable.
    std::vector<std::pair<std::string, std::optional<std::string>>> env;
    CaptureOptions capture;
    LiveResources resources;
};

// One live session: the viewer's end of the protocol. It owns a private socket, optionally
// launches the target with an environment that makes it stream (launch()), or waits for programs
// that call ks_stream_to() (listen()), and runs one thread that accepts connections, reads and
// applies frames to the trace (LiveIngest), collects the target's output, samples its CPU and
// memory from /proc, and notices how it ends. Fork children and other ranks connect on their own and
// appear as further processes of the same trace.
//
// Backpressure: the thread reads a bounded amount per connection and turn and applies it before
// reading more, so a target that produces faster than the model can take fills its socket and then
// drops (and counts) batches on its side; neither the viewer's memory nor its GUI thread is at
// the mercy of the target. The model itself is capped by setBudget().
class LiveSession {
public:
    explicit LiveSession(Trace& trace, std::string traceName = "live session");
    ~LiveSession(); // stops (the target is killed if still running) and joins
    LiveSession(const LiveSession&) = delete;
    LiveSession& operator=(const LiveSession&) = delete;

    bool launch(const LaunchRequest& request, std::string& error);
    bool listen(std::string& error);
    // Ends the session: the target gets SIGINT, then SIGTERM, then SIGKILL after the timeouts (a
    // listening session just closes). Returns at once.
    void stop();
    void setStopTimeouts(int interruptMs, int terminateMs);
    void setBudget(uint64_t bytes);

    SessionStatus status() const;
    bool finished() const { return m_finished.load(std::memory_order_acquire); }
    // Waits until the session ended or the timeout passed; true when it ended.
    bool waitFinished(int timeoutMs) const;
    std::vector<OutputLine> takeOutput();
    std::vector<StepArrival> takeSteps();
    // Pauses ingest while held (saving a consistent trace while the session runs).
    std::unique_lock<std::mutex> holdIngest() { return std::unique_lock<std::mutex>(m_ingestMutex); }
    const std::string& endpoint() const { return m_endpoint; }
    const LiveIngest& ingest() const { return *m_ingest; }

private:
    struct Conn;
    bool openEndpoint(std::string& error);
    void run();
    void acceptAll();
    void noteAcceptFailures();
    void readConn(Conn& c);
    void closeConn(Conn& c, const std::string& why, bool error);
    // False at end of output.
    bool readPipe(int fd, OutputLine::Source source, std::string& partial);
    void sampleProcesses(ProcSampler& sampler, int64_t nowNs);
    bool shouldEnd(int64_t nowNs);
    void publish();
    void escalateStop(int64_t nowNs);
    void finish();
    void note(const std::string& text, LogLevel level = LogLevel::Info);
    void setError(const std::string& text);
    void pushOutput(OutputLine line);

    Trace& m_trace;
    std::unique_ptr<LiveIngest> m_ingest;
    std::unique_ptr<ChildProcess> m_child;
    std::vector<std::unique_ptr<Conn>> m_conns;
    std::thread m_thread;
    std::string m_endpoint;
    std::string m_windowDir;
    int m_listenFd = -1;
    std::string m_outPartial, m_errPartial;
    std::vector<char> m_readBuffer;
    std::string m_programName;

    std::mutex m_ingestMutex;
    mutable std::mutex m_stateMutex;
    SessionStatus m_status;
    std::vector<OutputLine> m_output;
    std::vector<StepArrival> m_steps;

    std::atomic<bool> m_stopRequested{false};
    std::atomic<bool> m_finished{false};
    int m_stopPhase = 0;
    int64_t m_stopPhaseAt = 0;
    int64_t m_exitAt = 0;
    bool m_exitNoted = false;
    int m_interruptMs = 5000;
    int m_terminateMs = 5000;
    uint64_t m_bytes = 0;
    // accept() out of resources (EMFILE...): the listening socket rests until then, with a back-off
    // that doubles up to a second; failures are counted and logged once, with the count at the end.
    int64_t m_acceptPausedUntil = 0;
    int64_t m_acceptBackoffNs = 0;
    uint64_t m_acceptFailures = 0;
    std::string m_acceptError;
};

} // namespace ks::live
