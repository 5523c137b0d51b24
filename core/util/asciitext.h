#pragma once

#include <string>
#include <string_view>

namespace ks {

// ASCII-only case folding for names from traces (categories, dtypes, device and kernel names):
// locale-free, so the same file classifies the same everywhere.
inline char asciiLower(char c)
{
    return c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c;
}

inline std::string asciiLower(std::string_view s)
{
    std::string out(s);
    for (char& c : out)
        c = asciiLower(c);
    return out;
}

// Whether text contains needle, ignoring ASCII case; needle must be lower case.
inline bool containsNoCase(std::string_view text, std::string_view needle)
{
    if (needle.size() > text.size()) return false;
    for (size_t i = 0; i + needle.size() <= text.size(); ++i) {
        size_t j = 0;
        while (j < needle.size() && asciiLower(text[i + j]) == needle[j])
            ++j;
        if (j == needle.size()) return true;
    }
    return false;
}

} // namespace ks
