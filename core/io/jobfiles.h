#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ks {

// One rank's trace file of a distributed job.
struct JobFile {
    std::string path;
    int64_t rank = -1; // distributedInfo.rank when the head of the file has it, else from the name
    bool rankFromInfo = false;
};

struct JobFiles {
    std::vector<JobFile> files;        // sorted by rank, then path
    std::string error;                 // one line, when nothing usable was found
    std::vector<std::string> warnings; // entries named like traces that were skipped, and why
};

// The rank a trace declares in its distributedInfo, read from the first MB of (decompressed) text,
// where Kineto writes it; -1 when absent there or the file cannot be read.
int64_t peekDistributedRank(const std::string& path);
// The rank a file name carries: "rank-3", "rank_3", "rank3", "worker3" (HTA's and tensorboard's
// layouts); -1 when none.
int64_t rankFromFileName(const std::string& path);

// The ranks of a job given as one directory (HTA's layout: one trace per rank; tensorboard's
// worker*.pt.trace.json[.gz], newest capture of each worker) or as a list of files.
JobFiles findJobFiles(const std::vector<std::string>& dirOrFiles);

// A directory holding two or more traces, each of a different known rank (by distributedInfo or by
// the file name); a folder of unrelated traces, where ranks repeat or are unknown, is not a job.
bool looksLikeJobDirectory(const std::string& dir);

} // namespace ks
