#pragma once

// The inverse of core/util/base64 base64Encode, for tests that read back what exports embed.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ks::test {

namespace base64detail {

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

constexpr std::array<int8_t, 256> makeReverse()
{
    std::array<int8_t, 256> r{};
    for (auto& v : r)
        v = -1;
    for (int i = 0; i < 64; ++i)
        r[uint8_t(kAlphabet[i])] = int8_t(i);
    return r;
}

constexpr std::array<int8_t, 256> kReverse = makeReverse();

} // namespace base64detail

// nullopt on any character outside the alphabet or a bad length.
inline std::optional<std::string> base64Decode(std::string_view text)
{
    if (text.size() % 4 != 0) return std::nullopt;
    std::string out;
    out.reserve(text.size() / 4 * 3);
    for (size_t i = 0; i < text.size(); i += 4) {
        int v[4];
        int pad = 0;
        for (int k = 0; k < 4; ++k) {
            const char c = text[i + k];
            if (c == '=' && i + 4 == text.size() && k >= 2) {
                v[k] = 0;
                ++pad;
                continue;
            }
            if (pad) return std::nullopt; // data after padding
            v[k] = base64detail::kReverse[uint8_t(c)];
            if (v[k] < 0) return std::nullopt;
        }
        const uint32_t w =
            (uint32_t(v[0]) << 18) | (uint32_t(v[1]) << 12) | (uint32_t(v[2]) << 6) | uint32_t(v[3]);
        out.push_back(char((w >> 16) & 0xff));
        if (pad < 2) out.push_back(char((w >> 8) & 0xff));
        if (pad < 1) out.push_back(char(w & 0xff));
    }
    return out;
}

} // namespace ks::test
