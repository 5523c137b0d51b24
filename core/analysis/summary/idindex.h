#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>

namespace ks {

// Maps trace link ids ("External id", "correlation") to event numbers, filled by several threads
// at once. Link ids are counters, so they cluster: the index is a directory of 512 Ki-id pages
// (2 MiB, one huge page each) made on first use for ids below 2^32, and a locked map for larger ids.
//
// An id inserted twice keeps the smaller value, so the result does not depend on thread timing.
// find() may be called once every insert has happened-before it (e.g. after joining the writers).
class IdIndex {
public:
    static constexpr uint32_t kNone = UINT32_MAX;

    IdIndex();
    ~IdIndex();
    // Forgets every id and frees the pages (one writer, no concurrent readers).
    void clear();
    IdIndex(const IdIndex&) = delete;
    IdIndex& operator=(const IdIndex&) = delete;

    void insert(int64_t id, uint32_t value)
    {
        if (id < 0 || uint64_t(id) >= (uint64_t(1) << 32)) {
            insertRare(id, value);
            return;
        }
        uint32_t* pg = m_directory[size_t(id) >> kPageBits].load(std::memory_order_acquire);
        if (!pg) pg = page(size_t(id) >> kPageBits);
        // Keep the smaller value; ids are nearly always inserted once, so this is one exchange.
        std::atomic_ref<uint32_t> slot(pg[size_t(id) & (kPageSize - 1)]);
        uint32_t cur = slot.load(std::memory_order_relaxed);
        while (value < cur && !slot.compare_exchange_weak(cur, value, std::memory_order_relaxed)) {
        }
    }
    uint32_t find(int64_t id) const
    {
        if (id < 0 || uint64_t(id) >= (uint64_t(1) << 32)) return findRare(id);
        const uint32_t* pg = m_directory[size_t(id) >> kPageBits].load(std::memory_order_acquire);
        return pg ? pg[size_t(id) & (kPageSize - 1)] : kNone;
    }

private:
    static constexpr unsigned kPageBits = 19;
    static constexpr size_t kPageSize = size_t(1) << kPageBits;
    static constexpr size_t kDirectory = size_t(1) << (32 - kPageBits);

    uint32_t* page(size_t p);
    void insertRare(int64_t id, uint32_t value);
    uint32_t findRare(int64_t id) const;

    std::unique_ptr<std::atomic<uint32_t*>[]> m_directory;
    mutable std::mutex m_overflowLock;
    std::unordered_map<int64_t, uint32_t> m_overflow;
};

} // namespace ks
