#include "core/analysis/ranks/ranksummary.h"

#include "core/util/intervalset.h"
#include "core/util/saturate.h"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace ks {

void readDistributedInfo(const Trace& trace, int64_t& rank, int64_t& worldSize, std::string& backend)
{
    rank = -1;
    worldSize = 0;
    backend.clear();
    const std::string* text = trace.metadata().find("distributedInfo");
    if (!text) return;
    const nlohmann::json j = nlohmann::json::parse(*text, nullptr, false);
    if (!j.is_object()) return;
    auto integer = [&](const char* key, int64_t& out) {
        const auto it = j.find(key);
        if (it == j.end()) return;
        if (it->is_number_integer())
            out = it->get<int64_t>();
        else if (it->is_string()) {
            try {
                out = std::stoll(it->get<std::string>());
            } catch (...) {
            }
        }
    };
    integer("rank", rank);
    integer("world_size", worldSize);
    const auto b = j.find("backend");
    if (b != j.end() && b->is_string()) backend = b->get<std::string>();
}

RankSummary summarizeRank(const Trace& t, const LinkIndex& links, const std::string& path)
{
    RankSummary r;
    r.path = path;
    readDistributedInfo(t, r.rank, r.worldSize, r.backend);
    r.slices = t.sliceCount();
    r.timeOffset = t.baseTimeNs();
    r.start = addSaturated(t.startTime(), r.timeOffset);
    r.end = addSaturated(t.endTime(), r.timeOffset);

    const StepBreakdown b = StepBreakdownAnalysis(t, links).compute();
    r.onDevice = b.onDevice;
    r.wholeTrace = b.wholeTrace;
    if (b.tailStepsRemoved)
        r.warnings.push_back(std::to_string(b.tailStepsRemoved) +
                             " trailing step(s) left out: their device work was cut off by the capture");

    // HTA: kernels only; communication when named like NCCL/RCCL, memcpy/memset are neither.
    IntervalSet comm, comp;
    for (size_t ti = 0; ti < t.trackCount(); ++ti) {
        const SliceTrack& s = t.track(TrackId(uint32_t(ti))).slices;
        for (size_t i = 0; i < s.size(); ++i) {
            if (t.kindOf(s.category(i)) != EventKind::Kernel) continue;
            (isCommunicationKernelName(t.str(s.name(i))) ? comm : comp).add(s.start(i), s.end(i));
        }
    }
    comm.normalize();
    comp.normalize();
    const IntervalSet overlap = comm.intersected(comp);
    r.commTime = comm.length();
    r.overlapTime = overlap.length();

    for (const StepCosts& c : b.steps) {
        RankStep st;
        st.number = c.number;
        st.start = addSaturated(c.start, r.timeOffset);
        st.end = addSaturated(c.end, r.timeOffset);
        st.cost = c.cost;
        st.commTime = comm.lengthIn(c.start, c.end);
        st.overlapTime = overlap.lengthIn(c.start, c.end);
        r.steps.push_back(st);
    }

    r.collectives = extractCollectives(t, links, r.timeOffset);
    // Steps are in time order; each collective belongs to the step it started in.
    size_t k = 0;
    for (Collective& c : r.collectives) {
        while (k < r.steps.size() && r.steps[k].end <= c.start)
            ++k;
        if (k < r.steps.size() && r.steps[k].start <= c.start) c.step = r.steps[k].number;
        if (c.groupSize == 0) c.groupSize = r.worldSize;
    }
    size_t unsized = 0;
    for (const Collective& c : r.collectives)
        unsized += c.bytes == 0;
    if (unsized)
        r.warnings.push_back(
            std::to_string(unsized) + " of " + std::to_string(r.collectives.size()) +
            " collectives without a known size (no record_param_comms args): no bandwidth for them");
    return r;
}

} // namespace ks
