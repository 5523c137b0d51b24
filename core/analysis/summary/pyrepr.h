#pragma once

#include <string>
#include <string_view>

namespace ks {

// Python's str() of the value json.loads() would make of `json`, for the argument values torch puts
// in tables (input shapes): lists as "[64, 32]", null/true/false as None/True/False, strings quoted
// the way Python's repr quotes them. Numbers are copied as written. Appends to out; returns false
// (out unspecified) when the text is not valid JSON.
bool appendPythonRepr(std::string_view json, std::string& out);

} // namespace ks
