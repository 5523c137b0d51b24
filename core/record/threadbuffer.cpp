#include "core/record/threadbuffer.h"

#include <algorithm>
#include <cstdlib>
#include <new>

namespace ks::record {

ChunkPool& ChunkPool::instance()
{
    // Never destroyed: recording threads may still hand chunks back while statics are torn down,
    // and a destroyed pool would drop its free chunks unreachable (a leak at every exit).
    static ChunkPool* pool = new ChunkPool();
    return *pool;
}

Chunk* ChunkPool::tryTake()
{
    {
        std::lock_guard lock(m_mutex);
        if (m_limitChunks && m_inUse.load(std::memory_order_relaxed) >= m_limitChunks) return nullptr;
    }
    return take();
}

void ChunkPool::setLimit(size_t bytes)
{
    std::lock_guard lock(m_mutex);
    m_limitChunks = bytes ? std::max<size_t>(1, bytes / sizeof(Chunk)) : 0;
}

Chunk* ChunkPool::take()
{
    m_inUse.fetch_add(1, std::memory_order_relaxed);
    {
        std::lock_guard lock(m_mutex);
        if (!m_free.empty()) {
            Chunk* c = m_free.back();
            m_free.pop_back();
            m_count.store(m_free.size(), std::memory_order_relaxed);
            c->next.store(nullptr, std::memory_order_relaxed);
            c->committed.store(0, std::memory_order_relaxed);
            c->droppedBefore = 0;
            return c;
        }
    }
    void* p = std::malloc(sizeof(Chunk));
    if (!p) throw std::bad_alloc();
    // Default-initialised: records are read only once committed, so zeroing 512 KiB on the
    // recording thread would be pure cost.
    return new (p) Chunk;
}

void ChunkPool::give(Chunk* c)
{
    m_inUse.fetch_sub(1, std::memory_order_relaxed);
    c->committed.store(0, std::memory_order_relaxed);
    c->next.store(nullptr, std::memory_order_relaxed);
    std::lock_guard lock(m_mutex);
    m_free.push_back(c);
    m_count.store(m_free.size(), std::memory_order_relaxed);
}

void ChunkPool::reserve(size_t n)
{
    while (spare() < n) {
        void* p = std::malloc(sizeof(Chunk));
        if (!p) return;
        // Zeroed here on purpose: it faults the pages in before a recording thread writes them.
        Chunk* c = new (p) Chunk();
        std::lock_guard lock(m_mutex);
        m_free.push_back(c);
        m_count.store(m_free.size(), std::memory_order_relaxed);
    }
}

ThreadBuffer::ThreadBuffer(uint64_t tid, std::string name) : m_tid(tid), m_name(std::move(name))
{
    m_tail = ChunkPool::instance().take();
    m_last = m_tail;
    m_cursor = m_tail->records;
    m_limit = m_tail->records + Chunk::kRecords;
    m_readChunk = m_tail;
}

ThreadBuffer::~ThreadBuffer()
{
    Chunk* c = m_readChunk;
    while (c) {
        Chunk* next = c->next.load(std::memory_order_acquire);
        ChunkPool::instance().give(c);
        c = next;
    }
    if (Chunk* d = m_discard.load(std::memory_order_relaxed)) {
        d->~Chunk();
        std::free(d);
    }
}

void ThreadBuffer::grow()
{
    Chunk* discard = m_discard.load(std::memory_order_relaxed);
    uint64_t dropped = 0;
    if (discard && m_tail == discard) {
        // The scratch area is full: count it and start it over. The count is reset before the
        // episode grows, so a drainer reading the episode first never counts a record twice.
        discard->committed.store(0, std::memory_order_release);
        dropped = m_episode.load(std::memory_order_relaxed) + uint64_t(m_cursor - discard->records);
        m_episode.store(dropped, std::memory_order_release);
    }
    Chunk* c = ChunkPool::instance().tryTake();
    if (!c) {
        if (!discard) {
            void* p = std::malloc(sizeof(Chunk));
            if (!p) throw std::bad_alloc();
            discard = new (p) Chunk;
            m_discard.store(discard, std::memory_order_release);
        }
        m_tail = discard;
        m_cursor = discard->records;
        m_limit = discard->records + kDiscardRecords;
        return;
    }
    c->droppedBefore = dropped;
    // Publish the link before moving on, so the drainer can follow it once it has read the rest.
    m_last->next.store(c, std::memory_order_release);
    m_episode.store(0, std::memory_order_release);
    m_last = c;
    m_tail = c;
    m_cursor = c->records;
    m_limit = c->records + Chunk::kRecords;
}

uint64_t ThreadBuffer::droppedNow() const
{
    const uint64_t episode = m_episode.load(std::memory_order_acquire);
    const Chunk* d = m_discard.load(std::memory_order_acquire);
    return episode + (d ? d->committed.load(std::memory_order_acquire) : 0);
}

size_t ThreadBuffer::drain(std::vector<Record>& out, std::vector<DropMark>* drops, size_t max)
{
    size_t n = 0;
    while (true) {
        const uint32_t committed = m_readChunk->committed.load(std::memory_order_acquire);
        if (committed > m_readIndex) {
            const uint32_t take = uint32_t(std::min<size_t>(committed - m_readIndex, max - n));
            out.insert(out.end(), m_readChunk->records + m_readIndex,
                       m_readChunk->records + m_readIndex + take);
            n += take;
            m_readIndex += take;
            if (n == max) return n;
        }
        // Only a full chunk can have a successor; once the successor exists the writer never
        // comes back to this one.
        Chunk* next = m_readChunk->next.load(std::memory_order_acquire);
        if (!next || m_readIndex < Chunk::kRecords) break;
        ChunkPool::instance().give(m_readChunk);
        m_readChunk = next;
        m_readIndex = 0;
        // What the writer dropped before this chunk, less what an earlier drain already reported.
        if (drops && next->droppedBefore > m_reportedEpisode)
            drops->push_back(DropMark{out.size(), next->droppedBefore - m_reportedEpisode});
        m_reportedEpisode = 0;
    }
    // The writer may be dropping right now. Its count (a lower bound while it runs, exact once it
    // stopped) belongs after everything drained, as long as it has not moved on to a new chunk
    // since: checked after reading the count, which the writer resets only after linking one.
    const uint64_t now = droppedNow();
    if (m_readIndex == Chunk::kRecords && !m_readChunk->next.load(std::memory_order_acquire) &&
        now > m_reportedEpisode) {
        if (drops) drops->push_back(DropMark{out.size(), now - m_reportedEpisode});
        m_reportedEpisode = now;
    }
    return n;
}

size_t ThreadBuffer::undrained() const
{
    size_t n = 0;
    uint32_t from = m_readIndex;
    for (const Chunk* c = m_readChunk; c; c = c->next.load(std::memory_order_acquire)) {
        n += c->committed.load(std::memory_order_acquire) - from;
        from = 0;
    }
    return n;
}

bool ThreadBuffer::drained() const
{
    return m_readChunk->committed.load(std::memory_order_acquire) == m_readIndex &&
           m_readChunk->next.load(std::memory_order_acquire) == nullptr;
}

} // namespace ks::record
