#pragma once

#include <string>
#include <string_view>

namespace ks {

// c10::demangle: the demangled form of an Itanium-ABI mangled name (kernel names such as AMD CK's
// "_ZN2ck27kernel_gemm_xdl_cshuffle_v3..."), written to out; false, out untouched, when the
// demangler rejects the text or gives it back unchanged. Like torch, one-character names are left
// alone (the demangler reads them as builtin type codes).
bool demangle(std::string_view name, std::string& out);

// For display: c++filt's reading of an Itanium-ABI name (libiberty's demangler, where the build has
// it), else demangle(), and where both give up the qualified name of the
// function with its template arguments shown as "<…>", e.g.
// "ck::tensor_operation::device::(anonymous namespace)::kernel_grouped_conv_fwd_xdl_cshuffle_v3<…>".
// False, out untouched, when neither gives anything.
bool demangleForDisplay(std::string_view name, std::string& out);

} // namespace ks
