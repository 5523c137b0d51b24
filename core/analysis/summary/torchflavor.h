#pragma once

#include "core/model/trace.h"

#include <cstdint>
#include <string_view>

namespace ks {

// Which torch's key_averages().table() a summary reproduces. torch 1.13 and torch 2.x build and
// print the table differently (docs/summary.md, "torch 1.13 and torch 2.x"): 2.x keeps times with
// ns digits measured from the profiler's start, puts Python function events into the tree
// (with_stack), shows TensorList arguments as [], sums with Python's compensated sum(), spells
// memory units KB/MB, prints every stack frame it grouped by and keeps user annotations apart.
enum class TorchFlavor : uint8_t {
    Torch1, // torch 1.13, on Python 3.11 (Debian 12)
    Torch2, // torch 2.x as of 2.14, on Python >= 3.12
};

// The torch that wrote a trace, as far as the file tells. torch writes no version into its traces,
// but every 2.x Kineto trace of the last years carries what 1.13's never did: the epoch base of its
// timestamps ("baseTimeNanoseconds"), a "trace_id", or timestamps with ns digits (torch 2.x's own
// legacy exporter writes those too). A trace with none of them reads as torch 1.13.
TorchFlavor detectTorchFlavor(const Trace& trace);

// "1", "1.13", "1.x" -> Torch1; "2", "2.14", "2.x" -> Torch2. False for anything else.
bool parseTorchFlavor(std::string_view text, TorchFlavor& out);
const char* torchFlavorName(TorchFlavor flavor);

} // namespace ks
