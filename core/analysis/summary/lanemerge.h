#pragma once

#include "core/analysis/summary/functioneventlist.h"

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

namespace ks {

// torch's list order of a FunctionEventList's events, (start, -end, g), as a comparison of lane
// heads. Lanes are already sorted and event numbers grow with the lane, so the lane (its rank among
// the merged lanes, in lane order) breaks ties between lanes the way torch's stable sort keeps its
// input order.
//
// Each head's position folds into one unsigned 128-bit key, so comparing two heads is one
// comparison: high word start, low word (latest end - end) and the rank. Traces spanning more than
// 2^47 ns (39 hours) or merging 2^16 lanes or more take the tuple comparison.
class LaneOrder {
public:
    __extension__ typedef unsigned __int128 Key;
    struct Head {
        Key key;
        uint32_t g;
        uint32_t rank;
    };

    LaneOrder(const FunctionEventList& l, size_t lanes)
        : m_l(l), m_base(l.baseNs()), m_last(l.maxEndNs()),
          m_packed(lanes < (1u << 16) && m_last - m_base < (TimeNs(1) << 47))
    {}

    void place(Head& h, uint32_t g) const
    {
        h.g = g;
        if (!m_packed) return;
        const uint64_t hi = uint64_t(m_l.start[g] - m_base);
        const uint64_t lo = (uint64_t(m_last - m_l.end[g]) << 16) | h.rank;
        h.key = (Key(hi) << 64) | lo;
    }
    bool before(const Head& a, const Head& b) const
    {
        if (m_packed) return a.key < b.key;
        const uint32_t x = a.g, y = b.g;
        if (m_l.start[x] != m_l.start[y]) return m_l.start[x] < m_l.start[y];
        if (m_l.end[x] != m_l.end[y]) return m_l.end[x] > m_l.end[y];
        return a.rank < b.rank;
    }

private:
    const FunctionEventList& m_l;
    TimeNs m_base;
    TimeNs m_last;
    bool m_packed;
};

// Visits the events of some lanes of a FunctionEventList in torch's list order, (start, -end, g),
// calling fn(g) for each event still in the list for which accept(g) holds. A k-way merge over the
// lanes' heads.
//
// Only the relative order of the accepted events matters to callers, so disjoint sets of events
// (e.g. groups) can be visited by separate calls, in parallel.
template <typename Accept, typename Fn>
void mergeLanes(const FunctionEventList& l, const std::vector<uint32_t>& lanes, Accept&& accept, Fn&& fn)
{
    struct Head : LaneOrder::Head {
        uint32_t stop;
    };
    const LaneOrder order(l, lanes.size());
    auto wanted = [&](uint32_t g) { return !(l.flags[g] & FunctionEventList::kRemoved) && accept(g); };

    std::vector<Head> heads;
    for (uint32_t i : lanes) {
        const FunctionEventList::Lane& lane = l.lanes()[i];
        uint32_t g = lane.begin;
        while (g < lane.end && !wanted(g))
            ++g;
        if (g < lane.end) {
            Head h{};
            h.rank = uint32_t(heads.size());
            h.stop = lane.end;
            order.place(h, g);
            heads.push_back(h);
        }
    }
    // Lanes are few (threads and streams), so a scan for the smallest head beats a heap.
    while (!heads.empty()) {
        size_t best = 0;
        for (size_t i = 1; i < heads.size(); ++i)
            best = order.before(heads[i], heads[best]) ? i : best;
        Head& h = heads[best];
        fn(h.g);
        uint32_t g = h.g + 1;
        while (g < h.stop && !wanted(g))
            ++g;
        if (g < h.stop)
            order.place(h, g);
        else
            heads.erase(heads.begin() + std::ptrdiff_t(best));
    }
}

// Visits, in torch's list order, the events of some lists, each a subsequence of one lane in lane
// order (lists in lane order too), calling fn(g) for each. The lists hold only wanted events, so
// there is no per-event test, and the head that is next keeps going for as long as it stays ahead
// of the runner-up: threads often run many events in a row before another thread's next one.
//
// prefetch(g) is called for the event kAhead places further down the list an event is taken from:
// fn's reads hop between as many lanes as there are lists, in several columns each, more streams
// than the hardware prefetcher follows.
template <typename Fn, typename Prefetch>
void mergeEventLists(const FunctionEventList& l, const std::vector<std::span<const uint32_t>>& lists, Fn&& fn,
                     Prefetch&& prefetch)
{
    constexpr ptrdiff_t kAhead = 12;
    struct Head : LaneOrder::Head {
        const uint32_t* next;
        const uint32_t* stop;
    };
    const LaneOrder order(l, lists.size());
    std::vector<Head> heads;
    for (const std::span<const uint32_t>& list : lists) {
        if (list.empty()) continue;
        Head h{};
        h.rank = uint32_t(heads.size());
        h.next = list.data() + 1;
        h.stop = list.data() + list.size();
        order.place(h, list[0]);
        heads.push_back(h);
    }
    while (heads.size() > 1) {
        size_t best = order.before(heads[1], heads[0]) ? 1 : 0;
        size_t second = 1 - best;
        for (size_t i = 2; i < heads.size(); ++i) {
            if (order.before(heads[i], heads[best])) {
                second = best;
                best = i;
            } else if (order.before(heads[i], heads[second])) {
                second = i;
            }
        }
        Head& h = heads[best];
        const Head& runnerUp = heads[second];
        for (;;) {
            fn(h.g);
            if (h.next == h.stop) {
                heads.erase(heads.begin() + std::ptrdiff_t(best));
                break;
            }
            if (h.stop - h.next > kAhead) prefetch(h.next[kAhead]);
            order.place(h, *h.next++);
            if (!order.before(h, runnerUp)) break;
        }
    }
    if (heads.empty()) return;
    // One list left: the rest of it in order.
    fn(heads[0].g);
    for (const uint32_t* p = heads[0].next; p != heads[0].stop; ++p)
        fn(*p);
}

} // namespace ks
