#pragma once

// Reading back PNG files (what core/util/png encodePng writes, e.g. inside memory-timeline HTML
// exports): only the tests need it, so it lives with them.

#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>
#include <zlib.h>

namespace ks::test {

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

namespace pngdetail {

constexpr unsigned char kPngSignature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

inline uint32_t getU32(const unsigned char* p)
{
    return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | p[3];
}

inline int paeth(int a, int b, int c)
{
    const int p = a + b - c;
    const int pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
    if (pa <= pb && pa <= pc) return a;
    return pb <= pc ? b : c;
}

} // namespace pngdetail

inline PngImage decodePng(std::string_view bytes)
{
    PngImage img;
    auto fail = [&img](std::string why) {
        img.ok = false;
        img.error = std::move(why);
        return img;
    };
    const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
    if (bytes.size() < 8 || std::memcmp(p, pngdetail::kPngSignature, 8) != 0)
        return fail("not a PNG: bad signature");
    size_t pos = 8;
    std::string idat;
    bool sawHeader = false, sawEnd = false;
    int interlace = 0;
    while (pos + 12 <= bytes.size()) {
        const uint32_t len = pngdetail::getU32(p + pos);
        if (len > bytes.size() - pos - 12) return fail("chunk runs past the end of the file");
        const unsigned char* type = p + pos + 4;
        const unsigned char* data = p + pos + 8;
        const uint32_t crc = pngdetail::getU32(data + len);
        if (crc32(0, type, len + 4) != crc)
            return fail("bad CRC in chunk " + std::string(reinterpret_cast<const char*>(type), 4));
        const std::string_view name(reinterpret_cast<const char*>(type), 4);
        if (!sawHeader && name != "IHDR") return fail("first chunk is not IHDR");
        if (name == "IHDR") {
            if (len != 13) return fail("IHDR has the wrong length");
            img.width = int(pngdetail::getU32(data));
            img.height = int(pngdetail::getU32(data + 4));
            img.bitDepth = data[8];
            img.colorType = data[9];
            interlace = data[12];
            sawHeader = true;
        } else if (name == "IDAT") {
            idat.append(reinterpret_cast<const char*>(data), len);
        } else if (name == "IEND") {
            sawEnd = true;
            break;
        }
        pos += 12 + len;
    }
    if (!sawHeader || !sawEnd) return fail("missing IHDR or IEND");
    if (img.width <= 0 || img.height <= 0 || img.width > (1 << 15) || img.height > (1 << 15))
        return fail("implausible image size");
    if (img.bitDepth != 8 || (img.colorType != 2 && img.colorType != 6) || interlace != 0)
        return fail("only 8-bit RGB/RGBA without interlacing is decoded");
    const size_t bpp = img.colorType == 2 ? 3 : 4;
    const size_t stride = size_t(img.width) * bpp;
    std::vector<uint8_t> raw(size_t(img.height) * (stride + 1));
    uLongf rawSize = uLongf(raw.size());
    const int rc =
        uncompress(raw.data(), &rawSize, reinterpret_cast<const Bytef*>(idat.data()), uLong(idat.size()));
    if (rc != Z_OK) return fail("zlib stream is corrupt or has the wrong size");
    if (rawSize != raw.size()) return fail("zlib stream holds too few scanlines");
    std::vector<uint8_t> cur(stride), prev(stride, 0);
    img.rgb.resize(size_t(img.width) * size_t(img.height) * 3);
    for (int y = 0; y < img.height; ++y) {
        const uint8_t* line = raw.data() + size_t(y) * (stride + 1);
        const int filter = line[0];
        for (size_t i = 0; i < stride; ++i) {
            const int a = i >= bpp ? cur[i - bpp] : 0;
            const int b = prev[i];
            const int c = i >= bpp ? prev[i - bpp] : 0;
            int v = line[1 + i];
            switch (filter) {
            case 0:
                break;
            case 1:
                v += a;
                break;
            case 2:
                v += b;
                break;
            case 3:
                v += (a + b) / 2;
                break;
            case 4:
                v += pngdetail::paeth(a, b, c);
                break;
            default:
                return fail("unknown scanline filter " + std::to_string(filter));
            }
            cur[i] = uint8_t(v);
        }
        for (int x = 0; x < img.width; ++x)
            std::memcpy(&img.rgb[(size_t(y) * img.width + x) * 3], &cur[x * bpp], 3);
        std::swap(cur, prev);
    }
    img.ok = true;
    return img;
}

} // namespace ks::test
