#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ks {

// A memory device as the allocator events name it: a c10::DeviceType number and an index (-1 when
// the device has none, as CPU memory events report).
struct MemoryDevice {
    int16_t type = 0;
    int16_t index = -1;

    // torch's spelling: "cpu", "cuda:0", "xpu:1", "hip:0"; an unknown type number reads "device12:0".
    std::string name() const;
    bool isCpu() const { return type == 0; }
    bool isCuda() const { return type == 1; }

    // Parses a name produced by name(). "cuda" without an index is not a device of any event (torch
    // compares the index too), so it does not parse.
    static std::optional<MemoryDevice> parse(std::string_view text);

    auto operator<=>(const MemoryDevice&) const = default;
};

// c10::DeviceType's lower-case name for a type number, or an empty view when unknown.
std::string_view deviceTypeName(int type);

} // namespace ks
