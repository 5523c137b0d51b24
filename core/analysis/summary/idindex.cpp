#include "core/analysis/summary/idindex.h"

#include "core/util/bigalloc.h"

#include <algorithm>

namespace ks {

IdIndex::IdIndex() : m_directory(new std::atomic<uint32_t*>[kDirectory])
{
    for (size_t i = 0; i < kDirectory; ++i)
        m_directory[i].store(nullptr, std::memory_order_relaxed);
}

IdIndex::~IdIndex()
{
    clear();
}

void IdIndex::clear()
{
    for (size_t i = 0; i < kDirectory; ++i)
        freeBlock(m_directory[i].exchange(nullptr, std::memory_order_relaxed), kPageSize * sizeof(uint32_t));
    std::unordered_map<int64_t, uint32_t>().swap(m_overflow);
}

uint32_t* IdIndex::page(size_t p)
{
    uint32_t* pg = m_directory[p].load(std::memory_order_acquire);
    if (pg) return pg;
    auto* fresh = static_cast<uint32_t*>(allocateBlock(kPageSize * sizeof(uint32_t)));
    std::fill_n(fresh, kPageSize, kNone);
    if (m_directory[p].compare_exchange_strong(pg, fresh, std::memory_order_acq_rel)) return fresh;
    freeBlock(fresh, kPageSize * sizeof(uint32_t)); // another thread made it first
    return pg;
}

void IdIndex::insertRare(int64_t id, uint32_t value)
{
    if (id < 0) return;
    std::lock_guard<std::mutex> lock(m_overflowLock);
    auto [it, inserted] = m_overflow.emplace(id, value);
    if (!inserted) it->second = std::min(it->second, value);
}

uint32_t IdIndex::findRare(int64_t id) const
{
    if (id < 0) return kNone;
    std::lock_guard<std::mutex> lock(m_overflowLock);
    auto it = m_overflow.find(id);
    return it == m_overflow.end() ? kNone : it->second;
}

} // namespace ks
