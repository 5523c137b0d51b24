#include "core/analysis/summary/autogradlinks.h"

#include "core/analysis/summary/lanemerge.h"

#include <charconv>

namespace ks {

namespace {

constexpr std::string_view kEvaluate = "autograd::engine::evaluate_function: ";

// Older traces wrote some integer args as digit strings.
int64_t intArg(const Trace& trace, ArgsRef args, std::string_view key, int64_t fallback)
{
    ArgValue v;
    if (!trace.args().find(args, key, v)) return fallback;
    if (v.type == ArgType::Int) return v.i;
    if (v.type == ArgType::String) {
        int64_t n = 0;
        const char* b = v.text.data();
        const char* e = b + v.text.size();
        auto [p, ec] = std::from_chars(b, e, n);
        if (ec == std::errc() && p == e) return n;
    }
    return fallback;
}

} // namespace

AutogradLinks::AutogradLinks(const Trace& trace, const FunctionEventList& list) : m_list(list)
{
    size_t n = 0;
    for (const auto& lane : list.lanes())
        n = std::max<size_t>(n, lane.end);
    m_root.assign(n, kNone);
    m_lane.assign(n, kNone);
    m_seq.assign(n, -1);
    m_fwdThread.assign(n, 0);
    auto live = [&](uint32_t g) { return !(list.flags[g] & FunctionEventList::kRemoved); };

    // Ancestry by torch's stack walk over the events still in the list: folding a duplicate child
    // into its parent leaves every other event's ancestors as they were.
    std::vector<uint32_t> cpuLanes;
    std::vector<uint32_t> open;
    for (uint32_t li = 0; li < list.lanes().size(); ++li) {
        const FunctionEventList::Lane& lane = list.lanes()[li];
        if (lane.kind != FunctionEventList::LaneKind::Cpu) continue;
        cpuLanes.push_back(li);
        const SliceTrack& s = trace.slices(lane.track);
        open.clear();
        uint32_t previous = kNone;
        for (uint32_t g = lane.begin; g < lane.end; ++g) {
            m_lane[g] = li;
            if (!live(g)) continue;
            while (!open.empty() &&
                   (list.start[g] >= list.end[open.back()] || list.end[g] > list.end[open.back()]))
                open.pop_back();
            const size_t row = list.sliceRow[g];
            m_seq[g] = intArg(trace, s.args(row), "Sequence number", -1);
            m_fwdThread[g] = intArg(trace, s.args(row), "Fwd thread id", 0);
            const std::string_view name = trace.str(s.name(row));
            bool backward = m_fwdThread[g] > 0 && !name.starts_with(kEvaluate);
            if (!backward && previous != kNone && list.start[g] <= list.end[previous]) {
                const std::string_view wrapper = trace.str(s.name(list.sliceRow[previous]));
                backward = wrapper.size() == kEvaluate.size() + name.size() &&
                           wrapper.starts_with(kEvaluate) && wrapper.ends_with(name);
            }
            if (backward)
                m_root[g] = g;
            else if (!open.empty())
                m_root[g] = m_root[open.back()];
            open.push_back(g);
            previous = g;
        }
    }

    // Forward thread numbers to lanes: votes of the backward functions' sequence numbers.
    std::map<Key, uint32_t> forwardSeqs;
    for (uint32_t li : cpuLanes)
        for (uint32_t g = list.lanes()[li].begin; g < list.lanes()[li].end; ++g)
            if (live(g) && m_root[g] == kNone && m_seq[g] >= 0 && m_fwdThread[g] <= 0)
                ++forwardSeqs[{m_seq[g], li}];
    std::map<int64_t, std::map<uint32_t, uint32_t>> votes; // thread number -> lane -> hits
    for (uint32_t li : cpuLanes)
        for (uint32_t g = list.lanes()[li].begin; g < list.lanes()[li].end; ++g) {
            if (!live(g) || m_root[g] != g || m_fwdThread[g] <= 0) continue;
            auto& v = votes[m_fwdThread[g]];
            for (uint32_t cand : cpuLanes)
                if (forwardSeqs.count({m_seq[g], cand})) ++v[cand];
        }
    for (const auto& [thread, byLane] : votes) {
        uint32_t best = kNone, bestHits = 0;
        for (const auto& [li, hits] : byLane)
            if (hits > bestHits) best = li, bestHits = hits; // ties: the first lane
        if (best != kNone) m_laneOfThread[thread] = best;
    }

    // torch's fwd_stacks: the first event in list order under no backward function, per key.
    mergeLanes(
        list, cpuLanes, [&](uint32_t g) { return m_root[g] == kNone; },
        [&](uint32_t g) {
            m_firstForward.try_emplace({m_seq[g], m_lane[g]}, g);
        });

    for (uint32_t li : cpuLanes)
        for (uint32_t g = list.lanes()[li].begin; g < list.lanes()[li].end; ++g)
            if (live(g) && m_root[g] == g && m_seq[g] >= 0) {
                const uint32_t lane = forwardLane(g);
                if (lane != kNone) m_backward.try_emplace({m_seq[g], lane}, g);
            }
}

uint32_t AutogradLinks::forwardLane(uint32_t fn) const
{
    const auto it = m_laneOfThread.find(m_fwdThread[fn]);
    return it == m_laneOfThread.end() ? kNone : it->second;
}

uint32_t AutogradLinks::forwardOf(uint32_t fn) const
{
    const uint32_t lane = forwardLane(fn);
    if (lane == kNone) return kNone;
    const auto it = m_firstForward.find({m_seq[fn], lane});
    return it == m_firstForward.end() ? kNone : it->second;
}

uint32_t AutogradLinks::backwardOf(uint32_t g) const
{
    if (g >= m_root.size() || m_root[g] != kNone || m_seq[g] < 0) return kNone;
    const auto it = m_backward.find({m_seq[g], m_lane[g]});
    return it == m_backward.end() ? kNone : it->second;
}

} // namespace ks
