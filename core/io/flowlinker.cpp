#include "core/io/flowlinker.h"

#include "core/util/hash.h"
#include "core/util/largeallocator.h"

#include <algorithm>
#include <atomic>
#include <thread>

namespace ks {

namespace {

constexpr uint32_t kNone = UINT32_MAX;

// First row of a track whose start is >= ts, searched outward from the row found last time on this
// track: flow ends come roughly in time order, so the answer is usually close and the search touches
// a few cache lines instead of a whole binary search's worth.
size_t firstStartingAt(const SliceTrack& st, TimeNs ts, uint32_t& cursor)
{
    const size_t n = st.size();
    const size_t c = std::min<size_t>(cursor, n);
    size_t lo = 0, hi = n; // the answer is in [lo, hi]
    if (c < n && st.start(c) < ts) {
        lo = c + 1;
        for (size_t step = 1;; step *= 2) {
            const size_t probe = c + step;
            if (probe >= n) break;
            if (st.start(probe) >= ts) {
                hi = probe;
                break;
            }
            lo = probe + 1;
        }
    } else {
        hi = c;
        for (size_t step = 1; step <= c; step *= 2) {
            const size_t probe = c - step;
            if (st.start(probe) < ts) {
                lo = probe + 1;
                break;
            }
            hi = probe;
        }
    }
    while (lo < hi) {
        const size_t mid = (lo + hi) / 2;
        if (st.start(mid) < ts)
            lo = mid + 1;
        else
            hi = mid;
    }
    cursor = uint32_t(lo);
    return lo;
}

} // namespace

FlowLinker::FlowLinker(Trace& trace, const RowTable& rows) : m_trace(trace), m_rows(rows) {}

int64_t FlowLinker::correlationOf(TrackId track, uint32_t row) const
{
    const Column<SliceLinkIds>& links = m_trace.linkIds();
    const size_t i = links.lowerBound(
        row, [](const SliceLinkIds& l, uint32_t r) { return l.slice.index < r; }, m_linkBegin[track.value],
        m_linkEnd[track.value]);
    return i < m_linkEnd[track.value] && links[i].slice.index == row ? links[i].correlation : -1;
}

// Binds a flow end to a slice on its (pid, tid): a slice starting exactly at ts wins (ties: the one
// whose correlation equals the flow id, then launch/GPU work, then the deepest); otherwise the
// innermost slice enclosing ts; an 'f' without "bp":"e" may bind to the next slice (Chrome flow v1).
bool FlowLinker::bind(const FlowEnd& fe, TrackId& trackOut, uint32_t& rowOut,
                      std::vector<uint32_t>& cursors) const
{
    const RowTable::Row& row = m_rows.row(fe.row);
    struct Candidate {
        TrackId track;
        uint32_t row;
        int score;
    };
    Candidate best{TrackId(), kNone, -1};
    int atTs = 0;
    for (TrackId tid : row.tracks) {
        if (!tid.valid()) continue;
        const SliceTrack& st = m_trace.track(tid).slices;
        for (size_t r = firstStartingAt(st, fe.ts, cursors[tid.value]); r < st.size() && st.start(r) == fe.ts;
             ++r) {
            ++atTs;
            const EventKind k = m_trace.kindOf(st.category(r));
            int score = 10 + st.depth(r);
            if (isLaunchKind(k) || isGpuWorkKind(k)) score += 1000;
            if (k == EventKind::GpuUserAnnotation) score -= 5;
            if (score > best.score) best = Candidate{tid, uint32_t(r), score};
        }
    }
    if (atTs > 1) {
        // Several slices start at ts (common with integer-µs traces): the correlation decides.
        for (TrackId tid : row.tracks) {
            if (!tid.valid()) continue;
            const SliceTrack& st = m_trace.track(tid).slices;
            for (size_t r = firstStartingAt(st, fe.ts, cursors[tid.value]);
                 r < st.size() && st.start(r) == fe.ts; ++r) {
                if (correlationOf(tid, uint32_t(r)) != int64_t(fe.id)) continue;
                const EventKind k = m_trace.kindOf(st.category(r));
                int score = 100000 + 10 + st.depth(r);
                if (isLaunchKind(k) || isGpuWorkKind(k)) score += 1000;
                if (k == EventKind::GpuUserAnnotation) score -= 5;
                if (score > best.score) best = Candidate{tid, uint32_t(r), score};
            }
        }
    }
    if (best.score >= 0) {
        trackOut = best.track;
        rowOut = best.row;
        return true;
    }
    for (TrackId tid : row.tracks) {
        if (!tid.valid()) continue;
        const int64_t r = m_trace.track(tid).slices.rowAt(fe.ts);
        if (r >= 0) {
            trackOut = tid;
            rowOut = uint32_t(r);
            return true;
        }
    }
    if (fe.ph == 'f' && !fe.bindEnclosing) {
        for (TrackId tid : row.tracks) {
            if (!tid.valid()) continue;
            const SliceTrack& st = m_trace.track(tid).slices;
            const size_t r = firstStartingAt(st, fe.ts, cursors[tid.value]);
            if (r < st.size()) {
                trackOut = tid;
                rowOut = uint32_t(r);
                return true;
            }
        }
    }
    return false;
}

void FlowLinker::pair(const Column<FlowEnd>& ends)
{
    // Group ends by (category, id) with an open-addressing table; the first start and first finish of
    // a group are kept inline, any further ones (rare) in an overflow list.
    struct Group {
        uint64_t id;
        uint32_t cat;
        uint32_t firstS = kNone;
        uint32_t firstF = kNone;
        uint32_t extra = 0;
    };
    LargeVector<Group> groups;
    groups.reserve(ends.size() / 2 + 16);                // most keys have a start and an end
    LargeVector<std::pair<uint32_t, uint32_t>> overflow; // (group, end index)
    size_t cap = 1024;
    while (cap < ends.size() * 2)
        cap *= 2;
    LargeVector<uint32_t> slots(cap, 0);
    for (size_t i = 0; i < ends.size(); ++i) {
        const FlowEnd& fe = ends[i];
        if (fe.ph != 's' && fe.ph != 'f') continue; // 't' (flow step) events carry no binding we use
        size_t s = mix64(fe.id ^ (uint64_t(fe.cat.value) << 40) ^ 0x9e3779b97f4a7c15ULL) & (cap - 1);
        while (slots[s] != 0) {
            const Group& g = groups[slots[s] - 1];
            if (g.id == fe.id && g.cat == fe.cat.value) break;
            s = (s + 1) & (cap - 1);
        }
        if (slots[s] == 0) {
            groups.push_back(Group{fe.id, fe.cat.value});
            slots[s] = uint32_t(groups.size());
        }
        const uint32_t gi = slots[s] - 1;
        Group& g = groups[gi];
        uint32_t& first = fe.ph == 's' ? g.firstS : g.firstF;
        if (first == kNone) {
            first = uint32_t(i);
        } else {
            overflow.emplace_back(gi, uint32_t(i));
            ++g.extra;
        }
    }
    LargeVector<uint32_t>().swap(slots);
    std::sort(overflow.begin(), overflow.end());

    LargeVector<std::pair<uint32_t, uint32_t>>& ends2 = m_pairs;
    ends2.reserve(groups.size() + overflow.size());
    size_t ov = 0;
    std::vector<uint32_t> starts, finishes;
    for (uint32_t gi = 0; gi < groups.size(); ++gi) {
        const Group& g = groups[gi];
        if (g.extra == 0) {
            ends2.emplace_back(g.firstS, g.firstF);
            continue;
        }
        starts.clear();
        finishes.clear();
        if (g.firstS != kNone) starts.push_back(g.firstS);
        if (g.firstF != kNone) finishes.push_back(g.firstF);
        while (ov < overflow.size() && overflow[ov].first < gi)
            ++ov;
        for (; ov < overflow.size() && overflow[ov].first == gi; ++ov) {
            const uint32_t e = overflow[ov].second;
            (ends[e].ph == 's' ? starts : finishes).push_back(e);
        }
        auto byTs = [&ends](uint32_t a, uint32_t b) { return ends[a].ts < ends[b].ts; };
        std::stable_sort(starts.begin(), starts.end(), byTs);
        std::stable_sort(finishes.begin(), finishes.end(), byTs);
        for (size_t i = 0; i < std::max(starts.size(), finishes.size()); ++i)
            ends2.emplace_back(i < starts.size() ? starts[i] : kNone,
                               i < finishes.size() ? finishes[i] : kNone);
    }
    LargeVector<Group>().swap(groups);
    LargeVector<std::pair<uint32_t, uint32_t>>().swap(overflow);
}

uint64_t FlowLinker::link(const Column<FlowEnd>& ends, unsigned threads)
{
    const size_t n = m_trace.trackCount();
    m_linkBegin.assign(n, 0);
    m_linkEnd.assign(n, 0);
    const Column<SliceLinkIds>& links = m_trace.linkIds();
    for (size_t i = 0; i < links.size();) {
        const uint32_t t = links[i].slice.track.value;
        size_t j = i;
        while (j < links.size() && links[j].slice.track.value == t)
            ++j;
        m_linkBegin[t] = i;
        m_linkEnd[t] = j;
        i = j;
    }
    const LargeVector<std::pair<uint32_t, uint32_t>>& ends2 = m_pairs;
    // Flows are written straight into the trace's column: a copy would double their memory.
    Column<Flow>& flows = m_trace.flows();
    const size_t base = flows.size();
    flows.resize(base + ends2.size());
    std::atomic<uint64_t> unbound{0};
    std::atomic<size_t> next{0};
    auto work = [&] {
        uint64_t missed = 0;
        std::vector<uint32_t> cursors(m_trace.trackCount(), 0);
        while (true) {
            const size_t begin = next.fetch_add(4096);
            if (begin >= ends2.size()) break;
            const size_t end = std::min(ends2.size(), begin + 4096);
            for (size_t i = begin; i < end; ++i) {
                Flow& f = flows[base + i];
                const auto [si, fi] = ends2[i];
                auto bindInto = [&](const FlowEnd& fe, TrackId& track, uint32_t& row) {
                    if (bind(fe, track, row, cursors)) return;
                    ++missed;
                    row = UINT32_MAX;
                    // Keep the row of an unbound end so the flow can still be drawn from its thread.
                    track = TrackId();
                    for (TrackId t : m_rows.row(fe.row).tracks)
                        if (t.valid()) {
                            track = t;
                            break;
                        }
                };
                if (si != kNone) {
                    const FlowEnd& fe = ends[si];
                    f.id = fe.id;
                    f.category = fe.cat;
                    f.name = fe.name;
                    f.fromTs = fe.ts;
                    f.hasFrom = true;
                    bindInto(fe, f.fromTrack, f.fromRow);
                }
                if (fi != kNone) {
                    const FlowEnd& fe = ends[fi];
                    f.id = fe.id;
                    f.category = fe.cat;
                    if (!f.name.valid()) f.name = fe.name;
                    f.toTs = fe.ts;
                    f.hasTo = true;
                    bindInto(fe, f.toTrack, f.toRow);
                }
            }
        }
        unbound.fetch_add(missed);
    };
    threads = std::max(1u, std::min<unsigned>(threads, unsigned(ends2.size() / 4096 + 1)));
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < threads; ++t)
        pool.emplace_back(work);
    work();
    for (auto& t : pool)
        t.join();
    LargeVector<std::pair<uint32_t, uint32_t>>().swap(m_pairs);
    return unbound.load();
}

} // namespace ks
