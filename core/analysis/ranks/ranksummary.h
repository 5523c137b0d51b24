#pragma once

#include "core/analysis/overview/stepbreakdown.h"
#include "core/analysis/ranks/collectives.h"
#include "core/util/saturate.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace ks {

// One ProfilerStep of one rank. Times are Unix-epoch ns when the trace has a base time (else its own
// axis), so steps of different ranks compare.
struct RankStep {
    int64_t number = 0;
    TimeNs start = 0, end = 0;
    std::array<TimeNs, kStepCategoryCount> cost{}; // tb_plugin's step breakdown
    // HTA's communication/computation overlap inside the step: communication-kernel time, and the
    // part of it during which a computation kernel ran.
    TimeNs commTime = 0, overlapTime = 0;

    TimeNs total() const { return subSaturated(end, start); }
};

// All that stays of a rank once its trace is dropped: a few KB per step and per collective.
struct RankSummary {
    int64_t rank = -1;     // distributedInfo.rank, else the job's hint (file name, order)
    int64_t worldSize = 0; // distributedInfo.world_size, 0 when absent
    std::string backend;   // distributedInfo.backend
    std::string path;
    uint64_t slices = 0;
    TimeNs timeOffset = 0; // added to the trace's times (its baseTimeNanoseconds)
    TimeNs start = 0, end = 0;
    bool onDevice = false;   // steps extended to the device work they launched
    bool wholeTrace = false; // no ProfilerStep: one step "0" over the whole trace
    std::vector<RankStep> steps;
    // HTA comm_comp_overlap over the whole trace: communication-kernel time (merged) and the part
    // of it that overlaps computation kernels (merged; memcpy/memset are neither).
    TimeNs commTime = 0, overlapTime = 0;
    std::vector<Collective> collectives;
    std::vector<std::string> warnings;

    // HTA's comp_comm_overlap_ratio; -1 when the rank has no communication kernels.
    double overlapRatio() const { return commTime > 0 ? double(overlapTime) / double(commTime) : -1.0; }
};

// distributedInfo of a trace's metadata: rank, world_size, backend (-1/0/"" when absent).
void readDistributedInfo(const Trace& trace, int64_t& rank, int64_t& worldSize, std::string& backend);

// Summarizes one loaded rank: its steps and breakdown (StepBreakdownAnalysis), HTA's overlap, and
// its collectives. The links must be built on the trace.
RankSummary summarizeRank(const Trace& trace, const LinkIndex& links, const std::string& path);

} // namespace ks
