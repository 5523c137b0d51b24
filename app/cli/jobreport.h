#pragma once

#include "core/analysis/ranks/jobsummary.h"

#include <cstdio>

namespace ks::cli {

// The text report of analyze-job: ranks × steps, overlap, stragglers, collectives, failures.
void printJobReport(std::FILE* out, const JobSummary& job, size_t rowLimit);
// One rank, for analyze-rank without --json.
void printRankReport(std::FILE* out, const RankSummary& rank);

} // namespace ks::cli
