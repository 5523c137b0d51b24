#pragma once

#include <string>
#include <string_view>

namespace ks {

// Text from an input file made safe for a one-line message on a terminal: control bytes (and DEL)
// become \xNN, so a crafted file can neither break the line nor send escape sequences.
std::string printableText(std::string_view s);

} // namespace ks
