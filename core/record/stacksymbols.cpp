#include "core/record/stacksymbols.h"

#include <cstdio>
#include <cstdlib>
#include <cxxabi.h>
#include <dlfcn.h>
#include <string_view>

namespace ks::record {

namespace {

// Demangled template-heavy names run to kilobytes; a frame only has to be recognisable.
constexpr size_t kMaxNameChars = 300;

std::string hex(uint64_t v)
{
    char buf[24];
    std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
    return buf;
}

std::string symbolize(uint64_t returnAddress)
{
    // The return address is the instruction after the call, which may already belong to the next
    // function when the call was the last thing a noreturn path did.
    const uint64_t pc = returnAddress - 1;
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(pc), &info) == 0 || !info.dli_fname) return hex(pc);
    std::string_view module = info.dli_fname;
    if (const size_t slash = module.rfind('/'); slash != std::string_view::npos)
        module.remove_prefix(slash + 1);
    if (module.rfind("libkinetoscope", 0) == 0) return {};
    std::string where(module.empty() ? std::string_view("?") : module);
    where += '+';
    where += hex(pc - reinterpret_cast<uint64_t>(info.dli_fbase));
    if (!info.dli_sname) return where;
    std::string name;
    int status = 0;
    if (char* d = abi::__cxa_demangle(info.dli_sname, nullptr, nullptr, &status)) {
        if (status == 0) name = d;
        std::free(d);
    }
    if (name.empty()) name = info.dli_sname;
    if (name.rfind("ks::record::", 0) == 0) return {};
    if (name.size() > kMaxNameChars) name = name.substr(0, kMaxNameChars) + "...";
    // ';' separates frames in "Call stack".
    for (char& c : name)
        if (c == ';') c = ',';
    return name + " (" + where + ")";
}

} // namespace

const std::string& StackSymbolizer::frame(uint64_t returnAddress)
{
    auto it = m_cache.find(returnAddress);
    if (it == m_cache.end()) it = m_cache.emplace(returnAddress, symbolize(returnAddress)).first;
    return it->second;
}

std::string StackSymbolizer::callStack(const uint64_t* frames, size_t n)
{
    std::string out;
    for (size_t i = 0; i < n; ++i) {
        const std::string& f = frame(frames[i]);
        if (f.empty()) continue;
        if (!out.empty()) out += ';';
        out += f;
    }
    return out;
}

} // namespace ks::record
