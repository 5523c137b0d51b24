#include "analysis/idindex.h"

#include <algorithm>

namespace ks {

void IdIndex::reset(int64_t minId, int64_t maxId, size_t count)
{
    m_min = minId;
    m_max = maxId;
    m_slots.reset();
    m_entries.reset();
    m_used.store(0);
    m_size = 0;
    m_capacity = count;
    if (maxId < minId) {
        m_dense = true;
        return;
    }
    // A flat array is worth it while it stays within a few slots per id actually present.
    const uint64_t span = uint64_t(maxId) - uint64_t(minId) + 1;
    m_dense = span <= uint64_t(count) * 4 + (1u << 16);
    if (m_dense) {
        m_slots.reset(new uint32_t[span]);
        std::fill_n(m_slots.get(), span, kNone);
    } else {
        m_entries.reset(new Entry[count]);
    }
}

void IdIndex::insert(int64_t id, uint32_t value)
{
    if (id < m_min || id > m_max) return;
    if (m_dense) {
        std::atomic_ref<uint32_t> slot(m_slots[size_t(id - m_min)]);
        uint32_t cur = slot.load(std::memory_order_relaxed);
        while (value < cur && !slot.compare_exchange_weak(cur, value, std::memory_order_relaxed)) {
        }
        return;
    }
    const size_t at = m_used.fetch_add(1, std::memory_order_relaxed);
    if (at < m_capacity) m_entries[at] = Entry{id, value};
}

void IdIndex::finish()
{
    if (m_dense) return;
    m_size = std::min(m_used.load(), m_capacity);
    Entry* e = m_entries.get();
    std::sort(e, e + m_size,
              [](const Entry& a, const Entry& b) { return a.id != b.id ? a.id < b.id : a.value < b.value; });
    // Keep the smallest value per id.
    m_size =
        size_t(std::unique(e, e + m_size, [](const Entry& a, const Entry& b) { return a.id == b.id; }) - e);
}

uint32_t IdIndex::find(int64_t id) const
{
    if (id < m_min || id > m_max) return kNone;
    if (m_dense) return m_slots[size_t(id - m_min)];
    const Entry* e = m_entries.get();
    const Entry* it = std::lower_bound(e, e + m_size, id, [](const Entry& a, int64_t v) { return a.id < v; });
    return it != e + m_size && it->id == id ? it->value : kNone;
}

} // namespace ks
