#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace ks {

// Standard base64 (RFC 4648 alphabet, '=' padding, no line breaks), as Python's b64encode writes it.
std::string base64Encode(std::string_view bytes);
// Inverse of base64Encode; nullopt on any character outside the alphabet or a bad length.
std::optional<std::string> base64Decode(std::string_view text);

} // namespace ks
