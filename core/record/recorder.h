#pragma once

#include "core/record/clock.h"
#include "core/record/threadbuffer.h"

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace ks::record {

// Records drained from one thread.
struct ThreadRecords {
    uint64_t tid = 0;
    std::string name;
    std::vector<Record> records;
    std::vector<DropMark> drops; // records the thread dropped (its pool was at its limit), and where
};

// Process-wide recording state: the on/off switch read by every hot path, the per-thread buffers,
// the name table and argument payloads. Hot paths live in record/api.h.
class Recorder {
public:
    static Recorder& instance();

    // Interns a range/mark/counter name; safe from any thread (takes a mutex: cache the id, as the
    // KS_RANGE macro does).
    uint32_t intern(std::string_view name);
    std::string name(uint32_t id) const;
    // Stores an args payload (a JSON object text, e.g. {"Input Dims": [[2, 3]]}); returns its id (> 0).
    // Identical texts share one id. Ids stay valid for the process's life (callers cache them), so
    // the store is capped instead of emptied: a text that would take it past payloadCap() bytes is
    // not stored, returns 0 (no args) and is counted; the first such drop is reported on stderr.
    uint64_t addPayload(std::string json);
    std::string payload(uint64_t id) const;

    struct PayloadStats {
        uint64_t stored = 0;       // distinct texts kept
        uint64_t bytes = 0;        // what they take, overhead included (what the cap limits)
        uint64_t dropped = 0;      // texts refused at the cap since the process started
        uint64_t deduplicated = 0; // texts that were already stored
    };
    PayloadStats payloadStats() const;
    // Default 64 MiB, KINETOSCOPE_MAX_ARGS_MB in the environment (at least 1).
    uint64_t payloadCap() const;
    void setPayloadCap(uint64_t bytes);

    void setActive(bool on);
    bool active() const;

    // The calling thread's buffer, created on first use.
    ThreadBuffer* registerCurrentThread();
    void setCurrentThreadName(std::string name);

    // Moves every record published so far out of all thread buffers. One drainer at a time.
    std::vector<ThreadRecords> drainAll();
    // The same into `into`, reusing its vectors (a streaming drainer calls this every few ms and
    // would otherwise allocate and fault in fresh memory each time). Entries are per thread; one
    // whose thread wrote nothing since the last drain has no records.
    void drainAll(std::vector<ThreadRecords>& into);
    // Drops everything recorded so far (e.g. before a new profiling window).
    void discardAll();

    uint64_t pid() const { return m_pid; }
    // Count of records written since the process started (all threads), for overhead reports.
    size_t threadCount() const;

private:
    Recorder();

    mutable std::mutex m_namesMutex;
    std::unordered_map<std::string, uint32_t> m_nameIds;
    std::deque<std::string> m_names;
    std::deque<std::string> m_payloads;
    // Views into m_payloads (a deque never moves its elements).
    std::unordered_map<std::string_view, uint64_t> m_payloadIds;
    PayloadStats m_payloadStats;
    uint64_t m_payloadCap = 0;

    mutable std::mutex m_threadsMutex;
    std::vector<std::unique_ptr<ThreadBuffer>> m_threads;
    std::mutex m_drainMutex;
    uint64_t m_pid;
};

} // namespace ks::record
