#include "analysis/backwardstacks.h"

#include "analysis/lanemerge.h"
#include "analysis/stackexport.h"

#include <charconv>
#include <map>
#include <unordered_map>

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

struct Info {
    int64_t seq = -1;
    int64_t fwdThread = 0;
    uint32_t root = UINT32_MAX; // the backward function at or above the event, if any
};

} // namespace

BackwardStacks::BackwardStacks(const Trace& trace, const FunctionEventList& list)
    : m_trace(trace), m_list(list)
{
    size_t n = 0;
    for (const auto& lane : list.lanes())
        n = std::max<size_t>(n, lane.end);
    m_source.assign(n, kOwn);
    m_track.assign(n, TrackId());
    std::vector<Info> info(n);

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
        uint32_t previous = UINT32_MAX;
        for (uint32_t g = lane.begin; g < lane.end; ++g) {
            if (list.flags[g] & FunctionEventList::kRemoved) continue;
            m_track[g] = lane.track;
            while (!open.empty() &&
                   (list.start[g] >= list.end[open.back()] || list.end[g] > list.end[open.back()]))
                open.pop_back();
            const size_t row = list.sliceRow[g];
            Info& in = info[g];
            in.seq = intArg(trace, s.args(row), "Sequence number", -1);
            in.fwdThread = intArg(trace, s.args(row), "Fwd thread id", 0);
            const std::string_view name = trace.str(s.name(row));
            bool backward = in.fwdThread > 0 && !name.starts_with(kEvaluate);
            // The wrapper is normally the node's parent; with equal times (traces in whole µs) a
            // zero-length wrapper is not, but it still comes right before the node.
            if (!backward && previous != UINT32_MAX && list.start[g] <= list.end[previous]) {
                const std::string_view wrapper = trace.str(s.name(list.sliceRow[previous]));
                backward = wrapper.size() == kEvaluate.size() + name.size() &&
                           wrapper.starts_with(kEvaluate) && wrapper.ends_with(name);
            }
            if (backward)
                in.root = g;
            else if (!open.empty())
                in.root = info[open.back()].root;
            open.push_back(g);
            previous = g;
        }
    }

    // Forward thread numbers to tracks: votes of the backward functions' sequence numbers.
    std::map<std::pair<int64_t, uint32_t>, uint32_t> forwardSeqs; // (seq, lane) -> count of ops
    for (uint32_t li : cpuLanes) {
        const auto& lane = list.lanes()[li];
        for (uint32_t g = lane.begin; g < lane.end; ++g)
            if (!(list.flags[g] & FunctionEventList::kRemoved) && info[g].root == UINT32_MAX &&
                info[g].seq >= 0 && info[g].fwdThread == 0)
                ++forwardSeqs[{info[g].seq, li}];
    }
    std::map<int64_t, std::map<uint32_t, uint32_t>> votes; // fwd thread -> lane -> hits
    for (uint32_t li : cpuLanes) {
        const auto& lane = list.lanes()[li];
        for (uint32_t g = lane.begin; g < lane.end; ++g) {
            if (info[g].root != g || info[g].fwdThread <= 0) continue;
            auto& v = votes[info[g].fwdThread];
            for (uint32_t cand : cpuLanes)
                if (forwardSeqs.count({info[g].seq, cand})) ++v[cand];
        }
    }
    std::unordered_map<int64_t, uint32_t> laneOfThread;
    for (const auto& [thread, byLane] : votes) {
        uint32_t best = UINT32_MAX, bestHits = 0;
        for (const auto& [li, hits] : byLane)
            if (hits > bestHits) best = li, bestHits = hits; // ties: the first lane
        if (best != UINT32_MAX) laneOfThread[thread] = best;
    }

    // fwd_stacks: the first event in list order outside backward functions per (sequence, thread).
    std::map<std::pair<int64_t, uint32_t>, uint32_t> firstForward;
    std::vector<uint32_t> laneOf(n, UINT32_MAX);
    for (uint32_t li : cpuLanes)
        for (uint32_t g = list.lanes()[li].begin; g < list.lanes()[li].end; ++g)
            laneOf[g] = li;
    mergeLanes(
        list, cpuLanes, [&](uint32_t g) { return info[g].root == UINT32_MAX; },
        [&](uint32_t g) {
            firstForward.try_emplace({info[g].seq, laneOf[g]}, g);
        });

    for (uint32_t li : cpuLanes) {
        const auto& lane = list.lanes()[li];
        for (uint32_t g = lane.begin; g < lane.end; ++g) {
            const uint32_t root = info[g].root;
            if (root == UINT32_MAX || (list.flags[g] & FunctionEventList::kRemoved)) continue;
            m_source[g] = kEmpty;
            const auto thread = laneOfThread.find(info[root].fwdThread);
            if (thread == laneOfThread.end()) continue;
            const auto fwd = firstForward.find({info[root].seq, thread->second});
            if (fwd != firstForward.end()) m_source[g] = fwd->second;
        }
    }
}

void BackwardStacks::stackOf(uint32_t g, std::vector<std::string_view>& frames) const
{
    const uint32_t src = g < m_source.size() ? m_source[g] : kOwn;
    if (src == kEmpty) {
        frames.clear();
        return;
    }
    const uint32_t own = src == kOwn ? g : src;
    sliceStack(m_trace, SliceRef{m_track[own], m_list.sliceRow[own]}, frames);
}

} // namespace ks
