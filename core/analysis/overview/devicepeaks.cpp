#include "core/analysis/overview/devicepeaks.h"

#include "core/util/asciitext.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <nlohmann/json.hpp>

namespace ks {

namespace {

struct Entry {
    std::vector<std::string_view> match; // every one of these must appear in the lower-cased name
    DevicePeak peak;
};

// Dense peaks from NVIDIA's and AMD's datasheets (sparsity figures halved where only those are given).
const std::vector<Entry>& entries()
{
    static const std::vector<Entry> table = {
        {{"h200"}, {"H200", 989.4, 1978.9, 494.7, 66.9, 4.8}},
        {{"h100", "pcie"}, {"H100 PCIe", 756.0, 1513.0, 378.0, 51.2, 2.0}},
        {{"h100", "nvl"}, {"H100 NVL", 835.5, 1670.5, 417.5, 60.0, 3.9}},
        {{"h100"}, {"H100 SXM", 989.4, 1978.9, 494.7, 66.9, 3.35}},
        {{"gh200"}, {"GH200", 989.4, 1978.9, 494.7, 66.9, 4.0}},
        {{"b200"}, {"B200", 2250.0, 4500.0, 1100.0, 75.0, 8.0}},
        {{"a100", "pcie", "40"}, {"A100 PCIe 40GB", 312.0, 0, 156.0, 19.5, 1.555}},
        {{"a100", "pcie"}, {"A100 PCIe 80GB", 312.0, 0, 156.0, 19.5, 1.935}},
        {{"a100", "40gb"}, {"A100 SXM 40GB", 312.0, 0, 156.0, 19.5, 1.555}},
        {{"a100"}, {"A100 SXM 80GB", 312.0, 0, 156.0, 19.5, 2.039}},
        {{"l40s"}, {"L40S", 362.05, 733.0, 183.0, 91.6, 0.864}},
        {{"l4"}, {"L4", 121.0, 242.5, 60.0, 30.3, 0.3}},
        {{"a10"}, {"A10", 125.0, 0, 62.5, 31.2, 0.6}},
        {{"v100"}, {"V100", 125.0, 0, 0, 15.7, 0.9}},
        {{"t4"}, {"T4", 65.0, 0, 0, 8.1, 0.32}},
        {{"mi355"}, {"MI355X", 2516.6, 5033.2, 1258.0, 157.3, 8.0}},
        {{"mi325"}, {"MI325X", 1307.4, 2614.9, 653.7, 163.4, 6.0}},
        {{"mi300"}, {"MI300X", 1307.4, 2614.9, 653.7, 163.4, 5.3}},
        {{"mi250x"}, {"MI250X", 383.0, 0, 95.7, 47.9, 3.2}},
        {{"mi250"}, {"MI250", 362.1, 0, 90.5, 45.3, 3.2}},
        {{"mi210"}, {"MI210", 181.0, 0, 45.3, 22.6, 1.6}},
        {{"mi100"}, {"MI100", 92.3, 0, 46.1, 23.1, 1.23}},
    };
    return table;
}

bool parseDouble(std::string_view s, double& v)
{
    const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
    return r.ec == std::errc() && r.ptr == s.data() + s.size() && v >= 0;
}

} // namespace

double DevicePeak::tflopsFor(std::string_view dtype) const
{
    const std::string d = asciiLower(dtype);
    if (d.find("float8") != std::string::npos || d.find("fp8") != std::string::npos)
        return tflopsFp8 > 0 ? tflopsFp8 : tflopsBf16;
    if (d.find("bfloat16") != std::string::npos || d.find("half") != std::string::npos ||
        d.find("float16") != std::string::npos)
        return tflopsBf16;
    // torch computes float32 matmuls without TF32 unless allowed, so FP32 is the honest roof.
    if (d.find("float") != std::string::npos || d.find("double") != std::string::npos) return tflopsFp32;
    return tflopsBf16;
}

const std::vector<DevicePeak>& knownDevicePeaks()
{
    static const std::vector<DevicePeak> peaks = [] {
        std::vector<DevicePeak> v;
        for (const Entry& e : entries())
            v.push_back(e.peak);
        return v;
    }();
    return peaks;
}

std::optional<DevicePeak> devicePeakFor(std::string_view deviceName)
{
    const std::string n = asciiLower(deviceName);
    if (n.empty()) return std::nullopt;
    for (const Entry& e : entries()) {
        bool all = true;
        for (std::string_view m : e.match)
            all = all && n.find(m) != std::string::npos;
        if (all) return e.peak;
    }
    return std::nullopt;
}

std::string traceDeviceName(const Trace& trace)
{
    const std::string* props = trace.metadata().find("deviceProperties");
    if (!props) return {};
    const nlohmann::json j = nlohmann::json::parse(*props, nullptr, false);
    if (!j.is_array() || j.empty() || !j[0].is_object()) return {};
    const auto it = j[0].find("name");
    return it != j[0].end() && it->is_string() ? it->get<std::string>() : std::string();
}

bool applyDevicePeakOverride(std::string_view text, DevicePeak& peak, std::string& why)
{
    if (text.find('=') == std::string_view::npos) {
        if (auto p = devicePeakFor(text)) {
            peak = *p;
            return true;
        }
        why = "unknown device '" + std::string(text) + "' (give bf16=,fp32=,tbps= numbers instead)";
        return false;
    }
    while (!text.empty()) {
        const size_t comma = text.find(',');
        const std::string_view item = text.substr(0, comma);
        text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
        const size_t eq = item.find('=');
        double v = 0;
        if (eq == std::string_view::npos || !parseDouble(item.substr(eq + 1), v)) {
            why = "expected KEY=NUMBER, got '" + std::string(item) + "'";
            return false;
        }
        const std::string key = asciiLower(item.substr(0, eq));
        if (key == "bf16" || key == "fp16")
            peak.tflopsBf16 = v;
        else if (key == "fp8")
            peak.tflopsFp8 = v;
        else if (key == "tf32")
            peak.tflopsTf32 = v;
        else if (key == "fp32")
            peak.tflopsFp32 = v;
        else if (key == "tbps")
            peak.memoryTBps = v;
        else {
            why = "unknown peak '" + key + "' (bf16, fp16, fp8, tf32, fp32, tbps)";
            return false;
        }
    }
    if (peak.name.empty()) peak.name = "custom";
    return true;
}

} // namespace ks
