#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace ks {

// A set of half-open time intervals [start, end), kept as a sorted list of disjoint, non-touching
// intervals once normalized. The algebra the overview analyses are written in: TraceLens's GPU
// timeline (unions of kernel, communication and memcpy time, exposed = difference), tb_plugin's
// step breakdown (each role minus the roles above it) and HTA's idle time.
//
// add() collects raw intervals in any order; normalize() sorts what was added since the last call
// and merges it into the set in one linear pass, so a live trace fed batch by batch costs a sort of
// each batch, not a re-sort of everything. Every operation between sets is a linear merge of
// normalized lists. Zero-length intervals are kept (they bound a timeline's total span, as in
// TraceLens) but cover nothing.
class IntervalSet {
public:
    using Interval = std::pair<int64_t, int64_t>;

    IntervalSet() = default;
    explicit IntervalSet(std::vector<Interval> raw) : m_pending(std::move(raw)) { normalize(); }

    // Adds [start, end); inverted intervals are ignored.
    void add(int64_t start, int64_t end)
    {
        if (end >= start) m_pending.emplace_back(start, end);
    }
    void reserve(size_t n) { m_pending.reserve(n); }
    void normalize();
    bool normalized() const { return m_pending.empty(); }
    void clear()
    {
        m_items.clear();
        m_pending.clear();
    }

    const std::vector<Interval>& items() const { return m_items; }
    bool empty() const { return m_items.empty(); }
    size_t size() const { return m_items.size(); }
    // Reads below need a normalized set. Total covered length:
    int64_t length() const;
    // Covered length inside [start, end).
    int64_t lengthIn(int64_t start, int64_t end) const;

    // Set algebra; both operands must be normalized, and so is the result.
    IntervalSet united(const IntervalSet& other) const;
    IntervalSet intersected(const IntervalSet& other) const;
    IntervalSet subtracted(const IntervalSet& other) const;
    IntervalSet clipped(int64_t start, int64_t end) const;
    // The gaps of this set inside [start, end).
    IntervalSet complementIn(int64_t start, int64_t end) const;

private:
    std::vector<Interval> m_items;   // normalized
    std::vector<Interval> m_pending; // added since the last normalize()
};

} // namespace ks
