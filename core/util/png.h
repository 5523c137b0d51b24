#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ks {

// Encodes 8-bit RGB pixels (row-major, 3 bytes per pixel, no padding) as a PNG file in memory.
// Empty on a size mismatch or a compression failure.
std::string encodePng(int width, int height, const std::vector<uint8_t>& rgb);

} // namespace ks
