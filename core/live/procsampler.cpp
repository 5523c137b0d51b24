#include "core/live/procsampler.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace ks::live {

namespace {

bool readSmall(const char* path, char* buf, size_t size)
{
    const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    const ssize_t n = ::read(fd, buf, size - 1);
    ::close(fd);
    if (n <= 0) return false;
    buf[n] = 0;
    return true;
}

} // namespace

bool ProcSampler::sample(int pid, int64_t monoNs, Sample& out)
{
    char path[64];
    char buf[1024];
    std::snprintf(path, sizeof path, "/proc/%d/stat", pid);
    if (!readSmall(path, buf, sizeof buf)) return false;
    // The command name may hold spaces and parentheses: fields start after the last ')'.
    const char* p = std::strrchr(buf, ')');
    if (!p) return false;
    p += 2;
    // p is at field 3 (state); utime and stime are fields 14 and 15.
    uint64_t utime = 0, stime = 0;
    for (int field = 3; field <= 15 && *p; ++field) {
        if (field == 14) utime = std::strtoull(p, nullptr, 10);
        if (field == 15) stime = std::strtoull(p, nullptr, 10);
        if (field == 3 && *p == 'Z') return false; // a zombie has left already
        while (*p && *p != ' ')
            ++p;
        while (*p == ' ')
            ++p;
    }
    std::snprintf(path, sizeof path, "/proc/%d/statm", pid);
    char statm[256];
    if (!readSmall(path, statm, sizeof statm)) return false;
    unsigned long long size = 0, resident = 0;
    if (std::sscanf(statm, "%llu %llu", &size, &resident) != 2) return false;
    out.rssMiB = double(resident) * double(::sysconf(_SC_PAGESIZE)) / (1024.0 * 1024.0);

    const uint64_t ticks = utime + stime;
    auto it = m_prev.find(pid);
    out.hasCpu = it != m_prev.end() && monoNs > it->second.monoNs;
    if (out.hasCpu) {
        const double seconds = double(monoNs - it->second.monoNs) / 1e9;
        const double cpuSeconds = double(ticks - it->second.cpuTicks) / double(::sysconf(_SC_CLK_TCK));
        out.cpuPercent = seconds > 0 ? 100.0 * cpuSeconds / seconds : 0;
    }
    m_prev[pid] = Prev{ticks, monoNs};
    return true;
}

} // namespace ks::live
