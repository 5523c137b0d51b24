#pragma once

// Checks shared by the fuzz targets; a failed check aborts, which libFuzzer reports with the input.

#include <cstdlib>
#include <string>

namespace ks::fuzz {

// A message for a terminal: one line, no control bytes (trace text in it must have been escaped).
inline void checkMessage(const std::string& s)
{
    for (unsigned char c : s)
        if (c < 0x20 || c == 0x7f) std::abort(); // '\n' included
}

} // namespace ks::fuzz
