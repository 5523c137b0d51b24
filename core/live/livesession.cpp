#include "core/live/livesession.h"

#include "core/live/childprocess.h"
#include "core/live/endpoint.h"
#include "core/live/launchenv.h"
#include "core/live/procsampler.h"
#include "core/record/clock.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <poll.h>
#include <unistd.h>

namespace ks::live {

namespace {

constexpr int kPollMs = 20;
constexpr int64_t kSampleNs = 100'000'000;
// After the target exits, workers that inherited its pipes or sockets get this long to finish.
constexpr int64_t kExitGraceNs = 3'000'000'000;
// Bytes read from one connection per turn before the others (and the GUI) get theirs.
constexpr size_t kReadPerTurn = 8u << 20;
constexpr size_t kMaxOutputLines = 50000;
constexpr size_t kMaxLineBytes = 64 * 1024;
constexpr int64_t kAcceptBackoffMinNs = 50'000'000;
constexpr int64_t kAcceptBackoffMaxNs = 1'000'000'000;

} // namespace

std::string SessionStatus::summary() const
{
    std::string s;
    switch (state) {
    case State::Idle:
        s = "not started";
        break;
    case State::Running:
        s = listening ? "listening" : "running";
        break;
    case State::Stopping:
        s = "stopping";
        break;
    case State::Ended:
        s = "ended";
        break;
    }
    s += " · " + std::to_string(counters.events + counters.windowEvents) + " events · " +
         std::to_string(counters.steps) + " steps";
    if (counters.deviceSlices) s += " · " + std::to_string(counters.deviceSlices) + " GPU ops";
    if (counters.windows) s += " · " + std::to_string(counters.windows) + " windows";
    const uint64_t dropped = counters.senderDropped + counters.overBudget;
    if (dropped) s += " · " + std::to_string(dropped) + " dropped";
    if (!exit.empty()) s += " · target " + exit;
    if (!error.empty()) s += " · error: " + error;
    return s;
}

struct LiveSession::Conn {
    int fd = -1;
    int peerPid = 0;
    LiveIngest::ConnId id = 0;
    FrameStream stream;
    bool open = true;
    uint64_t bytes = 0;
};

LiveSession::LiveSession(Trace& trace, std::string traceName)
    : m_trace(trace), m_ingest(std::make_unique<LiveIngest>(trace, std::move(traceName)))
{}

LiveSession::~LiveSession()
{
    m_stopRequested = true;
    // A target still running when the viewer goes away is not left behind.
    m_interruptMs = std::min(m_interruptMs, 1000);
    m_terminateMs = std::min(m_terminateMs, 1000);
    if (m_thread.joinable()) m_thread.join();
    if (m_listenFd >= 0) {
        ::close(m_listenFd);
        ::unlink(m_endpoint.c_str());
    }
    for (auto& c : m_conns)
        if (c->fd >= 0) ::close(c->fd);
    removeTree(m_windowDir);
}

void LiveSession::setStopTimeouts(int interruptMs, int terminateMs)
{
    m_interruptMs = interruptMs;
    m_terminateMs = terminateMs;
}

void LiveSession::setBudget(uint64_t bytes)
{
    std::lock_guard lock(m_ingestMutex);
    m_ingest->setBudget(bytes);
}

bool LiveSession::openEndpoint(std::string& error)
{
    if (m_listenFd >= 0 || m_thread.joinable()) {
        error = "this session has already started";
        return false;
    }
    std::string warning;
    const std::string dir = privateSocketDir(error, &warning);
    if (dir.empty()) return false;
    if (!warning.empty()) note(warning, LogLevel::Warning);
    // Sessions killed with SIGKILL leave their socket and window directory behind.
    if (const int stale = removeStaleSessionFiles(dir))
        note("removed " + std::to_string(stale) + " leftovers of ended sessions from " + dir);
    m_endpoint = newEndpointPath("session", error);
    if (m_endpoint.empty()) return false;
    m_listenFd = listenUnix(m_endpoint, error);
    if (m_listenFd < 0) return false;
    // The pid in the name lets a later session tell a dead session's directory from a live one's.
    std::string tmpl = dir + "/windows-" + std::to_string(::getpid()) + "-XXXXXX";
    if (::mkdtemp(tmpl.data())) m_windowDir = tmpl;
    m_ingest->setWindowDir(m_windowDir);
    std::lock_guard lock(m_stateMutex);
    m_status.endpoint = m_endpoint;
    return true;
}

bool LiveSession::launch(const LaunchRequest& request, std::string& error)
{
    if (request.argv.empty()) {
        error = "no program to run";
        return false;
    }
    error = checkPythonScript(request.argv, request.workdir);
    if (!error.empty()) return false;
    if (!openEndpoint(error)) return false;
    const LaunchEnvironment env = buildLaunchEnvironment(currentEnvironment(), request.env, m_endpoint,
                                                         m_windowDir, request.capture, request.resources);
    auto child = std::make_unique<ChildProcess>();
    ChildProcess::Options o;
    o.argv = request.argv;
    o.workdir = request.workdir;
    o.env = env.env;
    if (!child->start(o, error)) return false;
    m_child = std::move(child);
    // Name the process after the script (python train.py -> train.py) until it introduces itself.
    m_programName = programLabel(request.argv);
    {
        std::lock_guard lock(m_ingestMutex);
        m_ingest->process(uint32_t(m_child->pid()), m_programName);
    }
    {
        std::lock_guard lock(m_stateMutex);
        m_status.state = SessionStatus::State::Running;
        m_status.pid = m_child->pid();
    }
    std::string cmd;
    for (const std::string& a : request.argv)
        cmd += (cmd.empty() ? "" : " ") + a;
    note("started " + cmd + " (pid " + std::to_string(m_child->pid()) + "), mode " +
         CaptureOptions::modeName(request.capture.mode) + ", capture " + request.capture.captureList());
    for (const std::string& n : env.notes)
        note(n);
    m_thread = std::thread([this] { run(); });
    return true;
}

bool LiveSession::listen(std::string& error)
{
    if (!openEndpoint(error)) return false;
    {
        std::lock_guard lock(m_stateMutex);
        m_status.state = SessionStatus::State::Running;
        m_status.listening = true;
    }
    note("listening on " + m_endpoint + " — programs connect with ks_stream_to() or KINETOSCOPE_ENDPOINT");
    m_thread = std::thread([this] { run(); });
    return true;
}

void LiveSession::stop()
{
    if (m_stopRequested.exchange(true)) return;
    std::lock_guard lock(m_stateMutex);
    if (m_status.state == SessionStatus::State::Running) m_status.state = SessionStatus::State::Stopping;
}

SessionStatus LiveSession::status() const
{
    std::lock_guard lock(m_stateMutex);
    return m_status;
}

bool LiveSession::waitFinished(int timeoutMs) const
{
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeoutMs);
    while (!finished()) {
        if (std::chrono::steady_clock::now() >= deadline) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return true;
}

std::vector<OutputLine> LiveSession::takeOutput()
{
    std::lock_guard lock(m_stateMutex);
    std::vector<OutputLine> out;
    out.swap(m_output);
    return out;
}

std::vector<StepArrival> LiveSession::takeSteps()
{
    std::lock_guard lock(m_stateMutex);
    std::vector<StepArrival> out;
    out.swap(m_steps);
    return out;
}

void LiveSession::pushOutput(OutputLine line)
{
    std::lock_guard lock(m_stateMutex);
    if (m_output.size() >= kMaxOutputLines) {
        // Nobody is reading (or the target prints like mad): keep the newest lines.
        const size_t drop = kMaxOutputLines / 10;
        m_output.erase(m_output.begin(), m_output.begin() + long(drop));
        m_status.outputDropped += drop;
    }
    m_output.push_back(std::move(line));
}

void LiveSession::note(const std::string& text, LogLevel level)
{
    OutputLine l;
    l.source = OutputLine::Source::Session;
    l.level = level;
    l.text = text;
    pushOutput(std::move(l));
}

void LiveSession::setError(const std::string& text)
{
    {
        std::lock_guard lock(m_stateMutex);
        if (m_status.error.empty()) m_status.error = text;
    }
    note(text, LogLevel::Error);
}

// --- the session thread ------------------------------------------------------------------------

void LiveSession::run()
{
    ProcSampler sampler;
    int64_t nextSample = record::Clock::nowNs();
    while (true) {
        std::vector<pollfd> fds;
        // While accept() is out of resources a pending connection keeps the socket readable: leave
        // it out of the poll, or the loop would spin.
        if (m_listenFd >= 0 && record::Clock::nowNs() >= m_acceptPausedUntil)
            fds.push_back({m_listenFd, POLLIN, 0});
        if (m_child && m_child->stdoutFd() >= 0) fds.push_back({m_child->stdoutFd(), POLLIN, 0});
        if (m_child && m_child->stderrFd() >= 0) fds.push_back({m_child->stderrFd(), POLLIN, 0});
        for (auto& c : m_conns)
            if (c->open) fds.push_back({c->fd, POLLIN, 0});
        ::poll(fds.data(), nfds_t(fds.size()), kPollMs);

        const int64_t now = record::Clock::nowNs();
        {
            std::lock_guard lock(m_ingestMutex);
            if (now >= m_acceptPausedUntil) acceptAll();
            for (size_t i = 0; i < m_conns.size(); ++i)
                if (m_conns[i]->open) readConn(*m_conns[i]);
            if (m_child && m_child->stdoutFd() >= 0 &&
                !readPipe(m_child->stdoutFd(), OutputLine::Source::Stdout, m_outPartial))
                m_child->closeStdout();
            if (m_child && m_child->stderrFd() >= 0 &&
                !readPipe(m_child->stderrFd(), OutputLine::Source::Stderr, m_errPartial))
                m_child->closeStderr();
            if (now >= nextSample) {
                sampleProcesses(sampler, now);
                nextSample = now + kSampleNs;
            }
            publish();
        }

        if (m_child && m_child->running() && m_child->poll()) {
            m_exitAt = now;
            std::lock_guard lock(m_stateMutex);
            m_status.exit = m_child->describeExit();
            m_status.exitCode = m_child->exitCode();
            m_status.exitSignal = m_child->termSignal();
        }
        if (m_exitAt && m_status.exit.size() && !m_exitNoted) {
            m_exitNoted = true;
            note("target " + m_child->describeExit(),
                 m_child->exitCode() == 0 ? LogLevel::Info : LogLevel::Warning);
        }
        if (m_stopRequested) escalateStop(now);
        if (shouldEnd(now)) break;
    }
    finish();
}

bool LiveSession::shouldEnd(int64_t now)
{
    if (!m_child) return m_stopRequested; // listening: until stopped
    if (!m_exitAt) return false;
    size_t open = 0;
    for (auto& c : m_conns)
        open += c->open;
    const bool drained = open == 0 && m_child->stdoutFd() < 0 && m_child->stderrFd() < 0;
    return drained || now - m_exitAt > kExitGraceNs;
}

void LiveSession::publish()
{
    m_ingest->publish();
    std::vector<StepArrival> steps = m_ingest->takeSteps();
    std::vector<LogLine> logs = m_ingest->takeLogs();
    std::lock_guard state(m_stateMutex);
    m_status.counters = m_ingest->counters();
    m_status.bytes = m_bytes;
    m_status.connections = m_conns.size();
    size_t open = 0;
    for (auto& c : m_conns)
        open += c->open;
    m_status.openConnections = open;
    for (size_t i = 0; i < m_ingest->connectionCount(); ++i)
        m_status.helloSeen |= m_ingest->connection(LiveIngest::ConnId(i)).hello;
    m_steps.insert(m_steps.end(), steps.begin(), steps.end());
    for (LogLine& l : logs) {
        if (m_output.size() >= kMaxOutputLines) {
            ++m_status.outputDropped;
            continue;
        }
        m_output.push_back(OutputLine{OutputLine::Source::Target, l.level, l.pid, std::move(l.text)});
    }
}

void LiveSession::noteAcceptFailures()
{
    if (m_acceptFailures == 0) return;
    note(m_acceptError + " (" + std::to_string(m_acceptFailures) +
             (m_acceptFailures == 1 ? " time" : " times") + " in all; new connections waited meanwhile)",
         LogLevel::Warning);
    m_acceptFailures = 0;
}

void LiveSession::acceptAll()
{
    while (m_listenFd >= 0) {
        int peer = 0;
        std::string why;
        bool outOfResources = false;
        const int fd = acceptPeer(m_listenFd, peer, why, &outOfResources);
        if (fd < 0 && outOfResources) {
            // Typically EMFILE: the connection stays queued. Existing connections go on being
            // served; new ones are retried after a pause (a tight retry loop would only spin).
            if (m_acceptFailures++ == 0)
                note(why + ": new connections wait until descriptors are free (retrying with back-off)",
                     LogLevel::Warning);
            m_acceptError = why;
            m_acceptBackoffNs =
                std::clamp<int64_t>(m_acceptBackoffNs * 2, kAcceptBackoffMinNs, kAcceptBackoffMaxNs);
            m_acceptPausedUntil = record::Clock::nowNs() + m_acceptBackoffNs;
            return;
        }
        if (fd < 0) {
            if (why.empty()) return;
            note(why, LogLevel::Warning);
            continue;
        }
        m_acceptBackoffNs = 0;
        noteAcceptFailures();
        auto c = std::make_unique<Conn>();
        c->fd = fd;
        c->peerPid = peer;
        c->id = m_ingest->open(uint32_t(peer));
        m_conns.push_back(std::move(c));
    }
}

void LiveSession::readConn(Conn& c)
{
    std::vector<char>& buf = m_readBuffer;
    if (buf.empty()) buf.resize(256 * 1024);
    size_t taken = 0;
    while (c.open && taken < kReadPerTurn) {
        const ssize_t n = ::read(c.fd, buf.data(), buf.size());
        if (n > 0) {
            taken += size_t(n);
            c.bytes += uint64_t(n);
            m_bytes += uint64_t(n);
            c.stream.feed(buf.data(), size_t(n));
            Frame f;
            std::string error;
            while (c.stream.next(f)) {
                if (!m_ingest->apply(c.id, f, error)) {
                    closeConn(c, "stream error from pid " + std::to_string(c.peerPid) + ": " + error, true);
                    return;
                }
            }
            if (c.stream.failed()) {
                closeConn(c, "stream error from pid " + std::to_string(c.peerPid) + ": " + c.stream.error(),
                          true);
                return;
            }
            continue;
        }
        if (n == 0) {
            const ConnectionInfo& info = m_ingest->connection(c.id);
            if (c.stream.pending() > 0) {
                std::string why = "the stream from pid " + std::to_string(c.peerPid) +
                                  " ended inside a frame (" + std::to_string(c.stream.pending()) + " bytes";
                if (c.stream.announced()) why += " of " + std::to_string(c.stream.announced());
                why += ")";
                closeConn(c, why, true);
            } else if (c.bytes == 0) {
                closeConn(c, {}, false); // a connect without data (a probe): nothing to report
            } else if (!info.goodbye) {
                closeConn(c,
                          "pid " + std::to_string(c.peerPid) +
                              " closed its stream without a goodbye (it crashed, was killed, or left through "
                              "os._exit)",
                          false);
            } else {
                closeConn(c, {}, false);
            }
            return;
        }
        if (errno == EAGAIN || errno == EWOULDBLOCK) return;
        if (errno == EINTR) continue;
        closeConn(c,
                  "reading the stream from pid " + std::to_string(c.peerPid) +
                      " failed: " + std::strerror(errno),
                  true);
        return;
    }
}

void LiveSession::closeConn(Conn& c, const std::string& why, bool error)
{
    if (!c.open) return;
    c.open = false;
    ::close(c.fd);
    c.fd = -1;
    m_ingest->close(c.id);
    if (why.empty()) return;
    if (error)
        setError(why);
    else
        note(why);
}

bool LiveSession::readPipe(int fd, OutputLine::Source source, std::string& partial)
{
    char buf[65536];
    for (int rounds = 0; rounds < 64; ++rounds) {
        const ssize_t n = ::read(fd, buf, sizeof buf);
        if (n > 0) {
            partial.append(buf, size_t(n));
            size_t pos = 0;
            while (true) {
                const size_t nl = partial.find('\n', pos);
                if (nl == std::string::npos) break;
                std::string line = partial.substr(pos, nl - pos);
                if (!line.empty() && line.back() == '\r') line.pop_back();
                pushOutput(OutputLine{source, LogLevel::Info, uint32_t(m_child ? m_child->pid() : 0),
                                      std::move(line)});
                pos = nl + 1;
            }
            partial.erase(0, pos);
            if (partial.size() > kMaxLineBytes) {
                pushOutput(OutputLine{source, LogLevel::Info, uint32_t(m_child->pid()), partial});
                partial.clear();
            }
            continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return true;
        if (n < 0 && errno == EINTR) continue;
        // End of output (or an error, which ends it as well).
        if (!partial.empty()) {
            pushOutput(OutputLine{source, LogLevel::Info, uint32_t(m_child ? m_child->pid() : 0), partial});
            partial.clear();
        }
        return false;
    }
    return true;
}

void LiveSession::sampleProcesses(ProcSampler& sampler, int64_t now)
{
    std::vector<int> pids;
    if (m_child && m_child->running()) pids.push_back(m_child->pid());
    for (auto& c : m_conns) {
        if (!c->open) continue;
        const uint32_t pid = m_ingest->connection(c->id).pid;
        if (pid && std::find(pids.begin(), pids.end(), int(pid)) == pids.end()) pids.push_back(int(pid));
    }
    for (int pid : pids) {
        ProcSampler::Sample s;
        if (!sampler.sample(pid, now, s)) continue;
        if (s.hasCpu) m_ingest->sample(uint32_t(pid), now, s.cpuPercent, s.rssMiB);
    }
}

void LiveSession::escalateStop(int64_t now)
{
    if (!m_child) return;
    if (!m_child->running()) return;
    if (m_stopPhase == 0) {
        m_child->signal(SIGINT);
        m_stopPhase = 1;
        m_stopPhaseAt = now;
        note("stopping: SIGINT sent to the target's process group");
    } else if (m_stopPhase == 1 && now - m_stopPhaseAt > int64_t(m_interruptMs) * 1000000) {
        m_child->signal(SIGTERM);
        m_stopPhase = 2;
        m_stopPhaseAt = now;
        note("the target ignored SIGINT for " + std::to_string(m_interruptMs / 1000.0).substr(0, 4) +
                 " s: SIGTERM sent",
             LogLevel::Warning);
    } else if (m_stopPhase == 2 && now - m_stopPhaseAt > int64_t(m_terminateMs) * 1000000) {
        m_child->signal(SIGKILL);
        m_stopPhase = 3;
        m_stopPhaseAt = now;
        note("the target ignored SIGTERM: SIGKILL sent", LogLevel::Warning);
    }
}

void LiveSession::finish()
{
    noteAcceptFailures();
    {
        std::lock_guard lock(m_ingestMutex);
        for (auto& c : m_conns)
            closeConn(*c, {}, false);
        publish();
    }
    if (m_listenFd >= 0) {
        ::close(m_listenFd);
        ::unlink(m_endpoint.c_str());
        m_listenFd = -1;
    }
    removeTree(m_windowDir);
    m_windowDir.clear();
    if (m_child) {
        m_child->closeStdout();
        m_child->closeStderr();
    }
    SessionStatus st = status();
    if (!st.helloSeen && m_child)
        note("no data arrived from the target: the bootstrap did not run (not a Python program, python -S or "
             "-I, or a sitecustomize problem; see the output above)",
             LogLevel::Warning);
    else if (st.helloSeen && st.counters.steps == 0 && !st.listening)
        note("the target connected but no training step arrived (no optimizer.step() or profiler step() "
             "was seen)",
             LogLevel::Warning);
    {
        std::lock_guard lock(m_stateMutex);
        m_status.state = SessionStatus::State::Ended;
        st = m_status;
    }
    note("session ended: " + st.summary());
    m_finished.store(true, std::memory_order_release);
}

} // namespace ks::live
