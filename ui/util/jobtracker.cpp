#include "ui/util/jobtracker.h"

#include <algorithm>
#ifdef __linux__
#include <cerrno>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace ks::ui {

void lowerJobThreadPriority()
{
#ifdef __linux__
    // On Linux a nice value belongs to the thread (setpriority(2), NPTL), not the process.
    thread_local bool lowered = false;
    if (lowered) return;
    lowered = true;
    const id_t tid = id_t(::syscall(SYS_gettid));
    errno = 0;
    const int nice = ::getpriority(PRIO_PROCESS, tid);
    if (errno == 0) ::setpriority(PRIO_PROCESS, tid, std::min(nice + 5, 19));
#endif
}

} // namespace ks::ui
