#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace ks {

// Maps trace link ids ("External id", "correlation") to event numbers. Link ids are counters, so
// they usually fill a narrow range: then the index is a flat array; otherwise a sorted list.
//
// Inserts may come from several threads at once; an id inserted twice keeps the smaller value, so
// the result does not depend on thread timing.
class IdIndex {
public:
    static constexpr uint32_t kNone = UINT32_MAX;

    // Prepares for at most `count` inserts of ids in [minId, maxId].
    void reset(int64_t minId, int64_t maxId, size_t count);
    void insert(int64_t id, uint32_t value);
    // Call once after the last insert, before any find().
    void finish();
    uint32_t find(int64_t id) const;

    bool dense() const { return m_dense; }

private:
    struct Entry {
        int64_t id;
        uint32_t value;
    };

    bool m_dense = true;
    int64_t m_min = 0;
    int64_t m_max = -1;
    std::unique_ptr<uint32_t[]> m_slots; // dense: value per id - m_min
    std::unique_ptr<Entry[]> m_entries;  // sparse: unsorted until finish()
    size_t m_capacity = 0;
    std::atomic<size_t> m_used{0};
    size_t m_size = 0;
};

} // namespace ks
