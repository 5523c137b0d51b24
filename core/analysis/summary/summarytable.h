#pragma once

#include "core/analysis/summary/keyaverages.h"
#include "core/analysis/summary/pyformat.h"
#include "core/analysis/summary/sortkey.h"
#include "core/analysis/summary/torchflavor.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ks {

struct TableOptions {
    SortKey sortBy = SortKey::None;
    int64_t rowLimit = 100; // -1: all rows
    bool topLevelOnly = false;
    std::optional<std::string> header;
    std::string timeUnit; // "", "s", "ms" or "us"
    pyformat::MemoryUnits memoryUnits = pyformat::MemoryUnits::Current;
    // Whose _build_table: torch 1.13 prints at most 5 frames of a stack, counts GPU user
    // annotations in the device total and shows device memory columns without an accelerator
    // activity; torch 2.x prints every frame it grouped by, leaves annotations out of the total,
    // and refuses device time without a device.
    TorchFlavor torch = TorchFlavor::Torch1;
    bool profileMemory = false; // the memory columns
    bool withFlops = false;     // the FLOPs column (shown only when some row has FLOPs)
    bool useDevice = false;     // the profile had an accelerator
    std::string deviceName = "CUDA";
    size_t maxNameColumnWidth = 55;
    size_t maxShapesColumnWidth = 80;
    size_t maxSourceColumnWidth = 75;
};

// torch's EventList.table() over key_averages() rows (spec §2.4), byte for byte: the same columns,
// widths, truncation, number formats and footers, by the rules of options.torch.
class SummaryTable {
public:
    // Sorts rows as torch does, then formats them. An empty list gives "". Fails only where torch
    // raises: device time in rows while useDevice is off.
    static std::string format(std::vector<KeyAverage> rows, const TableOptions& options,
                              std::string* error = nullptr);
};

} // namespace ks
