#pragma once

#include <ctime>

namespace ks::bench {

// The calling thread's own CPU time in ms: on a shared machine the wall time of a GUI-thread
// stall or a redraw also counts the time other threads and processes held the core.
inline double threadCpuMs()
{
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6;
}

} // namespace ks::bench
