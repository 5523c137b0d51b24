#include "core/util/png.h"

#include <cstdlib>
#include <cstring>
#include <zlib.h>

namespace ks {

namespace {

constexpr unsigned char kSignature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

void putU32(std::string& out, uint32_t v)
{
    out.push_back(char(v >> 24));
    out.push_back(char(v >> 16));
    out.push_back(char(v >> 8));
    out.push_back(char(v));
}

void putChunk(std::string& out, const char type[4], std::string_view data)
{
    putU32(out, uint32_t(data.size()));
    const size_t crcStart = out.size();
    out.append(type, 4);
    out.append(data);
    const uLong crc = crc32(0, reinterpret_cast<const Bytef*>(out.data() + crcStart), uInt(4 + data.size()));
    putU32(out, uint32_t(crc));
}

} // namespace

std::string encodePng(int width, int height, const std::vector<uint8_t>& rgb)
{
    if (width <= 0 || height <= 0 || rgb.size() != size_t(width) * size_t(height) * 3) return {};
    // Each scanline is stored with the "Sub" filter: charts are mostly flat runs, which it turns into
    // zeros that deflate packs well.
    const size_t stride = size_t(width) * 3;
    std::string raw;
    raw.resize(size_t(height) * (stride + 1));
    for (int y = 0; y < height; ++y) {
        unsigned char* dst = reinterpret_cast<unsigned char*>(raw.data()) + size_t(y) * (stride + 1);
        const uint8_t* src = rgb.data() + size_t(y) * stride;
        dst[0] = 1;
        for (size_t i = 0; i < stride; ++i)
            dst[1 + i] = uint8_t(src[i] - (i >= 3 ? src[i - 3] : 0));
    }
    uLongf packedSize = compressBound(uLong(raw.size()));
    std::string packed(packedSize, '\0');
    if (compress2(reinterpret_cast<Bytef*>(packed.data()), &packedSize,
                  reinterpret_cast<const Bytef*>(raw.data()), uLong(raw.size()), 6) != Z_OK)
        return {};
    packed.resize(packedSize);

    std::string out(reinterpret_cast<const char*>(kSignature), 8);
    std::string ihdr;
    putU32(ihdr, uint32_t(width));
    putU32(ihdr, uint32_t(height));
    ihdr.push_back(char(8)); // bit depth
    ihdr.push_back(char(2)); // colour type: RGB
    ihdr.push_back(char(0)); // deflate
    ihdr.push_back(char(0)); // adaptive filtering
    ihdr.push_back(char(0)); // no interlace
    putChunk(out, "IHDR", ihdr);
    putChunk(out, "IDAT", packed);
    putChunk(out, "IEND", {});
    return out;
}

} // namespace ks
