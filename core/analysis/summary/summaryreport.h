#pragma once

#include "core/analysis/summary/keyaverages.h"
#include "core/analysis/summary/summarytable.h"
#include "core/model/trace.h"

#include <optional>
#include <string>
#include <vector>

namespace ks {

// One operator summary as every front end needs it (CLI, GUI table, recording API): the
// key_averages rows plus the table options that follow from the trace (device columns when it has
// device work, memory columns when it was recorded with profile_memory, FLOPs when with_flops, the
// rules and memory units of the torch that wrote it).
struct SummaryReport {
    KeyAverages averages;
    TableOptions table; // column flags, torch and memory units filled in; sortBy/rowLimit/topLevelOnly left
                        // to the caller
    bool groupByInputShape = false;
    TorchFlavor torch = TorchFlavor::Torch1;

    std::string format(const TableOptions& options, std::string* error = nullptr) const
    {
        return SummaryTable::format(averages.rows(), options, error);
    }
};

struct SummaryRequest {
    bool groupByInputShape = false;
    int groupByStackN = 0;  // group_by_stack_n: also group by this many innermost frames
    int withFlops = -1;     // -1: as the trace's "with_flops" metadata says
    int profileMemory = -1; // -1: when the trace has allocator records or "profile_memory" metadata
    unsigned threads = 0;
    std::optional<TorchFlavor> torch; // whose rules; unset: the torch that wrote the trace
};

// True when a top-level metadata key holds a truthy JSON value (PyTorch writes 1).
bool metadataFlag(const Trace& trace, std::string_view key);

SummaryReport buildSummaryReport(const Trace& trace, const SummaryRequest& request = {});

// The slices a summary row stands for, in track order: same display name (after torch's demangling
// and ProfilerStep* folding), same device/annotation variant and, when rows are grouped by input
// shape, the same shapes, by the rules of the torch that wrote the trace. For highlighting a row's
// occurrences in the timeline.
std::vector<SliceRef> rowOccurrences(const Trace& trace, const KeyAverage& row, bool groupedByInputShape);

} // namespace ks
