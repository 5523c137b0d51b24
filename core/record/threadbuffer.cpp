#include "record/threadbuffer.h"

#include <cstdlib>
#include <new>

namespace ks::record {

ChunkPool& ChunkPool::instance()
{
    static ChunkPool pool;
    return pool;
}

Chunk* ChunkPool::take()
{
    {
        std::lock_guard lock(m_mutex);
        if (!m_free.empty()) {
            Chunk* c = m_free.back();
            m_free.pop_back();
            m_count.store(m_free.size(), std::memory_order_relaxed);
            c->next.store(nullptr, std::memory_order_relaxed);
            c->committed.store(0, std::memory_order_relaxed);
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
        give(new (p) Chunk());
    }
}

ThreadBuffer::ThreadBuffer(uint64_t tid, std::string name) : m_tid(tid), m_name(std::move(name))
{
    m_tail = ChunkPool::instance().take();
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
}

void ThreadBuffer::grow()
{
    Chunk* c = ChunkPool::instance().take();
    // Publish the link before moving on, so the drainer can follow it once it has read the rest.
    m_tail->next.store(c, std::memory_order_release);
    m_tail = c;
    m_cursor = c->records;
    m_limit = c->records + Chunk::kRecords;
}

size_t ThreadBuffer::drain(std::vector<Record>& out)
{
    size_t n = 0;
    while (true) {
        const uint32_t committed = m_readChunk->committed.load(std::memory_order_acquire);
        if (committed > m_readIndex) {
            out.insert(out.end(), m_readChunk->records + m_readIndex, m_readChunk->records + committed);
            n += committed - m_readIndex;
            m_readIndex = committed;
        }
        // Only a full chunk can have a successor; once the successor exists the writer never
        // comes back to this one.
        Chunk* next = m_readChunk->next.load(std::memory_order_acquire);
        if (!next || m_readIndex < Chunk::kRecords) break;
        ChunkPool::instance().give(m_readChunk);
        m_readChunk = next;
        m_readIndex = 0;
    }
    return n;
}

bool ThreadBuffer::drained() const
{
    return m_readChunk->committed.load(std::memory_order_acquire) == m_readIndex &&
           m_readChunk->next.load(std::memory_order_acquire) == nullptr;
}

} // namespace ks::record
