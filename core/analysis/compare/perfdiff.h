#pragma once

#include "core/analysis/overview/devicepeaks.h"
#include "core/analysis/overview/perfmodel.h"

#include <optional>
#include <string>
#include <vector>

namespace ks {

// One side of a perf-model row: TraceLens's achieved throughput for an op with given shapes, and
// how far that is from the side's own device peak (an H100 run and an MI300X run each against
// their own roof).
struct PerfSide {
    uint64_t calls = 0;
    double tflopsPerS = 0; // mean over calls; NaN when absent
    double tbPerS = 0;
    double kernelUs = 0;   // total busy GPU time of the calls
    double peakTflops = 0; // the side's compute roof for the op's dtype; 0 without a known device
    double percentOfPeak() const { return peakTflops > 0 ? 100.0 * tflopsPerS / peakTflops : 0; }
};

struct PerfDiffRow {
    std::string sheet; // "GEMM", "SDPA_fwd", ...
    std::string name;  // "aten::mm"
    std::string shape; // the sheet's parameters, "M=8944 N=2816 K=1024 dtype_A_B=c10::BFloat16 ..."
    double gflops = 0; // per call (same shapes: same on both sides)
    PerfSide a, b;
    bool inA() const { return a.calls > 0; }
    bool inB() const { return b.calls > 0; }
    double tflopsDelta() const { return b.tflopsPerS - a.tflopsPerS; }
};

struct PerfDiff {
    std::vector<PerfDiffRow> rows; // largest kernel-time change first
    std::optional<DevicePeak> peakA, peakB;
};

// Matches perf-sheet rows of two runs on (sheet, op, parameters).
PerfDiff diffPerf(const std::vector<PerfSheet>& a, const std::vector<PerfSheet>& b,
                  const std::optional<DevicePeak>& peakA, const std::optional<DevicePeak>& peakB);

} // namespace ks
