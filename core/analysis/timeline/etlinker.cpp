#include "core/analysis/timeline/etlinker.h"

#include <algorithm>
#include <deque>
#include <string>

namespace ks {

int64_t EtLinks::nodeOf(SliceRef slice) const
{
    const auto it = m_node.find(key(slice));
    return it == m_node.end() ? -1 : int64_t(it->second);
}

EtLinks EtLinks::link(const Trace& trace, const ExecutionTrace& et)
{
    EtLinks l;
    const auto& nodes = et.nodes();
    l.m_slice.assign(nodes.size(), SliceRef{});

    struct Candidate {
        TimeNs start;
        SliceRef ref;
    };
    std::vector<Candidate> candidates;
    for (size_t t = 0; t < trace.trackCount(); ++t) {
        const Track& track = trace.track(TrackId{uint32_t(t)});
        if (track.kind != TrackKind::CpuThread) continue;
        for (size_t i = 0; i < track.slices.size(); ++i) {
            const EventKind k = trace.kindOf(track.slices.category(i));
            // Legacy (torch 1.13 use_kineto=False) exports leave ops without a known category.
            if (k == EventKind::CpuOp || k == EventKind::UserAnnotation || k == EventKind::Other)
                candidates.push_back({track.slices.start(i), SliceRef{track.id, uint32_t(i)}});
        }
    }
    std::stable_sort(candidates.begin(), candidates.end(),
                     [](const Candidate& a, const Candidate& b) { return a.start < b.start; });
    l.m_candidates = candidates.size();

    std::unordered_map<int64_t, size_t> byRf;
    for (size_t c = 0; c < candidates.size(); ++c) {
        const SliceRef r = candidates[c].ref;
        const int64_t rf =
            trace.args().get(trace.slices(r.track).args(r.index), "Record function id").toInt();
        if (rf != 0) byRf.emplace(rf, c);
    }
    std::vector<uint8_t> taken(candidates.size(), 0);
    for (uint32_t n = 0; n < nodes.size(); ++n) {
        if (nodes[n].structural) continue;
        ++l.m_ops;
        if (nodes[n].rfId == 0) continue;
        const auto it = byRf.find(nodes[n].rfId);
        if (it == byRf.end() || taken[it->second] ||
            trace.sliceName(candidates[it->second].ref) != nodes[n].name)
            continue;
        taken[it->second] = 1;
        l.m_slice[n] = candidates[it->second].ref;
        ++l.m_byRf;
    }
    // Name and order for the rest.
    std::unordered_map<std::string_view, std::deque<size_t>> free;
    for (size_t c = 0; c < candidates.size(); ++c)
        if (!taken[c]) free[trace.sliceName(candidates[c].ref)].push_back(c);
    for (uint32_t n = 0; n < nodes.size(); ++n) {
        if (nodes[n].structural || l.m_slice[n].valid()) continue;
        const auto it = free.find(nodes[n].name);
        if (it == free.end() || it->second.empty()) continue;
        l.m_slice[n] = candidates[it->second.front()].ref;
        it->second.pop_front();
        ++l.m_byName;
    }
    for (uint32_t n = 0; n < nodes.size(); ++n)
        if (l.m_slice[n].valid()) l.m_node.emplace(key(l.m_slice[n]), n);
    return l;
}

} // namespace ks
