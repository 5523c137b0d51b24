#pragma once

#include "core/analysis/compare/argdiff.h"
#include "core/analysis/compare/opdiff.h"
#include "core/analysis/compare/perfdiff.h"
#include "core/analysis/compare/stepdiff.h"
#include "core/analysis/compare/treealign.h"
#include "core/analysis/compare/windowaverages.h"
#include "core/analysis/timeline/linkindex.h"

#include <atomic>
#include <optional>
#include <string>
#include <vector>

namespace ks {

// ProfilerStep#first..#last; unset: every step the run has.
struct StepRange {
    int64_t first = 0, last = -1;
    bool set() const { return last >= first; }
};

// One run of a comparison: a trace (the same trace may be both sides, with two step ranges) and its
// link index, built over it.
struct CompareSideInput {
    const Trace* trace = nullptr;
    const LinkIndex* links = nullptr;
    std::string label; // "A", a file name, ...
    StepRange steps;
};

struct CompareOptions {
    NoiseThreshold noise;
    // The step pair whose op trees are aligned (step numbers); -1: each side's first compared step.
    int64_t alignStepA = -1, alignStepB = -1;
    unsigned threads = 0;
};

struct CompareSideInfo {
    std::string label;
    std::string deviceName;         // deviceProperties[0].name, or ""
    std::optional<DevicePeak> peak; // from the built-in table
    EventWindow window;             // what was counted
    bool hasSteps = false;          // the trace has ProfilerStep ranges
    bool gpu = false;               // it has device work
};

// Everything `kinetoscope diff` prints and the compare view shows.
struct CompareReport {
    CompareSideInfo a, b;
    OpDiff ops;         // per op and per kernel (key_averages rows)
    StepDiff steps;     // step time and breakdown
    PerfDiff perf;      // TraceLens perf model per (op, shapes)
    TreeAlignment tree; // op trees of one step pair
    ArgDiff args;       // arguments of the events matched across the runs
    // Things the reader must know to trust the numbers (no steps, different devices, ...): one line each.
    std::vector<std::string> warnings;
    bool cancelled = false;
    struct Timings {
        double stepsS = 0; // step breakdowns
        double sidesS = 0; // per-side key_averages and perf sheets
        double diffS = 0;  // matching rows and aligning the trees
    } timings;
};

// Compares two runs. Steps: with ProfilerSteps on both sides, only the chosen (default: all) steps
// are counted, which drops set-up before the first step; without steps on either side the whole
// runs are compared by op name and the step and tree sections say so. False with a one-line error
// for a request that cannot be met (a step range the trace does not have).
bool compareRuns(const CompareSideInput& a, const CompareSideInput& b, const CompareOptions& options,
                 CompareReport& out, std::string* error, const std::atomic<bool>* cancel = nullptr);

} // namespace ks
