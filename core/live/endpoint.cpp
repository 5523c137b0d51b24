#include "core/live/endpoint.h"

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <filesystem>
#include <mutex>
#include <string_view>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include <vector>

namespace ks::live {

namespace {

std::string sysError(const std::string& what, int err)
{
    return what + ": " + std::strerror(err);
}

bool safeDir(const std::string& dir, std::string& error)
{
    struct stat st;
    if (::lstat(dir.c_str(), &st) != 0) {
        if (errno != ENOENT) {
            error = sysError("cannot inspect " + dir, errno);
            return false;
        }
        if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
            error = sysError("cannot create " + dir, errno);
            return false;
        }
        if (::lstat(dir.c_str(), &st) != 0) {
            error = sysError("cannot inspect " + dir, errno);
            return false;
        }
    }
    if (!S_ISDIR(st.st_mode)) {
        error = dir + " is not a directory (a symlink or file there is refused)";
        return false;
    }
    if (st.st_uid != ::getuid()) {
        error = dir + " belongs to another user";
        return false;
    }
    if ((st.st_mode & 0077) != 0 && ::chmod(dir.c_str(), 0700) != 0) {
        error = sysError(dir + " is accessible to other users and cannot be restricted", errno);
        return false;
    }
    return true;
}

bool fillAddress(const std::string& path, sockaddr_un& addr, std::string& error)
{
    std::memset(&addr, 0, sizeof addr);
    addr.sun_family = AF_UNIX;
    if (path.empty() || path.size() >= sizeof addr.sun_path) {
        error = "socket path is empty or longer than " + std::to_string(sizeof addr.sun_path - 1) +
                " bytes: " + path;
        return false;
    }
    std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
    return true;
}

} // namespace

std::string privateSocketDir(std::string& error, std::string* warning)
{
    std::string ignored;
    if (const char* xdg = std::getenv("XDG_RUNTIME_DIR"); xdg && *xdg == '/') {
        const std::string dir = std::string(xdg) + "/kinetoscope";
        if (safeDir(dir, ignored)) return dir;
    }
    const char* tmp = std::getenv("TMPDIR");
    const std::string base = tmp && *tmp == '/' ? std::string(tmp) : std::string("/tmp");
    const std::string dir = base + "/kinetoscope-" + std::to_string(::getuid());
    std::string why;
    if (safeDir(dir, why)) return dir;

    // Someone else's directory (or a symlink) sits where ours goes: sessions must not be blocked by
    // it, nor use it. A fresh one made by mkdtemp is ours and 0700 by construction.
    static std::mutex mutex;
    static std::string fallback, fallbackFor;
    std::lock_guard lock(mutex);
    std::string again;
    if (fallbackFor == dir && safeDir(fallback, again)) return fallback;
    std::string tmpl = dir + "-XXXXXX";
    if (!::mkdtemp(tmpl.data())) {
        error = why + "; and no private directory could be made instead: " + std::strerror(errno);
        return {};
    }
    fallback = tmpl;
    fallbackFor = dir;
    if (warning) *warning = why + ": using " + fallback + " instead";
    return fallback;
}

namespace {

bool processGone(const std::string& digits)
{
    if (digits.empty() || digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos)
        return false;
    const long pid = std::atol(digits.c_str());
    return pid > 0 && ::kill(pid_t(pid), 0) != 0 && errno == ESRCH;
}

} // namespace

bool removeTree(const std::string& dir)
{
    if (dir.empty()) return true;
    // Whatever the target left in it, subdirectories included; symbolic links are removed, not
    // followed.
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
    return !ec;
}

int removeStaleSessionFiles(const std::string& dir)
{
    DIR* d = ::opendir(dir.c_str());
    if (!d) return 0;
    std::vector<std::string> names;
    while (dirent* e = ::readdir(d))
        names.emplace_back(e->d_name);
    ::closedir(d);
    int removed = 0;
    for (const std::string& name : names) {
        const std::string path = dir + "/" + name;
        struct stat st;
        if (::lstat(path.c_str(), &st) != 0 || st.st_uid != ::getuid()) continue;
        constexpr std::string_view kSock = ".sock", kWindows = "windows-";
        if (S_ISSOCK(st.st_mode) && name.size() > kSock.size() &&
            name.compare(name.size() - kSock.size(), kSock.size(), kSock) == 0) {
            // <tag>-<pid>-<n>.sock
            const std::string stem = name.substr(0, name.size() - kSock.size());
            const size_t n = stem.rfind('-');
            const size_t p = n == std::string::npos || n == 0 ? std::string::npos : stem.rfind('-', n - 1);
            if (p != std::string::npos && processGone(stem.substr(p + 1, n - p - 1)) &&
                ::unlink(path.c_str()) == 0)
                ++removed;
        } else if (S_ISDIR(st.st_mode) && name.rfind(kWindows, 0) == 0) {
            // windows-<pid>-XXXXXX
            const size_t end = name.find('-', kWindows.size());
            if (end != std::string::npos &&
                processGone(name.substr(kWindows.size(), end - kWindows.size())) && removeTree(path)) {
                ++removed;
            }
        }
    }
    return removed;
}

std::string newEndpointPath(const std::string& tag, std::string& error)
{
    static std::atomic<unsigned> counter{0};
    const std::string dir = privateSocketDir(error);
    if (dir.empty()) return {};
    return dir + "/" + tag + "-" + std::to_string(::getpid()) + "-" + std::to_string(counter++) + ".sock";
}

int listenUnix(const std::string& path, std::string& error)
{
    sockaddr_un addr;
    if (!fillAddress(path, addr, error)) return -1;
    const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        error = sysError("cannot create a socket", errno);
        return -1;
    }
    struct stat st;
    if (::lstat(path.c_str(), &st) == 0 && S_ISSOCK(st.st_mode)) ::unlink(path.c_str());
    if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
        error = sysError("cannot bind " + path, errno);
        ::close(fd);
        return -1;
    }
    // The directory already keeps others out; the socket mode is a second fence.
    ::chmod(path.c_str(), 0600);
    if (::listen(fd, 64) != 0) {
        error = sysError("cannot listen on " + path, errno);
        ::close(fd);
        ::unlink(path.c_str());
        return -1;
    }
    return fd;
}

int acceptPeer(int listenFd, int& peerPid, std::string& error, bool* resourceError)
{
    error.clear();
    if (resourceError) *resourceError = false;
    const int fd = ::accept4(listenFd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
        const int err = errno;
        if (err != EAGAIN && err != EWOULDBLOCK && err != EINTR && err != ECONNABORTED)
            error = sysError("accept failed", err);
        // Any other failure of accept() itself (EMFILE, ENFILE, ENOBUFS, ENOMEM...) leaves the
        // connection queued.
        if (resourceError) *resourceError = !error.empty();
        return -1;
    }
    ucred cred{};
    socklen_t len = sizeof cred;
    if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) {
        error = sysError("cannot read the peer's credentials", errno);
        ::close(fd);
        return -1;
    }
    if (cred.uid != ::getuid()) {
        error = "refused a connection from pid " + std::to_string(cred.pid) + " of another user (uid " +
                std::to_string(cred.uid) + ")";
        ::close(fd);
        return -1;
    }
    peerPid = int(cred.pid);
    return fd;
}

int connectUnix(const std::string& path, std::string& error)
{
    sockaddr_un addr;
    if (!fillAddress(path, addr, error)) return -1;
    const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        error = sysError("cannot create a socket", errno);
        return -1;
    }
    if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
        error = sysError("cannot connect to " + path, errno);
        ::close(fd);
        return -1;
    }
    return fd;
}

std::string endpointPath(const std::string& endpoint)
{
    if (endpoint.rfind("unix:", 0) == 0) return endpoint.substr(5);
    if (!endpoint.empty() && endpoint[0] == '/') return endpoint;
    return {};
}

} // namespace ks::live
