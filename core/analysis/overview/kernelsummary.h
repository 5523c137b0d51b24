#pragma once

#include "core/analysis/overview/launchattribution.h"
#include "core/analysis/overview/parentindex.h"

#include <string>
#include <vector>

namespace ks {

// One row of TraceLens's kernel_summary.csv: kernels (not memcpy/memset) grouped by parent op
// category, parent cpu_op, kernel name and stream.
struct KernelSummaryRow {
    std::string category; // empty when the kernel has no launch (TraceLens: NaN)
    std::string parentOp; // the parent cpu_op, else the launching runtime call's name
    std::string kernelName;
    int64_t stream = -1;
    double sumUs = 0;
    uint64_t count = 0;
    double meanUs = 0;
    double minUs = 0;
    double maxUs = 0;
    double percentOfKernels = 0; // of the summed duration of all kernels
    double percentOfTotal = 0;   // of the GPU timeline's total_time
};

// One row of ops_summary.csv: kernel launchers grouped by name.
struct OpsSummaryRow {
    std::string name;
    double directUs = 0;                 // sum over launchers of the union of their own kernels (no NCCL)
    double subtreeUs = 0;                // sum over launchers of the union of all GPU work under them
    uint64_t count = 0;                  // launcher events
    std::vector<std::string> categories; // sorted
    double percent = 0;
    double cumulativePercent = 0;
};

// One row of ops_summary_by_category.csv.
struct CategorySummaryRow {
    std::string category;
    uint64_t count = 0;
    double directMs = 0;
    double percent = 0;
    double cumulativePercent = 0;
};

struct KernelSummary {
    std::vector<KernelSummaryRow> kernels; // longest total first
    bool hasParentOpColumn = false;        // TraceLens drops the column when no kernel has a cpu_op
    std::vector<OpsSummaryRow> ops;        // longest direct time first
    std::vector<CategorySummaryRow> categories;
    double totalKernelUs = 0;
};

// Whom a launch is credited to. TraceLens: its launcher (the first cpu_op above the runtime call,
// else the runtime call itself), for the CSV files that must compare with TraceLens's. Code: the
// GpuWorkItem's owner (a record_function range when no cpu_op encloses the launch), for the
// summaries a person reads (text report, --json, the Overview page).
enum class LauncherRule : uint8_t { TraceLens, Code };

// TraceLens's kernel_summary, ops_summary and ops_summary_by_category (TreePerf/tree_perf.py
// get_kernel_launchers / get_df_kernel_launchers_summary*, Reporting/generate_perf_report_pytorch.py)
// over gathered GPU work. totalTimeNs is the GPU timeline's total_time. Sorts flat arrays; no
// per-kernel allocation.
KernelSummary summarizeKernels(const Trace& trace, const std::vector<GpuWorkItem>& items, TimeNs totalTimeNs,
                               const ParentIndex& parents, LauncherRule rule = LauncherRule::TraceLens);

// Busy time (union of intervals) per key, from (key, start, end) triples sorted in place.
struct KeyedSpan {
    SliceRef key;
    TimeNs start;
    TimeNs end;
};
void unionPerKey(std::vector<KeyedSpan>& spans, std::vector<std::pair<SliceRef, TimeNs>>& out);

// The same per dense slot number (0 .. slots-1): busy[slot], by a counting sort on the slot
// instead of a comparison sort of all spans (spans of one slot mostly come in start order).
struct SlotSpan {
    uint32_t slot;
    TimeNs start;
    TimeNs end;
};
std::vector<TimeNs> unionPerSlot(const std::vector<SlotSpan>& spans, size_t slots);

} // namespace ks
