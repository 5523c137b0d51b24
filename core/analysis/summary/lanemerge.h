#pragma once

#include "core/analysis/summary/functioneventlist.h"

#include <algorithm>
#include <cstdint>
#include <span>
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

// Visits, in torch's list order, the events of some lists, each a subsequence of one lane in lane
// order (lists in lane order too). Each list is read a block at a time: stage(g, rec) copies what
// fn needs of event g into a record (Rec has start and end, plus whatever fn reads), and fn(rec)
// is called for the records in list order. fn then reads records that sit in cache instead of
// hopping between as many lanes as there are lists, in several columns each (more streams than
// the hardware prefetcher follows), while staging reads each column of one lane in order.
//
// The list that is next keeps going for as long as it stays ahead of the runner-up: threads
// often run many events in a row before another thread's next one.
template <typename Rec, typename Stage, typename Fn>
void mergeStagedLists(const FunctionEventList& l, const std::vector<std::span<const uint32_t>>& lists,
                      Stage&& stage, Fn&& fn)
{
    // A block of records per list, small enough for all of them to stay in cache.
    constexpr size_t kBlock = 256;
    // The heads' positions fold into 128-bit keys as in mergeLanes(), else the tuple comparison.
    __extension__ typedef unsigned __int128 Key;
    const TimeNs base = l.baseNs();
    const TimeNs last = l.maxEndNs();
    const bool packed = lists.size() < (1u << 16) && last - base < (TimeNs(1) << 47);
    struct Head {
        const uint32_t* next; // of the list, not yet staged
        const uint32_t* stop;
        uint32_t rank;
        uint32_t at = 0; // in the block
        uint32_t count = 0;
        Key key = 0; // of rec(), when packed
        std::vector<Rec> block;
        const Rec& rec() const { return block[at]; }
        // False when the list is done.
        bool refill(Stage& stage)
        {
            count = uint32_t(std::min<size_t>(block.size(), size_t(stop - next)));
            for (uint32_t i = 0; i < count; ++i)
                stage(next[i], block[i]);
            next += count;
            at = 0;
            return count > 0;
        }
    };
    auto place = [&](Head& h) {
        if (!packed) return;
        const Rec& r = h.rec();
        h.key = (Key(uint64_t(r.start - base)) << 64) | (uint64_t(last - r.end) << 16) | h.rank;
    };
    auto before = [packed](const Head& a, const Head& b) {
        if (packed) return a.key < b.key;
        const Rec& x = a.rec();
        const Rec& y = b.rec();
        if (x.start != y.start) return x.start < y.start;
        if (x.end != y.end) return x.end > y.end;
        return a.rank < b.rank;
    };
    std::vector<Head> heads;
    heads.reserve(lists.size());
    for (const std::span<const uint32_t>& list : lists) {
        if (list.empty()) continue;
        Head& h = heads.emplace_back();
        h.next = list.data();
        h.stop = list.data() + list.size();
        h.rank = uint32_t(heads.size() - 1);
        h.block.resize(std::min(kBlock, list.size()));
        h.refill(stage);
        place(h);
    }
    while (heads.size() > 1) {
        size_t best = before(heads[1], heads[0]) ? 1 : 0;
        size_t second = 1 - best;
        for (size_t i = 2; i < heads.size(); ++i) {
            if (before(heads[i], heads[best])) {
                second = best;
                best = i;
            } else if (before(heads[i], heads[second])) {
                second = i;
            }
        }
        Head& h = heads[best];
        const Head& runnerUp = heads[second];
        for (;;) {
            fn(h.rec());
            if (++h.at == h.count && !h.refill(stage)) {
                heads.erase(heads.begin() + std::ptrdiff_t(best));
                break;
            }
            place(h);
            if (!before(h, runnerUp)) break;
        }
    }
    if (heads.empty()) return;
    // One list left: the rest of it in order.
    Head& rest = heads[0];
    do {
        for (; rest.at < rest.count; ++rest.at)
            fn(rest.rec());
    } while (rest.refill(stage));
}

} // namespace ks
