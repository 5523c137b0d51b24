#include "util/intervalset.h"

#include <algorithm>

namespace ks {

void IntervalSet::normalize()
{
    if (m_normal) return;
    if (!m_sorted) std::sort(m_items.begin(), m_items.end());
    size_t out = 0;
    for (size_t i = 0; i < m_items.size(); ++i) {
        // Touching intervals merge too: [a, b) and [b, c) cover [a, c) without a gap.
        if (out > 0 && m_items[i].first <= m_items[out - 1].second)
            m_items[out - 1].second = std::max(m_items[out - 1].second, m_items[i].second);
        else
            m_items[out++] = m_items[i];
    }
    m_items.resize(out);
    m_normal = m_sorted = true;
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
    out.m_items.reserve(m_items.size() + other.m_items.size());
    std::merge(m_items.begin(), m_items.end(), other.m_items.begin(), other.m_items.end(),
               std::back_inserter(out.m_items));
    out.m_normal = false;
    out.m_sorted = true;
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
    return whole.subtracted(*this);
}

} // namespace ks
