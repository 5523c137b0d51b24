#pragma once

#include "core/analysis/ranks/jobsummary.h"

#include <string>
#include <string_view>

namespace ks {

// The .kjob file: a distributed job's per-rank summaries and the paths of the rank traces, as one
// versioned JSON object (docs/ranks.md describes it):
//   {"format": "kinetoscope-job", "version": 1, "ranks": [RANK...], "failures": [...], "warnings": [...]}
// A RANK is what `kinetoscope analyze-rank FILE --json` prints, so a job's ranks can be summarized
// anywhere (a Dask worker) and gathered here as they are.
constexpr int kJobFormatVersion = 1;

std::string rankSummaryToJson(const RankSummary& rank);
// False with a one-line error when the text is not a rank summary of a version this build reads.
bool rankSummaryFromJson(std::string_view json, RankSummary& out, std::string& error);

std::string jobSummaryToJson(const JobSummary& job);
bool jobSummaryFromJson(std::string_view json, JobSummary& out, std::string& error);

// Atomic write (AtomicFile) and read of a .kjob file; errors name the file.
bool writeJobFile(const std::string& path, const JobSummary& job, std::string& error);
bool readJobFile(const std::string& path, JobSummary& out, std::string& error);

} // namespace ks
