#pragma once

#include "core/model/trace.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ks {

// Peak throughput of one accelerator, for "% of peak" and the roofline: dense (no sparsity)
// tensor-core/matrix-core TFLOPS/s per data type, vector FP32, and memory bandwidth. From the
// vendors' datasheets (docs/analyze.md lists the sources); the user can override any of them.
struct DevicePeak {
    std::string name;      // "H100 SXM"
    double tflopsBf16 = 0; // also FP16
    double tflopsFp8 = 0;  // 0: no FP8 units
    double tflopsTf32 = 0; // matrix units on FP32 data (TF32 / XF32); 0: none
    double tflopsFp32 = 0; // FP32 without matrix units
    double memoryTBps = 0; // HBM / GDDR
    bool valid() const { return tflopsBf16 > 0 && memoryTBps > 0; }

    // The compute roof for an op's data type as torch names it ("c10::BFloat16", "float", ...).
    double tflopsFor(std::string_view dtype) const;
};

// The built-in table, most specific names first.
const std::vector<DevicePeak>& knownDevicePeaks();
// The peak of the trace's first device (deviceProperties "name", e.g. "NVIDIA H100 80GB HBM3"), if
// the table knows it.
std::optional<DevicePeak> devicePeakFor(std::string_view deviceName);
// deviceProperties[0].name of a trace, or "".
std::string traceDeviceName(const Trace& trace);
// Applies "bf16=989,fp32=67,tbps=3.35,fp8=1979,tf32=494" (any subset) to a peak; a name alone
// ("MI300X") picks a table entry. Returns false with a one-line reason in why.
bool applyDevicePeakOverride(std::string_view text, DevicePeak& peak, std::string& why);

} // namespace ks
