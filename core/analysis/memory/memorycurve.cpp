#include "core/analysis/memory/memorycurve.h"

#include <algorithm>

namespace ks {

MemoryCurve::MemoryCurve(const MemoryDeviceTimeline* device) : m_device(device)
{
    if (!device) return;
    m_initial.byCategory = device->initial;
    for (int64_t v : device->initial)
        m_initial.total += v;
    m_initial.runningSum = device->balance.hasTotals ? device->balance.baseline : m_initial.total;
    m_initial.ts = device->points.empty() ? 0 : device->points.front().ts;
    MemoryCurveSample s = m_initial;
    const size_t n = device->points.size();
    m_checkpoints.reserve(n / kCheckpoint + 1);
    for (size_t i = 0; i < n; ++i) {
        if (i % kCheckpoint == 0) m_checkpoints.push_back(s);
        apply(s, i);
    }
}

void MemoryCurve::apply(MemoryCurveSample& s, size_t point) const
{
    const MemoryPoint& p = m_device->points[point];
    const MemoryAllocation& a = m_device->allocations[p.allocation];
    const int64_t d = p.liveDelta(a);
    s.byCategory[size_t(a.category)] += d;
    s.total += d;
    s.runningSum += p.bytes;
    if (p.totalAllocated >= 0) s.reportedAllocated = p.totalAllocated;
    if (p.totalReserved >= 0) s.reportedReserved = p.totalReserved;
    s.ts = p.ts;
    s.point = uint32_t(point);
}

MemoryCurveSample MemoryCurve::stateAfter(size_t end) const
{
    if (!m_device || end == 0) return m_initial;
    end = std::min(end, m_device->points.size());
    const size_t k = std::min((end - 1) / kCheckpoint, m_checkpoints.size() - 1);
    MemoryCurveSample s = m_checkpoints[k];
    for (size_t i = k * kCheckpoint; i < end; ++i)
        apply(s, i);
    return s;
}

MemoryCurveSample MemoryCurve::stateAt(TimeNs t) const
{
    if (empty()) return m_initial;
    const auto& pts = m_device->points;
    const size_t end =
        std::upper_bound(pts.begin(), pts.end(), t, [](TimeNs v, const MemoryPoint& p) { return v < p.ts; }) -
        pts.begin();
    MemoryCurveSample s = stateAfter(end);
    s.ts = t;
    return s;
}

std::vector<MemoryCurveSample> MemoryCurve::sample(TimeNs t0, TimeNs t1, size_t budget, Keep keep) const
{
    std::vector<MemoryCurveSample> out;
    if (empty()) return out;
    if (t1 < t0) std::swap(t0, t1);
    budget = std::max<size_t>(budget, 8);
    const auto& pts = m_device->points;
    const size_t first = std::upper_bound(pts.begin(), pts.end(), t0,
                                          [](TimeNs v, const MemoryPoint& p) { return v < p.ts; }) -
                         pts.begin();
    const size_t last = std::upper_bound(pts.begin(), pts.end(), t1,
                                         [](TimeNs v, const MemoryPoint& p) { return v < p.ts; }) -
                        pts.begin();
    MemoryCurveSample s = stateAfter(first);
    s.ts = t0;
    out.push_back(s);

    // Per bucket the peak (and the valley), plus the bucket's last state: the level the curve
    // keeps through the empty buckets that may follow, so a drop is not drawn as a long ramp.
    const bool valleys = keep == Keep::PeaksAndValleys;
    const size_t perBucket = valleys ? 3 : 2;
    const size_t buckets = std::max<size_t>(1, (budget - 2) / perBucket);
    const double width = double(t1 - t0) / double(buckets);
    size_t bucket = SIZE_MAX;
    MemoryCurveSample lo, hi, tail;
    bool have = false;
    auto flush = [&] {
        if (!have) return;
        MemoryCurveSample picks[3] = {hi, tail, lo};
        const size_t n = valleys ? 3 : 2;
        std::sort(picks, picks + n, [](const auto& x, const auto& y) { return x.point < y.point; });
        for (size_t k = 0; k < n; ++k)
            if (k == 0 || picks[k].point != picks[k - 1].point) out.push_back(picks[k]);
        have = false;
    };
    for (size_t i = first; i < last; ++i) {
        apply(s, i);
        // Several events at one time make one step: only the state after the last of them counts.
        if (i + 1 < last && pts[i + 1].ts == pts[i].ts) continue;
        const size_t b = width > 0 ? std::min(buckets - 1, size_t(double(s.ts - t0) / width)) : 0;
        if (b != bucket) {
            flush();
            bucket = b;
        }
        if (!have) {
            lo = hi = s;
            have = true;
        } else {
            if (s.total < lo.total) lo = s;
            if (s.total >= hi.total) hi = s;
        }
        tail = s;
    }
    flush();
    MemoryCurveSample end = s;
    end.ts = t1;
    if (out.back().ts != t1 || out.size() == 1) out.push_back(end);
    return out;
}

std::vector<MemoryCurve::Column> MemoryCurve::envelope(TimeNs t0, TimeNs t1, int columns) const
{
    std::vector<Column> out;
    if (empty() || columns <= 0 || t1 <= t0) return out;
    out.resize(size_t(columns));
    const auto& pts = m_device->points;
    const size_t first = std::upper_bound(pts.begin(), pts.end(), t0,
                                          [](TimeNs v, const MemoryPoint& p) { return v < p.ts; }) -
                         pts.begin();
    MemoryCurveSample s = stateAfter(first);
    std::array<int64_t, kMemoryCategoryCount + 1> edges{};
    auto cumulate = [&] {
        for (size_t k = 0; k < kMemoryCategoryCount; ++k)
            edges[k + 1] = edges[k] + s.byCategory[k];
    };
    auto start = [&](Column& c) {
        c.lo = c.hi = edges;
        c.peak = s.byCategory;
    };
    auto widen = [&](Column& c) {
        for (size_t k = 1; k <= kMemoryCategoryCount; ++k) {
            c.lo[k] = std::min(c.lo[k], edges[k]);
            c.hi[k] = std::max(c.hi[k], edges[k]);
            c.peak[k - 1] = std::max(c.peak[k - 1], s.byCategory[k - 1]);
        }
    };
    cumulate();
    int column = 0;
    start(out[0]);
    const double width = double(t1 - t0) / columns;
    for (size_t i = first; i < pts.size() && pts[i].ts < t1; ++i) {
        const int c = std::min(columns - 1, int(double(pts[i].ts - t0) / width));
        while (column < c)
            start(out[size_t(++column)]); // columns without events hold the carried state
        apply(s, i);
        cumulate();
        widen(out[size_t(column)]);
    }
    while (column < columns - 1)
        start(out[size_t(++column)]);
    return out;
}

uint32_t MemoryCurve::nearestAllocation(TimeNs t, TimeNs maxDistance) const
{
    if (empty()) return kNoIndex;
    const auto& pts = m_device->points;
    const size_t mid =
        std::lower_bound(pts.begin(), pts.end(), t, [](const MemoryPoint& p, TimeNs v) { return p.ts < v; }) -
        pts.begin();
    uint32_t best = kNoIndex;
    TimeNs bestDist = maxDistance + 1;
    // Walk outwards from t in both directions until the distance exceeds the best found.
    for (size_t i = mid; i < pts.size() && pts[i].ts - t < bestDist; ++i)
        if (pts[i].kind == MemoryPoint::Alloc) {
            best = uint32_t(i);
            bestDist = pts[i].ts - t;
            break;
        }
    for (size_t i = mid; i-- > 0 && t - pts[i].ts < bestDist;)
        if (pts[i].kind == MemoryPoint::Alloc) {
            best = uint32_t(i);
            bestDist = t - pts[i].ts;
            break;
        }
    return bestDist <= maxDistance ? best : kNoIndex;
}

} // namespace ks
