#pragma once

#include "record/recordtypes.h"

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
    Record records[kRecords];
};

// Spare chunks, so that a thread whose chunk is full usually gets a new one without calling
// malloc. Taken once per 16384 records, so a short mutex here costs well under a nanosecond per
// record.
class ChunkPool {
public:
    static ChunkPool& instance();
    Chunk* take();
    void give(Chunk* c);
    // Keeps at least n spare chunks (called from non-hot paths, e.g. session start and drains).
    void reserve(size_t n);
    size_t spare() const { return m_count.load(std::memory_order_relaxed); }

private:
    std::mutex m_mutex;
    std::vector<Chunk*> m_free;
    std::atomic<size_t> m_count{0};
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
    // that the writer has left behind.
    size_t drain(std::vector<Record>& out);
    // True when everything written has been drained.
    bool drained() const;

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

private:
    void grow();

    uint64_t m_tid;
    std::string m_name;
    std::atomic<bool> m_exited{false};
    // Writer state.
    Chunk* m_tail;
    Record* m_cursor;
    Record* m_limit;
    std::vector<int64_t> m_externalIds;
    // Drainer state.
    Chunk* m_readChunk;
    uint32_t m_readIndex = 0;
};

} // namespace ks::record
