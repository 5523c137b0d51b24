#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ks {

// Encodes 8-bit RGB pixels (row-major, 3 bytes per pixel, no padding) as a PNG file in memory.
// Empty on a size mismatch or a compression failure.
std::string encodePng(int width, int height, const std::vector<uint8_t>& rgb);

struct PngImage {
    bool ok = false;
    std::string error; // what was wrong, when !ok
    int width = 0;
    int height = 0;
    int bitDepth = 0;
    int colorType = 0;
    std::vector<uint8_t> rgb; // decoded pixels, for 8-bit RGB and RGBA images (alpha dropped)
};

// Checks a PNG file thoroughly (signature, chunk CRCs, IHDR, zlib stream, scanline filters) and
// decodes 8-bit RGB/RGBA images without interlacing: enough to read back what encodePng writes.
PngImage decodePng(std::string_view bytes);

} // namespace ks
