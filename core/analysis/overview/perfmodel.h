#pragma once

#include "core/analysis/overview/launchattribution.h"
#include "core/analysis/overview/parentindex.h"

#include <string>
#include <vector>

namespace ks {

// mean, median, sample std (NaN below two values), min, max and sum over the finite values, as
// pandas aggregates them.
struct Stats {
    double mean = 0, median = 0, std = 0, min = 0, max = 0, sum = 0;
    uint64_t count = 0;                           // finite values
    static Stats of(std::vector<double>& values); // reorders values
};

// One row of a TraceLens perf sheet (GEMM.csv, SDPA_fwd.csv, ...): the calls of one op with the same
// parameters.
struct PerfRow {
    std::string name;
    std::vector<std::pair<std::string, std::string>> params; // "B" -> "1", in column order
    double gflops = 0;                                       // of the first call
    double dataMovedMB = 0;                                  // NaN when a dtype size is unknown
    double flopsPerByte = 0;
    Stats tbPerS; // per call: bytes / busy kernel time
    Stats tflopsPerS;
    Stats kernelUs;     // per call: busy time of all GPU work under the op
    uint64_t count = 0; // calls
};

struct PerfSheet {
    std::string name;                    // file stem: "GEMM", "SDPA_fwd", "Normalization", ...
    std::vector<std::string> paramNames; // columns, union over rows in first-seen order
    std::vector<PerfRow> rows;           // longest total kernel time first
};

// TraceLens's per-op performance model tables (TreePerf build_df_perf_metrics +
// summarize_df_perf_metrics): every call of a modelled op, its FLOPs and bytes from its recorded
// shapes, dtypes and strides, and achieved TFLOPS/s and TB/s from the busy time (union) of all GPU
// work launched under it. Calls inside the window only.
std::vector<PerfSheet> computePerfSheets(const Trace& trace, const std::vector<GpuWorkItem>& items,
                                         const TimeWindow& window, const ParentIndex& parents);

} // namespace ks
