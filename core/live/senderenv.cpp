#include "core/live/senderenv.h"

#include "core/live/streamsender.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sys/syscall.h>
#include <unistd.h>

namespace ks::live {

std::string selfComm()
{
    std::ifstream f("/proc/self/comm");
    std::string s;
    std::getline(f, s);
    return s;
}

std::string hostName()
{
    char buf[256] = {};
    if (::gethostname(buf, sizeof buf - 1) != 0) return {};
    return buf;
}

uint64_t currentTid()
{
    return uint64_t(::syscall(SYS_gettid));
}

size_t memoryCapFromEnvironment()
{
    const char* v = std::getenv("KINETOSCOPE_LIVE_MAX_MB");
    if (!v || !*v) return SenderOptions::kDefaultMemoryCap;
    char* end = nullptr;
    const unsigned long long mb = std::strtoull(v, &end, 10);
    // Below 4 MiB the shares would be smaller than a chunk; an unparsable value keeps the default.
    if (*end != '\0' || mb == 0) {
        std::fprintf(stderr, "kinetoscope: KINETOSCOPE_LIVE_MAX_MB=%s is not a number of MiB; using %zu\n", v,
                     SenderOptions::kDefaultMemoryCap >> 20);
        return SenderOptions::kDefaultMemoryCap;
    }
    return size_t(std::clamp<unsigned long long>(mb, 4, 1 << 20)) << 20;
}

} // namespace ks::live
