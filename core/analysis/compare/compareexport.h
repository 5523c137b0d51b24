#pragma once

#include "core/analysis/compare/runcompare.h"

#include <string>

namespace ks {

// How the op table is ordered (descending unless by name).
enum class OpSortKey : uint8_t {
    Delta,      // |Δ total duration| (HTA's diff_duration)
    SelfDelta,  // |Δ self time|
    CountDelta, // |Δ calls|
    DurationA,  // total duration in A
    DurationB,
    Name,
};
bool parseOpSortKey(const std::string& text, OpSortKey& out);
const char* opSortKeyNames(); // "delta, self, count, a, b, name"
void sortOpRows(std::vector<OpDiffRow>& rows, OpSortKey key);

// A readable report: warnings, step time and breakdown per side with deltas, the op/kernel table
// (rowLimit rows, then a totals line), the perf model and the aligned op tree's differences.
std::string compareText(const CompareReport& report, size_t rowLimit = 25);
// One JSON object with every section.
std::string compareJson(const CompareReport& report);
// One CSV per section into dir (created when missing): ops.csv, steps.csv, step_summary.csv,
// perf.csv, tree.csv. Each replaced atomically; false with error set on the first failure.
bool writeCompareCsv(const CompareReport& report, const std::string& dir, std::string* error);

} // namespace ks
