#pragma once

#include "core/analysis/ranks/ranksummary.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ks {

// A rank that could not be analysed, reported instead of silently dropped.
struct RankFailure {
    std::string path;
    int64_t rank = -1; // as far as it is known (file name, order)
    std::string error; // one line
    int attempts = 1;
};

// A distributed job: one summary per rank, sorted by rank, plus the ranks that failed.
struct JobSummary {
    std::vector<RankSummary> ranks;
    std::vector<RankFailure> failures;
    std::vector<std::string> warnings;

    const RankSummary* findRank(int64_t rank) const;
    // Sorts by rank and renumbers ranks that two files both claim (with a warning); warns when the
    // traces' world_size names more ranks than were given.
    void normalize();

private:
    void warnAboutMissingRanks();
};

// The rank × step matrix of step time (or of one breakdown category).
struct StepMatrix {
    std::vector<int64_t> ranks; // rows
    std::vector<int64_t> steps; // columns: every step number any rank has, ascending
    std::vector<TimeNs> values; // row-major; -1 where the rank lacks the step

    TimeNs at(size_t row, size_t column) const { return values[row * steps.size() + column]; }
};
// category -1 is the step's wall time, else a StepCategory.
StepMatrix stepMatrix(const JobSummary& job, int category = -1);

// HTA's straggler rule (find_stragglers_with_late_start_comm_kernels and get_potential_stragglers):
// among communication kernels lasting at least minNormalizedDuration of the mean iteration time, the
// last one of each (rank, stream, step, name); the (stream, name) whose durations differ most across
// ranks (mean over steps of the standard deviation) is the metric kernel; in each step the
// nCandidates ranks that start it latest (ties included) are flagged, a rank's count is the number
// of steps it was flagged, and the job's stragglers are the nCandidates ranks flagged most.
// Unlike HTA, a rank that starts the kernel within startTolerance (a fraction of the mean iteration
// time) of the step's earliest start is not late, so ranks that start together name no straggler
// instead of the first nCandidates of a tie (docs/ranks.md).
struct StragglerReport {
    bool available = false;
    std::string why; // when not available
    std::string kernel;
    int64_t stream = -1;
    TimeNs tolerance = 0; // a start at most this much after the step's earliest is on time
    struct StepRow {
        int64_t step = 0;
        TimeNs spread = 0; // latest start − earliest start of the metric kernel
        int64_t latestRank = -1;
        size_t ranks = 0;                // ranks whose metric kernel of this step is long enough
        std::vector<int64_t> stragglers; // flagged in this step, ascending; empty when all on time
    };
    std::vector<StepRow> steps;
    std::vector<std::pair<int64_t, int>> counts; // (rank, steps flagged), most first, only > 0
    std::vector<int64_t> stragglers;             // the job's: at most nCandidates ranks, most flagged first
    // One line: which ranks straggle, or that none does and why.
    std::string verdict() const;
};
StragglerReport findStragglers(const JobSummary& job, int nCandidates = 2,
                               double minNormalizedDuration = 0.01, double startTolerance = 0.01);

// Collectives of the whole job: the k-th collective of an op on one rank is matched with the k-th of
// the same op on every other rank; rows group instances by op and size.
struct CollectiveRow {
    std::string op, dtype;
    int64_t bytes = 0, groupSize = 0;
    size_t calls = 0;        // over all ranks
    size_t ranks = 0;        // ranks that ran it
    double meanLatency = 0;  // ns
    double algBandwidth = 0; // GB/s: bytes / latency (nccl-tests), 0 when the size is unknown
    double busBandwidth = 0; // GB/s: algbw × busBandwidthFactor(op, groupSize)
    TimeNs maxSkew = 0;      // start-time spread across ranks of one matched instance, worst
    double meanSkew = 0;     // and on average
    int64_t lateRank = -1;   // the rank most often starting last
};
std::vector<CollectiveRow> collectiveTable(const JobSummary& job);

// Per rank and op: calls, bytes, time and bandwidths.
struct RankCollectiveRow {
    int64_t rank = -1;
    std::string op;
    size_t calls = 0;
    int64_t bytes = 0; // total
    TimeNs time = 0;   // total
    double algBandwidth = 0, busBandwidth = 0;
};
std::vector<RankCollectiveRow> rankCollectiveTable(const JobSummary& job);

} // namespace ks
