#include "ui/util/processmemory.h"

#include <cstdio>
#if defined(__linux__)
#include <unistd.h>
#endif

namespace ks::ui {

uint64_t residentMemoryBytes()
{
#if defined(__linux__)
    FILE* f = std::fopen("/proc/self/statm", "r");
    if (!f) return 0;
    unsigned long long size = 0, resident = 0;
    const int n = std::fscanf(f, "%llu %llu", &size, &resident);
    std::fclose(f);
    return n == 2 ? uint64_t(resident) * uint64_t(sysconf(_SC_PAGESIZE)) : 0;
#else
    return 0;
#endif
}

} // namespace ks::ui
