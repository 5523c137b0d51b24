#pragma once

#include <string>
#include <string_view>

namespace ks {

// Standard base64 (RFC 4648 alphabet, '=' padding, no line breaks), as Python's b64encode writes it.
std::string base64Encode(std::string_view bytes);

} // namespace ks
