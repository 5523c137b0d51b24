#pragma once

#include "core/model/types.h"
#include "core/util/hash.h"

#include <array>
#include <cstdint>
#include <vector>

namespace ks {

// The distinct (pid, tid) rows of a trace being loaded, numbered in order of first appearance, each
// with its tracks by kind (one row can hold a CPU thread, or a GPU stream and its annotations).
// Lookups go through a small direct-mapped cache first: consecutive events mostly share a row.
class RowTable {
public:
    static constexpr size_t kKinds = 5; // TrackKind values

    struct Row {
        RowKey pid;
        RowKey tid;
        std::array<TrackId, kKinds> tracks{};
    };

    RowTable() : m_slots(1024, 0), m_cache(256) {}

    uint32_t find(RowKey pid, RowKey tid)
    {
        const uint64_t h = hashKey(pid, tid);
        CacheEntry& c = m_cache[h & (m_cache.size() - 1)];
        if (c.row != 0 && c.pid == pid && c.tid == tid) return c.row - 1;
        size_t i = h & (m_slots.size() - 1);
        while (m_slots[i] != 0) {
            const Row& r = m_rows[m_slots[i] - 1];
            if (r.pid == pid && r.tid == tid) break;
            i = (i + 1) & (m_slots.size() - 1);
        }
        uint32_t row;
        if (m_slots[i] == 0) {
            m_rows.push_back(Row{pid, tid, {}});
            row = uint32_t(m_rows.size() - 1);
            m_slots[i] = row + 1;
            // grow() rehashes: slot i means nothing afterwards, so the row id is taken before.
            if (m_rows.size() * 2 > m_slots.size()) grow();
        } else {
            row = m_slots[i] - 1;
        }
        c = CacheEntry{pid, tid, row + 1};
        return row;
    }

    size_t size() const { return m_rows.size(); }
    Row& row(uint32_t i) { return m_rows[i]; }
    const Row& row(uint32_t i) const { return m_rows[i]; }

private:
    struct CacheEntry {
        RowKey pid;
        RowKey tid;
        uint32_t row = 0; // row + 1; 0 = empty
    };

    static uint64_t hashKey(RowKey pid, RowKey tid)
    {
        const uint64_t h = mix64(uint64_t(pid.number) ^ (uint64_t(pid.string.value) << 32));
        return mix64(h ^ uint64_t(tid.number) ^ (uint64_t(tid.string.value) << 32) ^ 0x5bd1e995);
    }

    void grow()
    {
        std::vector<uint32_t> slots(m_slots.size() * 2, 0);
        for (uint32_t r = 0; r < m_rows.size(); ++r) {
            size_t i = hashKey(m_rows[r].pid, m_rows[r].tid) & (slots.size() - 1);
            while (slots[i] != 0)
                i = (i + 1) & (slots.size() - 1);
            slots[i] = r + 1;
        }
        m_slots = std::move(slots);
    }

    std::vector<Row> m_rows;
    std::vector<uint32_t> m_slots; // open addressing, row + 1
    std::vector<CacheEntry> m_cache;
};

} // namespace ks
