#include "core/record/api.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <sys/syscall.h>
#include <unistd.h>

namespace ks::record {

std::atomic<bool> g_recording{false};
thread_local ThreadBuffer* t_buffer __attribute__((tls_model("initial-exec"))) = nullptr;

namespace {

// Marks the thread's buffer as orphaned when the thread exits; the buffer stays until drained.
struct ThreadExit {
    ThreadBuffer* buffer = nullptr;
    ~ThreadExit()
    {
        if (buffer) buffer->markExited();
        t_buffer = nullptr;
    }
};
thread_local ThreadExit t_exit;

// What one stored payload costs besides its text: the deque's string, the id map's node.
constexpr uint64_t kPayloadOverhead = 96;

uint64_t payloadCapFromEnv()
{
    uint64_t mb = 64;
    if (const char* env = std::getenv("KINETOSCOPE_MAX_ARGS_MB")) {
        char* end = nullptr;
        const unsigned long long v = std::strtoull(env, &end, 10);
        if (end != env && *end == '\0' && v >= 1 && v <= (1ull << 20))
            mb = v;
        else
            std::fprintf(
                stderr,
                "kinetoscope: KINETOSCOPE_MAX_ARGS_MB=%s is not a size in MiB (1..%llu); using %llu\n", env,
                1ull << 20, (unsigned long long)mb);
    }
    return mb << 20;
}

} // namespace

ThreadBuffer* registerThread()
{
    return Recorder::instance().registerCurrentThread();
}

Recorder& Recorder::instance()
{
    // Never destroyed: threads may still record while static destructors run.
    static Recorder* r = new Recorder();
    return *r;
}

Recorder::Recorder() : m_pid(uint64_t(::getpid()))
{
    Clock::initialize();
    m_names.emplace_back(); // id 0: no name
    m_payloads.emplace_back();
    m_payloadCap = payloadCapFromEnv();
}

uint32_t Recorder::intern(std::string_view name)
{
    std::lock_guard lock(m_namesMutex);
    auto it = m_nameIds.find(std::string(name));
    if (it != m_nameIds.end()) return it->second;
    const uint32_t id = uint32_t(m_names.size());
    m_names.emplace_back(name);
    m_nameIds.emplace(std::string(name), id);
    return id;
}

std::string Recorder::name(uint32_t id) const
{
    std::lock_guard lock(m_namesMutex);
    return id < m_names.size() ? m_names[id] : std::string();
}

uint64_t Recorder::addPayload(std::string json)
{
    std::lock_guard lock(m_namesMutex);
    // A caller that adds the same args per event (no id cache) stores them once.
    if (auto it = m_payloadIds.find(json); it != m_payloadIds.end()) {
        ++m_payloadStats.deduplicated;
        return it->second;
    }
    const uint64_t cost = json.size() + kPayloadOverhead;
    if (m_payloadStats.bytes + cost > m_payloadCap) {
        if (m_payloadStats.dropped++ == 0)
            std::fprintf(
                stderr,
                "kinetoscope: event args over the %llu MiB cap: further distinct args are not kept "
                "(counted in the trace metadata as kinetoscope_args_dropped; KINETOSCOPE_MAX_ARGS_MB raises "
                "the cap)\n",
                (unsigned long long)(m_payloadCap >> 20));
        return 0;
    }
    const uint64_t id = m_payloads.size();
    m_payloads.push_back(std::move(json));
    m_payloadIds.emplace(std::string_view(m_payloads.back()), id);
    m_payloadStats.bytes += cost;
    ++m_payloadStats.stored;
    return id;
}

Recorder::PayloadStats Recorder::payloadStats() const
{
    std::lock_guard lock(m_namesMutex);
    return m_payloadStats;
}

uint64_t Recorder::payloadCap() const
{
    std::lock_guard lock(m_namesMutex);
    return m_payloadCap;
}

void Recorder::setPayloadCap(uint64_t bytes)
{
    std::lock_guard lock(m_namesMutex);
    m_payloadCap = bytes;
}

std::string Recorder::payload(uint64_t id) const
{
    std::lock_guard lock(m_namesMutex);
    return id < m_payloads.size() ? m_payloads[id] : std::string();
}

void Recorder::setActive(bool on)
{
    if (on) ChunkPool::instance().reserve(4);
    g_recording.store(on, std::memory_order_release);
}

bool Recorder::active() const
{
    return g_recording.load(std::memory_order_relaxed);
}

ThreadBuffer* Recorder::registerCurrentThread()
{
    if (t_buffer) return t_buffer;
    const uint64_t tid = uint64_t(::syscall(SYS_gettid));
    auto buffer = std::make_unique<ThreadBuffer>(tid, std::string());
    ThreadBuffer* b = buffer.get();
    {
        std::lock_guard lock(m_threadsMutex);
        m_threads.push_back(std::move(buffer));
    }
    t_buffer = b;
    t_exit.buffer = b;
    return b;
}

void Recorder::setCurrentThreadName(std::string name)
{
    ThreadBuffer* b = registerCurrentThread();
    std::lock_guard lock(m_threadsMutex);
    b->setName(std::move(name));
}

std::vector<ThreadRecords> Recorder::drainAll()
{
    std::vector<ThreadRecords> out;
    drainAll(out);
    out.erase(std::remove_if(out.begin(), out.end(),
                             [](const ThreadRecords& e) { return e.records.empty() && e.drops.empty(); }),
              out.end());
    return out;
}

void Recorder::drainAll(std::vector<ThreadRecords>& into)
{
    std::lock_guard drainLock(m_drainMutex);
    std::vector<ThreadBuffer*> threads;
    {
        std::lock_guard lock(m_threadsMutex);
        threads.reserve(m_threads.size());
        for (auto& t : m_threads)
            threads.push_back(t.get());
    }
    // Entries are matched to threads by tid so each keeps its capacity across drains.
    for (ThreadRecords& tr : into) {
        tr.records.clear();
        tr.drops.clear();
    }
    for (ThreadBuffer* t : threads) {
        ThreadRecords* tr = nullptr;
        for (ThreadRecords& e : into)
            if (e.tid == t->tid()) tr = &e;
        if (!tr) {
            into.emplace_back();
            tr = &into.back();
            tr->tid = t->tid();
        }
        {
            std::lock_guard lock(m_threadsMutex);
            if (tr->name != t->name()) tr->name = t->name();
        }
        // Sized once for what is there, and never grown while draining: growing by doubling would
        // hold up to twice the records (and both copies while it moves them), which a capped live
        // stream cannot afford. What the writer adds meanwhile waits for the next drain.
        const size_t need = t->undrained();
        if (need > tr->records.capacity()) {
            std::vector<Record>().swap(tr->records);
            tr->records.reserve(need + need / 8);
        }
        t->drain(tr->records, &tr->drops, std::max<size_t>(tr->records.capacity(), 1));
    }
    std::lock_guard lock(m_threadsMutex);
    for (size_t i = 0; i < m_threads.size();) {
        if (m_threads[i]->ownerExited() && m_threads[i]->drained())
            m_threads.erase(m_threads.begin() + long(i));
        else
            ++i;
    }
    // Threads that are gone and drained leave their (empty) entries behind: drop those.
    if (into.size() > threads.size() + 16)
        into.erase(
            std::remove_if(into.begin(), into.end(),
                           [](const ThreadRecords& e) { return e.records.empty() && e.drops.empty(); }),
            into.end());
}

void Recorder::discardAll()
{
    (void)drainAll();
}

size_t Recorder::threadCount() const
{
    std::lock_guard lock(m_threadsMutex);
    return m_threads.size();
}

} // namespace ks::record
