#include "core/util/intervalset.h"

#include "core/util/runsort.h"

#include <algorithm>

namespace ks {

void IntervalSet::normalize()
{
    if (m_pending.empty()) return;
    // Intervals mostly come track by track, each track's in time order.
    sortRuns(m_pending);
    std::vector<Interval> merged;
    merged.reserve(m_items.size() + m_pending.size());
    size_t i = 0, j = 0;
    while (i < m_items.size() || j < m_pending.size()) {
        const Interval& next = j == m_pending.size() || (i < m_items.size() && m_items[i] <= m_pending[j])
                                   ? m_items[i++]
                                   : m_pending[j++];
        // Touching intervals merge too: [a, b) and [b, c) cover [a, c) without a gap.
        if (!merged.empty() && next.first <= merged.back().second)
            merged.back().second = std::max(merged.back().second, next.second);
        else
            merged.push_back(next);
    }
    m_items.swap(merged);
    m_pending.clear();
}

int64_t IntervalSet::length() const
{
    int64_t total = 0;
    for (const Interval& i : m_items)
        total += i.second - i.first;
    return total;
}

int64_t IntervalSet::lengthIn(int64_t start, int64_t end) const
{
    if (end <= start) return 0;
    auto it = std::lower_bound(m_items.begin(), m_items.end(), start,
                               [](const Interval& i, int64_t t) { return i.second <= t; });
    int64_t total = 0;
    for (; it != m_items.end() && it->first < end; ++it)
        total += std::min(end, it->second) - std::max(start, it->first);
    return total;
}

IntervalSet IntervalSet::united(const IntervalSet& other) const
{
    IntervalSet out;
    out.m_items = m_items;
    out.m_pending = other.m_items;
    out.normalize();
    return out;
}

IntervalSet IntervalSet::intersected(const IntervalSet& other) const
{
    IntervalSet out;
    size_t i = 0, j = 0;
    while (i < m_items.size() && j < other.m_items.size()) {
        const int64_t lo = std::max(m_items[i].first, other.m_items[j].first);
        const int64_t hi = std::min(m_items[i].second, other.m_items[j].second);
        if (lo < hi) out.m_items.emplace_back(lo, hi);
        if (m_items[i].second < other.m_items[j].second)
            ++i;
        else
            ++j;
    }
    return out;
}

IntervalSet IntervalSet::subtracted(const IntervalSet& other) const
{
    IntervalSet out;
    size_t j = 0;
    for (const Interval& a : m_items) {
        int64_t cur = a.first;
        while (j < other.m_items.size() && other.m_items[j].second <= cur)
            ++j;
        size_t k = j;
        while (k < other.m_items.size() && other.m_items[k].first < a.second) {
            if (other.m_items[k].first > cur) out.m_items.emplace_back(cur, other.m_items[k].first);
            cur = std::max(cur, other.m_items[k].second);
            if (cur >= a.second) break;
            ++k;
        }
        if (cur < a.second) out.m_items.emplace_back(cur, a.second);
    }
    return out;
}

IntervalSet IntervalSet::clipped(int64_t start, int64_t end) const
{
    IntervalSet out;
    if (end <= start) return out;
    auto it = std::lower_bound(m_items.begin(), m_items.end(), start,
                               [](const Interval& i, int64_t t) { return i.second <= t; });
    for (; it != m_items.end() && it->first < end; ++it)
        out.m_items.emplace_back(std::max(start, it->first), std::min(end, it->second));
    return out;
}

IntervalSet IntervalSet::complementIn(int64_t start, int64_t end) const
{
    IntervalSet whole;
    whole.add(start, end);
    whole.normalize();
    return whole.subtracted(*this);
}

} // namespace ks
