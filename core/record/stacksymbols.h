#pragma once

// Turns recorded return addresses into "Call stack" text when a window is built (never on the
// recording hot path): dladdr for the module and the nearest exported symbol, __cxa_demangle for
// C++ names, one lookup per distinct address.

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>

namespace ks::record {

class StackSymbolizer {
public:
    // A frame given by its return address: "function (libname.so+0x1a2b)", or "libname.so+0x1a2b"
    // where the module exports no symbol for it (static functions; programs linked without
    // -rdynamic), or "0x7f..." outside any module. The offset is that of the call instruction, so
    // `addr2line -e libname.so 0x1a2b` names the calling line. Empty for Kinetoscope's own
    // recording frames: ks::record:: functions and anything inside libkinetoscope*.so.
    const std::string& frame(uint64_t returnAddress);

    // frames innermost first, as recorded; own frames dropped, the rest joined by ';'.
    std::string callStack(const uint64_t* frames, size_t n);

private:
    std::unordered_map<uint64_t, std::string> m_cache;
};

} // namespace ks::record
