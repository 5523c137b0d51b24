#include "core/util/demangle.h"

#include <cstdlib>
#include <cxxabi.h>
#include <memory>

#ifdef KS_HAVE_LIBIBERTY
#include <libiberty/demangle.h>
#include <pthread.h>
#endif

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

#ifdef KS_HAVE_LIBIBERTY
// libiberty's demangler is c++filt's. It is newer than the one in Debian 12's libstdc++ (it knows
// std::bfloat16_t, "DF16b", which ROCm's aiter and ck_tile kernels use), and without its recursion
// limit it reads Composable Kernel's names of thousands of components, as `c++filt
// --no-recurse-limit` does. The limit guards the stack: without it the demangler keeps two
// components per input byte in a stack array and recurses once per nesting level, and a hostile
// name of a few kilobytes overflows a 256 KiB stack. So a name the limited reading refuses is read
// again without the limit only when it is short, and then on a thread of its own with a stack
// large enough for any name of that length (measured: 8 KiB of 'P's needs under 8 MiB).
constexpr size_t kUnlimitedBelow = 8192;
constexpr size_t kUnlimitedStack = size_t(64) << 20;

char* ibertyRead(const std::string& z, int options)
{
    return cplus_demangle_v3(z.c_str(), options);
}

struct UnlimitedJob {
    const std::string* name;
    char* result = nullptr;
};

void* unlimitedRead(void* arg)
{
    auto* job = static_cast<UnlimitedJob*>(arg);
    job->result = ibertyRead(*job->name, DMGL_PARAMS | DMGL_ANSI | DMGL_NO_RECURSE_LIMIT);
    return nullptr;
}

char* ibertyReadUnlimited(const std::string& z)
{
    UnlimitedJob job{&z};
    pthread_attr_t attr;
    if (pthread_attr_init(&attr) != 0) return nullptr;
    pthread_t thread;
    const bool started = pthread_attr_setstacksize(&attr, kUnlimitedStack) == 0 &&
                         pthread_create(&thread, &attr, &unlimitedRead, &job) == 0;
    pthread_attr_destroy(&attr);
    if (!started) return nullptr;
    pthread_join(thread, nullptr);
    return job.result;
}

bool ibertyDemangle(std::string_view name, std::string& out)
{
    const std::string z(name);
    char* d = ibertyRead(z, DMGL_PARAMS | DMGL_ANSI);
    if (!d && name.size() < kUnlimitedBelow) d = ibertyReadUnlimited(z);
    std::unique_ptr<char, decltype(&std::free)> owned(d, &std::free);
    if (!d || name == d) return false;
    out = d;
    return true;
}
#endif

bool demangleForDisplay(std::string_view name, std::string& out)
{
    if (name.size() <= 1) return false;
#ifdef KS_HAVE_LIBIBERTY
    if (name.substr(0, 2) == "_Z" && ibertyDemangle(name, out)) return true;
#endif
    return demangle(name, out) || qualifiedHead(name, out);
}

} // namespace ks
