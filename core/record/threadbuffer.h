#pragma once

#include "core/record/recordtypes.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace ks::record {

// Fixed-size block of records. The owning thread appends and publishes the count; a drainer reads
// up to the published count.
struct Chunk {
    static constexpr uint32_t kRecords = 16384; // 512 KiB

    std::atomic<uint32_t> committed{0};
    std::atomic<Chunk*> next{nullptr};
    // Records the writer threw away between the previous chunk and this one (the pool was at its
    // limit); written before the chunk is linked, so the drainer knows exactly where they were.
    uint64_t droppedBefore = 0;
    Record records[kRecords];
};

// Records a drain could not hand out because their thread dropped them (the pool was at its
// limit): `count` records were lost just before records[index] of that drain.
struct DropMark {
    size_t index = 0;
    uint64_t count = 0;
};

// Spare chunks, so that a thread whose chunk is full usually gets a new one without calling
// malloc. Taken once per 16384 records, so a short mutex here costs well under a nanosecond per
// record.
//
// With a limit (a live stream sets one), chunks holding undrained records never take more than that
// many bytes: a program recording faster than its drainer keeps up then drops records instead of
// growing until the kernel kills it.
class ChunkPool {
public:
    static ChunkPool& instance();
    // Always a chunk (a new thread's first one).
    Chunk* take();
    // Null when the chunks in use already reach the limit.
    Chunk* tryTake();
    void give(Chunk* c);
    // Bytes of chunks in use (written and not yet drained) allowed at once; 0: no limit.
    void setLimit(size_t bytes);
    size_t inUse() const { return m_inUse.load(std::memory_order_relaxed); }
    // Keeps at least n spare chunks (called from non-hot paths, e.g. session start and drains).
    void reserve(size_t n);
    size_t spare() const { return m_count.load(std::memory_order_relaxed); }

private:
    std::mutex m_mutex;
    std::vector<Chunk*> m_free;
    std::atomic<size_t> m_count{0};
    std::atomic<size_t> m_inUse{0};
    size_t m_limitChunks = 0; // under m_mutex
};

// The records of one thread: a singly linked list of chunks. Only the owning thread appends; only
// the drainer advances the read position and frees chunks it has finished reading.
class ThreadBuffer {
public:
    ThreadBuffer(uint64_t tid, std::string name);
    ~ThreadBuffer();

    // Hot path: room for one record, published by commit().
    inline Record* slot()
    {
        if (m_cursor == m_limit) [[unlikely]]
            grow();
        return m_cursor;
    }
    inline void commit()
    {
        ++m_cursor;
        m_tail->committed.store(uint32_t(m_cursor - m_tail->records), std::memory_order_release);
    }

    uint64_t tid() const { return m_tid; }
    const std::string& name() const { return m_name; }
    void setName(std::string n) { m_name = std::move(n); }
    bool ownerExited() const { return m_exited.load(std::memory_order_acquire); }
    void markExited() { m_exited.store(true, std::memory_order_release); }

    // Drainer side: appends every record published since the last drain to out and frees chunks
    // that the writer has left behind. Records the writer dropped are added to drops (positions
    // in out), when given. At most max records are taken (the rest stays for the next drain).
    size_t drain(std::vector<Record>& out, std::vector<DropMark>* drops = nullptr, size_t max = SIZE_MAX);
    // True when everything written has been drained.
    bool drained() const;
    // Records published and not drained yet (a lower bound while the writer runs).
    size_t undrained() const;

    // Ids of the open ranges that range listeners know about (record/rangehooks.h); owner thread
    // only. Empty unless a listener is attached.
    void pushExternalId(int64_t id) { m_externalIds.push_back(id); }
    int64_t popExternalId()
    {
        if (m_externalIds.empty()) return 0;
        const int64_t id = m_externalIds.back();
        m_externalIds.pop_back();
        return id;
    }
    int64_t topExternalId() const { return m_externalIds.empty() ? 0 : m_externalIds.back(); }

    // While the pool is at its limit, records go to a small scratch area instead and are counted.
    static constexpr uint32_t kDiscardRecords = 256;

private:
    void grow();
    uint64_t droppedNow() const;

    uint64_t m_tid;
    std::string m_name;
    std::atomic<bool> m_exited{false};
    // Writer state. m_tail is the chunk written now: m_last, or m_discard while dropping.
    Chunk* m_tail;
    Chunk* m_last;
    Record* m_cursor;
    Record* m_limit;
    std::vector<int64_t> m_externalIds;
    // Only the first kDiscardRecords of it are ever touched, so it costs a few pages, not 512 KiB.
    std::atomic<Chunk*> m_discard{nullptr};
    // Records dropped since m_last filled, not counting those in m_discard now.
    std::atomic<uint64_t> m_episode{0};
    // Drainer state.
    Chunk* m_readChunk;
    uint32_t m_readIndex = 0;
    uint64_t m_reportedEpisode = 0; // part of the current episode already handed out as a drop
};

} // namespace ks::record
