#include "core/live/windowfile.h"

#include "core/util/textescape.h"

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ks::live {

namespace {

std::string realPath(const std::string& p)
{
    char buf[PATH_MAX];
    return ::realpath(p.c_str(), buf) ? std::string(buf) : std::string();
}

} // namespace

int openWindowFile(const std::string& path, const std::string& dir, std::string& resolved, std::string& error)
{
    // The target chose the path: escaped before it goes into a message (a log line).
    const std::string shown = escapeText(path);
    if (dir.empty()) {
        error = "window file " + shown + " refused: this session has no window directory";
        return -1;
    }
    // A NUL would end the name the system sees early: some other file than the one named.
    if (path.find('\0') != std::string::npos) {
        error = "window file " + shown + " refused: its name holds a NUL byte";
        return -1;
    }
    const size_t slash = path.rfind('/');
    if (path.empty() || path[0] != '/' || slash == std::string::npos) {
        error = "window file " + shown + " refused: not an absolute path";
        return -1;
    }
    const std::string name = path.substr(slash + 1);
    if (name.empty() || name == "." || name == "..") {
        error = "window file " + shown + " refused: not a file name";
        return -1;
    }
    const std::string realDir = realPath(dir);
    const std::string parent = realPath(slash == 0 ? "/" : path.substr(0, slash));
    if (realDir.empty() || parent.empty() || (parent != realDir && parent.rfind(realDir + "/", 0) != 0)) {
        error =
            "window file " + shown + " refused: not inside the session's window directory " + escapeText(dir);
        return -1;
    }
    const int dirFd = ::open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dirFd < 0) {
        error = "cannot open window file " + shown + ": " + std::strerror(errno);
        return -1;
    }
    // O_NOFOLLOW: a symlink planted as the file is refused (ELOOP); O_NONBLOCK: opening a FIFO
    // without a writer returns at once instead of waiting for one.
    const int fd = ::openat(dirFd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    const int openErr = errno;
    ::close(dirFd);
    if (fd < 0) {
        error = openErr == ELOOP ? "window file " + shown + " refused: it is a symlink"
                                 : "cannot open window file " + shown + ": " + std::strerror(openErr);
        return -1;
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        error = "window file " + shown + " refused: not a regular file";
        ::close(fd);
        return -1;
    }
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    resolved = parent + "/" + name;
    return fd;
}

} // namespace ks::live
