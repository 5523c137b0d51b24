#include "util/png.h"

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

uint32_t getU32(const unsigned char* p)
{
    return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | p[3];
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

int paeth(int a, int b, int c)
{
    const int p = a + b - c;
    const int pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
    if (pa <= pb && pa <= pc) return a;
    return pb <= pc ? b : c;
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

PngImage decodePng(std::string_view bytes)
{
    PngImage img;
    auto fail = [&img](std::string why) {
        img.ok = false;
        img.error = std::move(why);
        return img;
    };
    const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
    if (bytes.size() < 8 || std::memcmp(p, kSignature, 8) != 0) return fail("not a PNG: bad signature");
    size_t pos = 8;
    std::string idat;
    bool sawHeader = false, sawEnd = false;
    int interlace = 0;
    while (pos + 12 <= bytes.size()) {
        const uint32_t len = getU32(p + pos);
        if (len > bytes.size() - pos - 12) return fail("chunk runs past the end of the file");
        const unsigned char* type = p + pos + 4;
        const unsigned char* data = p + pos + 8;
        const uint32_t crc = getU32(data + len);
        if (crc32(0, type, len + 4) != crc)
            return fail("bad CRC in chunk " + std::string(reinterpret_cast<const char*>(type), 4));
        const std::string_view name(reinterpret_cast<const char*>(type), 4);
        if (!sawHeader && name != "IHDR") return fail("first chunk is not IHDR");
        if (name == "IHDR") {
            if (len != 13) return fail("IHDR has the wrong length");
            img.width = int(getU32(data));
            img.height = int(getU32(data + 4));
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
                v += paeth(a, b, c);
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

} // namespace ks
