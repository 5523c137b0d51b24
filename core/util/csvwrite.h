#pragma once

#include "core/util/jsonwrite.h"

#include <cmath>
#include <string>
#include <string_view>

namespace ks {

// One CSV field as pandas' to_csv writes it: quoted only when it holds a comma, quote or line break,
// with quotes doubled.
inline void appendCsvField(std::string& out, std::string_view s)
{
    if (s.find_first_of(",\"\n\r") == std::string_view::npos) {
        out += s;
        return;
    }
    out += '"';
    for (char c : s) {
        if (c == '"') out += '"';
        out += c;
    }
    out += '"';
}

// A number as pandas' to_csv writes a float: Python's repr, NaN and infinities as an empty field.
inline std::string csvNumber(double d)
{
    if (!std::isfinite(d)) return {};
    std::string s;
    appendJsonDouble(s, d);
    return s;
}

} // namespace ks
