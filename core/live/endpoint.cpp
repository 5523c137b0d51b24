#include "live/endpoint.h"

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

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

std::string privateSocketDir(std::string& error)
{
    std::string ignored;
    if (const char* xdg = std::getenv("XDG_RUNTIME_DIR"); xdg && *xdg == '/') {
        const std::string dir = std::string(xdg) + "/kinetoscope";
        if (safeDir(dir, ignored)) return dir;
    }
    const std::string dir = "/tmp/kinetoscope-" + std::to_string(::getuid());
    if (safeDir(dir, error)) return dir;
    return {};
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

int acceptPeer(int listenFd, int& peerPid, std::string& error)
{
    error.clear();
    const int fd = ::accept4(listenFd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
        if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR && errno != ECONNABORTED)
            error = sysError("accept failed", errno);
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
