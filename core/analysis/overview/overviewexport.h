#pragma once

#include "core/analysis/overview/overview.h"

#include <string>

namespace ks {

// Writes the overview as TraceLens's CSV files into dir (created when missing), with TraceLens's
// file and column names: gpu_timeline.csv, ops_summary_by_category.csv, ops_summary.csv,
// kernel_summary.csv, short_kernel_histogram.csv and one file per perf sheet (GEMM.csv,
// SDPA_fwd.csv, Normalization.csv, ...). Sheets TraceLens would leave out (empty, or CPU-side sheets
// of a GPU-only trace) are not written. Each file is replaced atomically. False with error set on
// the first failure.
bool writeOverviewCsv(const OverviewResult& result, const std::string& dir, std::string* error);

// One JSON object. gpu_timeline holds TraceLens's keys in ms; the other members mirror the CSVs.
std::string overviewJson(const OverviewResult& result);

// A readable report for the terminal; rowLimit rows per table.
std::string overviewText(const OverviewResult& result, size_t rowLimit = 15);

// gpu_timeline's rows in TraceLens's order: (key, ns).
std::vector<std::pair<const char*, TimeNs>> timelineRows(const GpuTimelineMetrics& m);

} // namespace ks
