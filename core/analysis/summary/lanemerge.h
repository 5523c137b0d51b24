#pragma once

#include "core/analysis/summary/functioneventlist.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace ks {

// Visits the events of some lanes of a FunctionEventList in torch's list order, (start, -end, g),
// calling fn(g) for each event still in the list for which accept(g) holds. A k-way merge over the
// lanes' heads; lanes are already sorted, and event numbers grow with the lane, so the lane breaks
// ties between lanes the way torch's stable sort keeps its input order.
//
// Only the relative order of the accepted events matters to callers, so disjoint sets of events
// (e.g. groups) can be visited by separate calls, in parallel.
template <typename Accept, typename Fn>
void mergeLanes(const FunctionEventList& l, const std::vector<uint32_t>& lanes, Accept&& accept, Fn&& fn)
{
    // Each head's position folds into one unsigned 128-bit key, so finding the next event is one
    // comparison per lane: high word start, low word (latest end - end) and the lane's rank. Traces
    // spanning more than 2^47 ns (39 hours) or with more than 2^16 lanes take the tuple comparison.
    __extension__ typedef unsigned __int128 Key;
    struct Head {
        Key key;
        uint32_t g;
        uint32_t stop;
        uint32_t rank;
    };
    const TimeNs base = l.baseNs();
    const TimeNs last = l.maxEndNs();
    const bool packed = lanes.size() < (1u << 16) && last - base < (TimeNs(1) << 47);
    auto keyOf = [&](uint32_t g, uint32_t rank) -> Key {
        if (!packed) return Key(g);
        const uint64_t hi = uint64_t(l.start[g] - base);
        const uint64_t lo = (uint64_t(last - l.end[g]) << 16) | rank;
        return (Key(hi) << 64) | lo;
    };
    auto before = [&](const Head& a, const Head& b) {
        if (packed) return a.key < b.key;
        const uint32_t x = a.g, y = b.g;
        if (l.start[x] != l.start[y]) return l.start[x] < l.start[y];
        if (l.end[x] != l.end[y]) return l.end[x] > l.end[y];
        return a.rank < b.rank;
    };
    auto wanted = [&](uint32_t g) { return !(l.flags[g] & FunctionEventList::kRemoved) && accept(g); };

    std::vector<Head> heads;
    for (uint32_t i : lanes) {
        const FunctionEventList::Lane& lane = l.lanes()[i];
        uint32_t g = lane.begin;
        while (g < lane.end && !wanted(g))
            ++g;
        if (g < lane.end) {
            const uint32_t rank = uint32_t(heads.size());
            heads.push_back(Head{keyOf(g, rank), g, lane.end, rank});
        }
    }
    // Lanes are few (threads and streams), so a scan for the smallest head beats a heap.
    while (!heads.empty()) {
        size_t best = 0;
        for (size_t i = 1; i < heads.size(); ++i)
            best = before(heads[i], heads[best]) ? i : best;
        Head& h = heads[best];
        fn(h.g);
        uint32_t g = h.g + 1;
        while (g < h.stop && !wanted(g))
            ++g;
        if (g < h.stop) {
            h.g = g;
            h.key = keyOf(g, h.rank);
        } else {
            heads.erase(heads.begin() + std::ptrdiff_t(best));
        }
    }
}

} // namespace ks
