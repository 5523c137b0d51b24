#include "core/live/streamsender.h"

#include "core/live/endpoint.h"
#include "core/live/senderenv.h"
#include "core/record/api.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <poll.h>
#include <pthread.h>
#include <sys/socket.h>
#include <unistd.h>
#include <unordered_map>
#include <unordered_set>
#include <variant>

namespace ks::live {

namespace {

using Info = std::pair<std::string, std::string>;
using Device = std::vector<record::DeviceActivity>;
using Item = std::variant<StepFrame, LogFrame, Info, WindowFrame, Device>;

// Records per events frame: 256 KiB frames keep the viewer's decode steps short.
constexpr uint32_t kRecordsPerFrame = 8192;

} // namespace

struct StreamSender::State {
    SenderOptions options;
    int fd = -1;
    std::thread thread;

    // Shared with the calling threads.
    std::mutex mutex;
    std::condition_variable cv;
    bool stopRequested = false;
    int32_t stopReason = 0;
    std::vector<Item> queue;
    uint64_t queueDropped = 0;
    uint64_t argsDroppedReported = 0;
    int64_t argsDroppedLogNs = 0;
    StepTracker steps;
    int64_t stepStart = 0;
    bool stepStarted = false; // a step has finished or the origin was set explicitly

    // Held by the sender thread while it drains the recorder, and by fork() (prepare handler), so
    // that the child never inherits the recorder's locks in a locked state.
    std::mutex forkMutex;

    // Sender thread only.
    std::string out;
    size_t outOff = 0;
    std::vector<uint8_t> definedNames;
    std::unordered_set<uint64_t> definedPayloads;
    std::unordered_map<uint64_t, std::string> threadNames;
    std::vector<WireRecord> scratch;
    std::vector<record::ThreadRecords> drained; // reused drain after drain
    std::vector<std::pair<uint32_t, std::string>> newStrings;
    bool enabledRecording = false;

    std::atomic<uint64_t> eventsSent{0};
    std::atomic<uint64_t> eventsDropped{0};
    std::atomic<uint64_t> bytesSent{0};
    std::atomic<uint64_t> batchesDropped{0};
    std::atomic<bool> broken{false};
    std::atomic<bool> running{false};

    size_t pending() const { return out.size() - outOff; }

    uint32_t defineName(uint32_t id)
    {
        if (id >= definedNames.size()) definedNames.resize(size_t(id) + 4096, 0);
        if (!definedNames[id]) {
            definedNames[id] = 1;
            newStrings.emplace_back(id, record::Recorder::instance().name(id));
        }
        return id;
    }
    uint32_t internString(const std::string& s) { return defineName(record::Recorder::instance().intern(s)); }
    void emitStrings()
    {
        if (newStrings.empty()) return;
        encodeStrings(out, newStrings);
        newStrings.clear();
    }
};

namespace {

std::atomic<bool> g_forkHandlersInstalled{false};

void forkPrepare();
void forkParent();
void forkChild();

} // namespace

StreamSender::StreamSender() = default;

StreamSender::~StreamSender()
{
    stop();
}

bool StreamSender::start(const SenderOptions& options, std::string& error)
{
    std::lock_guard life(m_lifecycle);
    if (m_state && m_state->running) {
        error = "a live stream is already running in this process";
        return false;
    }
    const std::string path = endpointPath(options.endpoint);
    if (path.empty()) {
        error =
            "not a socket endpoint: \"" + options.endpoint + "\" (expected unix:<path> or an absolute path)";
        return false;
    }
    const int fd = connectUnix(path, error);
    if (fd < 0) return false;
    // A larger socket buffer means fewer wake-ups per MB; the kernel caps it (net.core.wmem_max).
    const int sndbuf = 4 << 20;
    ::setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof sndbuf);

    auto s = std::make_unique<State>();
    s->options = options;
    if (s->options.memoryCapBytes == 0) s->options.memoryCapBytes = memoryCapFromEnvironment();
    s->options.maxPendingBytes = std::min(s->options.maxPendingBytes, s->options.memoryCapBytes / 8);
    s->fd = fd;
    record::Clock::initialize();
    HelloFrame hello;
    hello.pid = uint32_t(::getpid());
    hello.ppid = uint32_t(::getppid());
    hello.monotonicNs = int64_t(record::Clock::monotonicNs());
    hello.realtimeNs = record::Clock::realtimeNs();
    hello.host = hostName();
    hello.program = options.program.empty() ? selfComm() : options.program;
    hello.library =
        "libkinetoscope protocol " + std::to_string(kProtocolMajor) + "." + std::to_string(kProtocolMinor);
    hello.options = options.capture.empty() ? "{}" : options.capture;
    encodeHello(s->out, hello);
    s->stepStart = hello.monotonicNs;
    if (!flush(s.get(), 1000)) {
        error = "the viewer did not accept the hello: " + std::string(std::strerror(errno));
        ::close(fd);
        return false;
    }
    record::Recorder& rec = record::Recorder::instance();
    record::ChunkPool::instance().setLimit(s->options.memoryCapBytes / 4);
    if (!rec.active()) {
        rec.discardAll();
        rec.setActive(true);
        s->enabledRecording = true;
    }
    if (!g_forkHandlersInstalled.exchange(true)) ::pthread_atfork(forkPrepare, forkParent, forkChild);
    s->running = true;
    State* raw = s.get();
    s->thread = std::thread([this, raw] { run(raw); });
    m_state = std::move(s);
    return true;
}

void StreamSender::stop(int32_t reason)
{
    std::lock_guard life(m_lifecycle);
    if (!m_state) return;
    State* s = m_state.get();
    {
        std::lock_guard lock(s->mutex);
        s->stopRequested = true;
        s->stopReason = reason;
    }
    s->cv.notify_all();
    if (s->thread.joinable()) s->thread.join();
    if (s->fd >= 0) ::close(s->fd);
    s->fd = -1;
    s->running = false;
    if (s->enabledRecording) record::Recorder::instance().setActive(false);
    record::ChunkPool::instance().setLimit(0);
}

bool StreamSender::active() const
{
    return m_state && m_state->running && !m_state->broken;
}

bool StreamSender::broken() const
{
    return m_state && m_state->broken;
}

StatsFrame StreamSender::stats() const
{
    StatsFrame f;
    if (!m_state) return f;
    f.eventsSent = m_state->eventsSent;
    f.eventsDropped = m_state->eventsDropped;
    f.bytesSent = m_state->bytesSent;
    f.batchesDropped = m_state->batchesDropped;
    return f;
}

std::string StreamSender::status() const
{
    if (!m_state) return "not streaming";
    if (m_state->broken) return "the viewer closed the connection";
    return m_state->running ? "streaming to " + m_state->options.endpoint : "stopped";
}

namespace {

template <typename T>
bool enqueue(std::mutex& mutex, std::condition_variable& cv, std::vector<Item>& queue, uint64_t& dropped,
             size_t limit, T&& item)
{
    {
        std::lock_guard lock(mutex);
        if (queue.size() >= limit) {
            ++dropped;
            return false;
        }
        queue.emplace_back(std::forward<T>(item));
    }
    cv.notify_one();
    return true;
}

} // namespace

int64_t StreamSender::step(std::string_view requester)
{
    restartIfForked();
    State* s = m_state.get();
    if (!s || !s->running) return -1;
    const int64_t now = int64_t(record::Clock::monotonicNs());
    StepFrame f;
    int64_t global;
    {
        std::lock_guard lock(s->mutex);
        int64_t completed;
        if (s->steps.increment(requester, completed)) {
            f.number = completed;
            f.startNs = s->stepStart;
            f.endNs = now;
            f.tid = currentTid();
            s->stepStart = now;
            s->stepStarted = true;
            // Steps are tiny and precious: they bypass the queue limit.
            s->queue.emplace_back(f);
        }
        global = s->steps.current();
    }
    s->cv.notify_one();
    return global;
}

void StreamSender::stepOrigin()
{
    restartIfForked();
    State* s = m_state.get();
    if (!s) return;
    std::lock_guard lock(s->mutex);
    if (!s->stepStarted) {
        s->stepStart = int64_t(record::Clock::monotonicNs());
        s->stepStarted = true;
    }
}

void StreamSender::log(LogLevel level, std::string text)
{
    restartIfForked();
    State* s = m_state.get();
    if (!s || !s->running) return;
    LogFrame f;
    f.level = level;
    f.timeNs = int64_t(record::Clock::monotonicNs());
    f.text = std::move(text);
    enqueue(s->mutex, s->cv, s->queue, s->queueDropped, s->options.maxControlItems, std::move(f));
}

void StreamSender::info(std::string key, std::string value)
{
    restartIfForked();
    State* s = m_state.get();
    if (!s || !s->running) return;
    enqueue(s->mutex, s->cv, s->queue, s->queueDropped, s->options.maxControlItems,
            Info(std::move(key), std::move(value)));
}

void StreamSender::window(WindowFrame w)
{
    restartIfForked();
    State* s = m_state.get();
    if (!s || !s->running) return;
    enqueue(s->mutex, s->cv, s->queue, s->queueDropped, s->options.maxControlItems, std::move(w));
}

void StreamSender::device(std::vector<record::DeviceActivity> activities)
{
    State* s = m_state.get();
    if (!s || !s->running || activities.empty()) return;
    const size_t n = activities.size();
    if (!enqueue(s->mutex, s->cv, s->queue, s->queueDropped, s->options.maxControlItems,
                 std::move(activities)))
        s->eventsDropped += n;
}

// --- the sender thread -------------------------------------------------------------------------

void StreamSender::run(State* s)
{
    using namespace std::chrono;
    auto nextStats = steady_clock::now() + seconds(1);
    while (true) {
        bool stopping;
        if (s->pending() > 0) {
            // A backlog: spend the pause pushing it out as fast as the viewer reads (a socket
            // buffer's worth per wake-up would cap the stream at a few MB/s).
            flush(s, s->options.flushMs);
            std::lock_guard lock(s->mutex);
            stopping = s->stopRequested;
        } else {
            std::unique_lock lock(s->mutex);
            s->cv.wait_for(lock, milliseconds(s->options.flushMs),
                           [s] { return s->stopRequested || !s->queue.empty(); });
            stopping = s->stopRequested;
        }
        if (steady_clock::now() >= nextStats) {
            record::Clock::recalibrate();
            encodeStats(s->out, StatsFrame{s->eventsSent, s->eventsDropped, s->bytesSent, s->batchesDropped});
            nextStats = steady_clock::now() + seconds(1);
        }
        cycle(s, stopping);
        if (s->broken) break;
        if (stopping) {
            encodeGoodbye(s->out, s->stopReason,
                          StatsFrame{s->eventsSent, s->eventsDropped, s->bytesSent, s->batchesDropped});
            flush(s, 2000);
            break;
        }
        flush(s, 0);
    }
    if (s->broken && s->enabledRecording) record::Recorder::instance().setActive(false);
}

void StreamSender::cycle(State* s, bool final)
{
    std::vector<Item> items;
    {
        std::lock_guard lock(s->mutex);
        items.swap(s->queue);
        // Args refused by the recorder's payload store (its cap): said in the console when the
        // first is, then the running count at most every 5 s and at the end.
        const uint64_t argsDropped = record::Recorder::instance().payloadStats().dropped;
        const int64_t now = int64_t(record::Clock::monotonicNs());
        if (argsDropped > s->argsDroppedReported &&
            (s->argsDroppedReported == 0 || final || now - s->argsDroppedLogNs >= 5'000'000'000)) {
            s->argsDroppedLogNs = now;
            LogFrame f;
            f.level = LogLevel::Warning;
            f.timeNs = now;
            f.text = "args of " + std::to_string(argsDropped) +
                     " events were not kept: the args store is at its " +
                     std::to_string(record::Recorder::instance().payloadCap() >> 20) +
                     " MiB cap (KINETOSCOPE_MAX_ARGS_MB)";
            items.emplace_back(std::move(f));
            s->argsDroppedReported = argsDropped;
        }
        if (s->queueDropped) {
            LogFrame f;
            f.level = LogLevel::Warning;
            f.timeNs = int64_t(record::Clock::monotonicNs());
            f.text = std::to_string(s->queueDropped) + " log lines or windows were dropped (queue full)";
            items.emplace_back(std::move(f));
            s->queueDropped = 0;
        }
    }
    for (Item& item : items) {
        if (auto* st = std::get_if<StepFrame>(&item)) {
            encodeStep(s->out, *st);
        } else if (auto* lg = std::get_if<LogFrame>(&item)) {
            encodeLog(s->out, *lg);
        } else if (auto* in = std::get_if<Info>(&item)) {
            encodeInfo(s->out, in->first, in->second);
        } else if (auto* w = std::get_if<WindowFrame>(&item)) {
            encodeWindow(s->out, *w);
        } else if (auto* d = std::get_if<Device>(&item)) {
            if (!final && s->pending() > s->options.maxPendingBytes) {
                s->eventsDropped += d->size();
                ++s->batchesDropped;
                continue;
            }
            std::string frame;
            encodeDevice(frame, *d, [s](const std::string& text) { return s->internString(text); });
            s->emitStrings();
            s->out += frame;
            s->eventsSent += d->size();
        }
    }
    encodeRecords(s);
}

namespace {

// Time of record i, or of the nearest one before it with a time: Stack records carry return
// addresses in their time field.
uint64_t ticksAt(const std::vector<record::Record>& r, size_t i)
{
    while (i > 0 && (r[i].type == record::RecordType::Stack || r[i].type == record::RecordType::OpInfo))
        --i;
    return r[i].ticks;
}

} // namespace

void StreamSender::encodeRecords(State* s)
{
    std::vector<record::ThreadRecords>& threads = s->drained;
    {
        std::lock_guard forkLock(s->forkMutex);
        record::Recorder::instance().drainAll(threads);
    }
    record::Recorder& rec = record::Recorder::instance();
    bool dropping = false;
    for (const record::ThreadRecords& t : threads) {
        size_t i = 0;
        size_t mark = 0; // next of t.drops
        const size_t total = t.records.size();
        while (i < total || mark < t.drops.size()) {
            if (mark < t.drops.size() && t.drops[mark].index <= i) {
                // The thread dropped these itself (its buffers were full): say how many and where.
                GapFrame g;
                g.tid = t.tid;
                const int64_t now = int64_t(record::Clock::monotonicNs());
                g.fromNs = i > 0 ? record::Clock::toNs(ticksAt(t.records, i - 1)) : now;
                g.toNs = i < total ? record::Clock::toNs(ticksAt(t.records, i)) : now;
                if (g.toNs < g.fromNs) g.toNs = g.fromNs;
                g.dropped = t.drops[mark].count;
                s->eventsDropped += g.dropped;
                encodeGap(s->out, g);
                ++mark;
                continue;
            }
            if (s->pending() > s->options.maxPendingBytes) {
                // The viewer is behind: drop the rest of what this drain holds, and say where, so
                // ranges cut by the gap end there instead of swallowing what follows.
                if (!dropping) ++s->batchesDropped;
                dropping = true;
                GapFrame g;
                g.tid = t.tid;
                g.fromNs = record::Clock::toNs(ticksAt(t.records, i));
                g.toNs = record::Clock::toNs(ticksAt(t.records, total - 1));
                g.dropped = total - i;
                for (size_t m = mark; m < t.drops.size(); ++m)
                    g.dropped += t.drops[m].count;
                s->eventsDropped += g.dropped;
                encodeGap(s->out, g);
                break;
            }
            auto known = s->threadNames.find(t.tid);
            if (known == s->threadNames.end() || known->second != t.name) {
                s->threadNames[t.tid] = t.name;
                encodeThread(s->out, t.tid, t.name);
            }
            const size_t limit = mark < t.drops.size() ? t.drops[mark].index : total;
            size_t n = std::min<size_t>(kRecordsPerFrame, limit - i);
            // A Begin's Stack and OpInfo records go in its frame: the receiver pairs an OpInfo with
            // the Begin right before it.
            while (i + n < limit && (t.records[i + n].type == record::RecordType::Stack ||
                                     t.records[i + n].type == record::RecordType::OpInfo))
                ++n;
            s->scratch.resize(n);
            size_t sent = 0;
            for (size_t k = 0; k < n; ++k) {
                const record::Record& r = t.records[i + k];
                if (r.type == record::RecordType::Stack) {
                    // Native stacks (deviceType 0) are return addresses of this process: only its
                    // own maps can name them, which the window export does; they stay unsent.
                    if (r.deviceType != 1) continue;
                    // A "Call stack" text (protocol 1.2): its name is the text's id, sent as names are.
                    WireRecord& w = s->scratch[sent++];
                    w = WireRecord{};
                    w.type = uint8_t(r.type);
                    w.deviceType = 1;
                    w.deviceIndex = -1;
                    w.name = r.name;
                    if (r.name != 0) s->defineName(r.name);
                    continue;
                }
                WireRecord& w = s->scratch[sent++];
                // An OpInfo's time and name fields hold ids: they travel as recorded.
                const bool ids = r.type == record::RecordType::OpInfo;
                w.timeNs = ids ? int64_t(r.ticks) : record::Clock::toNs(r.ticks);
                w.type = uint8_t(r.type);
                w.deviceType = r.deviceType;
                w.deviceIndex = r.deviceIndex;
                w.name = r.name;
                w.a = r.a;
                w.b = r.b;
                if (ids) continue;
                if (r.name != 0) s->defineName(r.name);
                if (r.type == record::RecordType::Complete) w.a = uint64_t(record::Clock::toNs(r.a));
                // Marks carry args too (the memory categories' "[memory category]" marks).
                const bool args = r.type == record::RecordType::Begin || r.type == record::RecordType::Mark;
                if (args && r.a != 0 && s->definedPayloads.insert(r.a).second)
                    encodePayload(s->out, r.a, rec.payload(r.a));
            }
            s->emitStrings();
            if (sent > 0) encodeEvents(s->out, t.tid, s->scratch.data(), uint32_t(sent));
            s->eventsSent += sent;
            i += n;
            // Hand what is encoded to the socket as we go: a big drain must not wait for all of
            // it, and the pending check above then sees what the viewer really took.
            flush(s, 0);
        }
    }
}

bool StreamSender::flush(State* s, int timeoutMs)
{
    using namespace std::chrono;
    const auto deadline = steady_clock::now() + milliseconds(timeoutMs);
    while (s->pending() > 0 && s->fd >= 0) {
        const ssize_t n = ::send(s->fd, s->out.data() + s->outOff, s->pending(), MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n > 0) {
            s->outOff += size_t(n);
            s->bytesSent += uint64_t(n);
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            const int left = int(duration_cast<milliseconds>(deadline - steady_clock::now()).count());
            if (left <= 0) break;
            pollfd p{s->fd, POLLOUT, 0};
            ::poll(&p, 1, std::min(left, 50));
            continue;
        }
        // The viewer went away: stop recording so the program runs at full speed again.
        if (!s->broken.exchange(true))
            std::fprintf(stderr, "kinetoscope: the live viewer closed the connection; recording stopped\n");
        s->out.clear();
        s->outOff = 0;
        return false;
    }
    // Compact only once the sent part is at least half: moving the unsent rest then costs no more
    // than the bytes already sent (a backlog of tens of MB must not be moved per frame).
    if (s->outOff > 0 && s->outOff >= s->out.size() / 2) {
        s->out.erase(0, s->outOff);
        s->outOff = 0;
    }
    return s->pending() == 0;
}

// --- fork --------------------------------------------------------------------------------------

void StreamSender::prepareFork()
{
    if (m_state && m_state->running) {
        m_state->forkMutex.lock();
        m_forkLocked = true;
    }
}

void StreamSender::parentAfterFork()
{
    if (m_forkLocked) {
        m_forkLocked = false;
        m_state->forkMutex.unlock();
    }
}

void StreamSender::childAfterFork()
{
    m_forkLocked = false;
    if (!m_state) return;
    // The sender thread does not exist here and the state's locks may be held by threads that are
    // gone: leave the old state alone (leaked on purpose) and reconnect later with our own pid.
    State* old = m_state.release();
    if (old->fd >= 0) ::close(old->fd);
    if (old->running && !old->broken) {
        m_forkOptions = old->options;
        m_forked = true;
    }
}

void StreamSender::restartIfForked()
{
    if (!m_forked.exchange(false)) return;
    // Records inherited from the parent are the parent's to send.
    record::Recorder::instance().discardAll();
    std::string error;
    if (!start(m_forkOptions, error))
        std::fprintf(stderr, "kinetoscope: cannot reconnect the live stream after fork: %s\n", error.c_str());
}

bool StreamSender::afterForkInChild(std::string& error)
{
    if (!m_forked) {
        if (active()) return true;
        error = "this process is not streaming";
        return false;
    }
    restartIfForked();
    if (!active()) {
        error = "cannot reconnect to the viewer";
        return false;
    }
    return true;
}

StreamSender& processSender()
{
    static StreamSender* s = new StreamSender();
    return *s;
}

namespace {

void forkPrepare()
{
    processSender().prepareFork();
}
void forkParent()
{
    processSender().parentAfterFork();
}
void forkChild()
{
    processSender().childAfterFork();
}

} // namespace

} // namespace ks::live
