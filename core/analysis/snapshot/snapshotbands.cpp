#include "core/analysis/snapshot/snapshotbands.h"

#include <algorithm>
#include <cmath>

namespace ks {

SnapshotBands SnapshotBands::build(const SnapshotTimeline& timeline, size_t maxBands)
{
    SnapshotBands b;
    b.m_timeline = &timeline;
    const std::vector<SnapshotAllocation>& all = timeline.allocations;
    const uint32_t count = uint32_t(all.size());
    // memory_viz's stack: its initially_allocated (the frees of unknown addresses in trace order,
    // then the segments' active blocks) reversed, then every traced allocation as it begins.
    b.m_order.reserve(count);
    for (uint32_t k = count; k-- > 0;)
        if (all[k].origin == SnapshotAllocation::Origin::SegmentBlock) b.m_order.push_back(k);
    for (uint32_t k = count; k-- > 0;)
        if (all[k].origin == SnapshotAllocation::Origin::FreedOnly) b.m_order.push_back(k);
    for (uint32_t k = 0; k < count; ++k)
        if (all[k].origin == SnapshotAllocation::Origin::Traced) b.m_order.push_back(k);

    // The largest maxBands, ties in the order of the allocations (a stable sort, as memory_viz's).
    std::vector<uint8_t> drawn(count, 0);
    if (count <= maxBands) {
        std::fill(drawn.begin(), drawn.end(), 1);
    } else {
        std::vector<uint32_t> bySize(count);
        for (uint32_t k = 0; k < count; ++k)
            bySize[k] = k;
        std::stable_sort(bySize.begin(), bySize.end(),
                         [&](uint32_t x, uint32_t y) { return all[x].size > all[y].size; });
        for (size_t i = 0; i < maxBands; ++i)
            drawn[bySize[i]] = 1;
    }

    const size_t n = timeline.liveAfter.size();
    std::vector<int64_t> delta(n + 1, 0);
    int64_t initialSummarized = 0;
    for (uint32_t k : b.m_order) {
        const SnapshotAllocation& a = all[k];
        if (drawn[k]) {
            const uint32_t pos = uint32_t(b.m_shown.size());
            b.m_shown.push_back(k);
            b.m_shownSize.push_back(a.size);
            if (a.begin == kBeforeTrace)
                b.m_initialShown = pos + 1;
            else
                b.m_startOrder.push_back(pos);
            if (a.end != kAfterTrace) b.m_endOrder.push_back(pos);
            continue;
        }
        if (a.begin == kBeforeTrace)
            initialSummarized += a.size;
        else
            delta[a.begin] += a.size;
        if (a.end != kAfterTrace) delta[a.end] -= a.size;
    }
    std::stable_sort(b.m_endOrder.begin(), b.m_endOrder.end(),
                     [&](uint32_t x, uint32_t y) { return all[b.m_shown[x]].end < all[b.m_shown[y]].end; });
    b.m_summarized.resize(n);
    int64_t s = initialSummarized;
    for (size_t i = 0; i < n; ++i) {
        s += delta[i];
        b.m_summarized[i] = s;
    }
    b.m_blockPeak.resize((n + kBlock - 1) / kBlock);
    for (size_t blk = 0; blk < b.m_blockPeak.size(); ++blk) {
        const size_t first = blk * kBlock;
        const size_t last = std::min(n, first + kBlock);
        size_t best = first;
        for (size_t i = first + 1; i < last; ++i)
            if (timeline.liveAfter[i] > timeline.liveAfter[best]) best = i;
        b.m_blockPeak[blk] = uint32_t(best);
    }
    return b;
}

uint32_t SnapshotBands::peakEntryIn(uint32_t first, uint32_t last) const
{
    const std::vector<int64_t>& live = m_timeline->liveAfter;
    uint32_t best = first;
    auto consider = [&](uint32_t i) {
        if (live[i] > live[best]) best = i;
    };
    uint32_t i = first;
    // Entry by entry up to a block boundary, whole blocks from their precomputed peak, then the rest.
    while (i <= last && i % kBlock != 0)
        consider(i++);
    while (i + kBlock - 1 <= last) {
        consider(m_blockPeak[i / kBlock]);
        i += kBlock;
    }
    while (i <= last)
        consider(i++);
    return best;
}

BandLayout SnapshotBands::layout(double x0, double x1, int width, int64_t minBytes) const
{
    BandLayout out;
    const size_t n = m_summarized.size();
    if (width <= 0 || !(x1 > x0)) return out;
    out.columns.resize(size_t(width));
    if (n == 0) return out;
    const std::vector<SnapshotAllocation>& all = m_timeline->allocations;

    // The drawn allocations alive at the current entry, as a linked list in stacking order: a new
    // one always goes on top (it began after every other), a freed one is unlinked.
    constexpr uint32_t kNil = UINT32_MAX;
    const uint32_t shownCount = uint32_t(m_shown.size());
    std::vector<uint32_t> next(shownCount, kNil), prev(shownCount, kNil);
    uint32_t head = kNil, tail = kNil;
    auto link = [&](uint32_t pos) {
        prev[pos] = tail;
        next[pos] = kNil;
        if (tail != kNil)
            next[tail] = pos;
        else
            head = pos;
        tail = pos;
    };
    auto unlink = [&](uint32_t pos) {
        if (prev[pos] != kNil)
            next[prev[pos]] = next[pos];
        else
            head = next[pos];
        if (next[pos] != kNil)
            prev[next[pos]] = prev[pos];
        else
            tail = prev[pos];
    };
    for (uint32_t pos = 0; pos < m_initialShown; ++pos)
        link(pos);
    size_t starts = 0, ends = 0;
    auto advanceTo = [&](uint32_t entry) {
        while (starts < m_startOrder.size() && all[m_shown[m_startOrder[starts]]].begin <= entry)
            link(m_startOrder[starts++]);
        while (ends < m_endOrder.size() && all[m_shown[m_endOrder[ends]]].end <= entry)
            unlink(m_endOrder[ends++]);
    };

    const double w = (x1 - x0) / width;
    const double last = double(n);
    for (int c = 0; c < width; ++c) {
        BandColumn& col = out.columns[size_t(c)];
        const double xa = x0 + c * w, xb = x0 + (c + 1) * w;
        if (xb <= 0 || xa >= last) continue;
        const uint32_t ea = uint32_t(std::max(0.0, std::floor(xa)));
        const uint32_t eb = uint32_t(std::clamp(std::ceil(xb) - 1, double(ea), last - 1));
        const uint32_t entry = peakEntryIn(ea, eb);
        advanceTo(entry);
        col.entry = entry;
        col.firstRun = uint32_t(out.runs.size());
        int64_t offset = 0;
        BandRun merged;
        bool pending = false;
        for (uint32_t pos = head; pos != kNil; pos = next[pos]) {
            const int64_t size = m_shownSize[pos];
            if (size >= minBytes) {
                if (pending) out.runs.push_back(merged);
                pending = false;
                out.runs.push_back(BandRun{offset, offset + size, m_shown[pos]});
            } else if (pending) {
                merged.top = offset + size;
            } else {
                merged = BandRun{offset, offset + size, kMergedRun};
                pending = true;
            }
            offset += size;
        }
        if (pending) out.runs.push_back(merged);
        if (m_summarized[entry] > 0)
            out.runs.push_back(BandRun{offset, offset + m_summarized[entry], kSummarizedRun});
        col.runCount = uint32_t(out.runs.size()) - col.firstRun;
    }
    return out;
}

uint32_t SnapshotBands::allocationAt(uint32_t entry, int64_t bytes) const
{
    if (entry >= m_summarized.size() || bytes < 0) return UINT32_MAX;
    const std::vector<SnapshotAllocation>& all = m_timeline->allocations;
    int64_t offset = 0;
    for (uint32_t k : m_shown) {
        const SnapshotAllocation& a = all[k];
        if (!a.aliveAfter(entry)) continue;
        if (bytes < offset + a.size) return k;
        offset += a.size;
    }
    // The summarized band stacks the others in the same order.
    if (bytes >= offset + m_summarized[entry] || m_shown.size() == m_order.size()) return UINT32_MAX;
    std::vector<uint8_t> isShown(all.size(), 0);
    for (uint32_t k : m_shown)
        isShown[k] = 1;
    for (uint32_t k : m_order) {
        const SnapshotAllocation& a = all[k];
        if (isShown[k] || !a.aliveAfter(entry)) continue;
        if (bytes < offset + a.size) return k;
        offset += a.size;
    }
    return UINT32_MAX;
}

} // namespace ks
