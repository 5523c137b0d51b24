#include "core/analysis/memory/memorydevice.h"

#include <charconv>

namespace ks {

namespace {

// Indexed by the c10::DeviceType value; the order is fixed by torch's enum.
constexpr std::string_view kTypeNames[] = {
    "cpu",   "cuda", "mkldnn", "opengl", "opencl", "ideep", "hip",  "fpga", "maia", "xla",           "vulkan",
    "metal", "xpu",  "mps",    "meta",   "hpu",    "ve",    "lazy", "ipu",  "mtia", "privateuseone",
};

} // namespace

std::string_view deviceTypeName(int type)
{
    if (type < 0 || size_t(type) >= std::size(kTypeNames)) return {};
    return kTypeNames[type];
}

std::string MemoryDevice::name() const
{
    const std::string_view t = deviceTypeName(type);
    std::string out(t.empty() ? std::string_view("device") : t);
    if (t.empty()) out += std::to_string(type);
    // CPU events carry index -1 and torch prints the CPU device without an index.
    if (type != 0 && index >= 0) {
        out += ':';
        out += std::to_string(index);
    }
    return out;
}

std::optional<MemoryDevice> MemoryDevice::parse(std::string_view text)
{
    const size_t colon = text.find(':');
    const std::string_view typeText = text.substr(0, colon);
    int type = -1;
    for (size_t i = 0; i < std::size(kTypeNames); ++i)
        if (kTypeNames[i] == typeText) type = int(i);
    if (type < 0 && typeText.starts_with("device")) {
        const std::string_view num = typeText.substr(6);
        int v = 0;
        const auto [p, ec] = std::from_chars(num.data(), num.data() + num.size(), v);
        if (ec == std::errc() && p == num.data() + num.size() && !num.empty() && v >= 0 && v < 32768)
            type = v;
    }
    if (type < 0) return std::nullopt;
    if (type == 0) return colon == std::string_view::npos ? std::optional(MemoryDevice{0, -1}) : std::nullopt;
    if (colon == std::string_view::npos) return std::nullopt;
    const std::string_view idx = text.substr(colon + 1);
    int v = 0;
    const auto [p, ec] = std::from_chars(idx.data(), idx.data() + idx.size(), v);
    if (ec != std::errc() || p != idx.data() + idx.size() || idx.empty() || v < 0 || v > 32767)
        return std::nullopt;
    return MemoryDevice{int16_t(type), int16_t(v)};
}

} // namespace ks
