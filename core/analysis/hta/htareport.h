#pragma once

#include "core/analysis/hta/htabreakdown.h"
#include "core/analysis/hta/htacounters.h"
#include "core/analysis/hta/htaevents.h"
#include "core/analysis/hta/htasequences.h"

#include <optional>
#include <string>
#include <vector>

namespace ks::hta {

struct ReportOptions {
    std::string sequenceOperator; // empty: no frequent kernel sequences
    size_t minPatternLength = 3;  // HTA's min_pattern_len
    size_t topK = 5;              // patterns shown in the text report (JSON has all, as HTA returns)
    int64_t maxQueueLength = 1024;
    bool useGpuAnnotation = true;
    size_t annotationLimit = 1000; // HTA's num_kernels
    double annotationDurationRatio = 0.8;
};

// HTA's single-trace analyses on one trace (one rank), computed together (docs/analyze.md).
struct Report {
    ReportOptions options;
    int rank = 0;
    bool rounded = false;
    bool filteredToSteps = false;
    double durationUs = 0;
    std::optional<TemporalBreakdown> temporal;
    QueueLengthResult queue;
    std::vector<MemoryBandwidth> memory;
    AnnotationBreakdown annotations;
    std::vector<KernelSequence> sequences;
};

Report buildReport(const Trace& trace, const ReportOptions& options);

// The report as members of a JSON object: "hta_temporal_breakdown", "hta_queue_length",
// "hta_memory_bandwidth", "hta_gpu_user_annotation_breakdown", "hta_frequent_kernel_sequences".
// Times are HTA's µs on the file's axis; series are [ts_us, value] pairs.
std::string reportJsonMembers(const Report& report);
// Adds JSON members (text like "\"a\":1,\"b\":2") to the end of a JSON object's text.
std::string addJsonMembers(const std::string& objectText, const std::string& members);
std::string reportText(const Report& report);

} // namespace ks::hta
