#include "core/util/demangle.h"

#include <cstdlib>
#include <cxxabi.h>
#include <memory>

namespace ks {

bool demangle(std::string_view name, std::string& out)
{
    if (name.size() <= 1) return false;
    const std::string z(name);
    int status = -1;
    std::unique_ptr<char, decltype(&std::free)> d(abi::__cxa_demangle(z.c_str(), nullptr, nullptr, &status),
                                                  &std::free);
    if (status != 0 || !d || name == d.get()) return false;
    out = d.get();
    return true;
}

namespace {

// <nested-name> or <unscoped-name> right after "_Z": source names separated by "::" up to the first
// template arguments (I) or the end of the nesting (E).
bool qualifiedHead(std::string_view s, std::string& out)
{
    if (s.substr(0, 2) != "_Z") return false;
    size_t i = 2;
    if (i < s.size() && s[i] == 'L') ++i; // internal linkage
    const bool nested = i < s.size() && s[i] == 'N';
    if (nested) ++i;
    while (i < s.size() && (s[i] == 'r' || s[i] == 'V' || s[i] == 'K')) // cv-qualifiers of a member
        ++i;
    std::string head;
    int parts = 0;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
        size_t len = 0;
        while (i < s.size() && s[i] >= '0' && s[i] <= '9' && len < 100000)
            len = len * 10 + size_t(s[i++] - '0');
        if (len == 0 || i + len > s.size()) return false;
        std::string_view id = s.substr(i, len);
        i += len;
        if (parts++) head += "::";
        head += id.substr(0, 11) == "_GLOBAL__N_" ? std::string_view("(anonymous namespace)") : id;
        if (i < s.size() && s[i] == 'I') {
            head += "<…>";
            break;
        }
        if (!nested) break;
    }
    if (parts == 0) return false;
    out = std::move(head);
    return true;
}

} // namespace

bool demangleForDisplay(std::string_view name, std::string& out)
{
    return demangle(name, out) || qualifiedHead(name, out);
}

} // namespace ks
