#pragma once

#include "core/analysis/ranks/jobsummary.h"

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace ks {

struct RankInput {
    std::string path;
    int64_t rankHint = -1; // from the file name or the job's order; distributedInfo wins
};

struct LoadedRank {
    std::unique_ptr<Trace> trace; // null on failure
    std::string error;            // one line
    std::vector<std::string> warnings;
};
// Loads one rank's trace with `threads` parser threads. The analysis layer cannot read files (the
// reader is in io), so the caller hands the reader down: app/cli and the GUI wrap loadTraceFile.
using RankLoader = std::function<LoadedRank(const std::string& path, unsigned threads)>;

struct JobRunOptions {
    // Ranks loaded at the same time: the memory bound (each rank's trace is dropped once summarized,
    // so peak memory is about this many ranks' traces). 0: min(hardware threads, 4).
    unsigned maxLoaded = 0;
    // Bytes the loaded ranks may take together (0: no limit beyond maxLoaded). A rank's share is
    // estimated from its file (estimateRankBytes); a rank starts only while the ranks in flight and
    // it fit, and one rank always may, however large.
    uint64_t memoryBudget = 0;
    // Called from the worker threads after each rank (done, total, path, failed).
    std::function<void(size_t, size_t, const std::string&, bool)> progress;
    const std::atomic<bool>* cancel = nullptr;
};

// The memory a rank's trace takes while it is loaded and summarized, from its file: about 1.5× the
// JSON text (bench_job measures 1.4×), the text being ~20× a .gz file.
uint64_t estimateRankBytes(const std::string& path);

// Loads, summarizes and drops one rank.
bool analyzeRank(const RankInput& input, const RankLoader& loader, unsigned threads, RankSummary& out,
                 std::string& error);

// Every rank of a job, maxLoaded at a time; a rank that fails is reported in failures, the others
// are kept. The result is normalized (sorted by rank).
JobSummary runJob(const std::vector<RankInput>& inputs, const RankLoader& loader,
                  const JobRunOptions& options = {});

} // namespace ks
