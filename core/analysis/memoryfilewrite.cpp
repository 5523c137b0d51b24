#include "analysis/memoryfilewrite.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

namespace ks {

namespace {

std::string baseName(const std::string& path)
{
    const size_t slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

bool gzipMember(const std::string& path, std::string_view data, std::string& out, std::string& error)
{
    z_stream zs{};
    // 15 window bits + 16 asks zlib for a gzip wrapper; level 9 as Python's gzip module uses.
    if (deflateInit2(&zs, 9, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY) != Z_OK) {
        error = "cannot start gzip compression";
        return false;
    }
    std::string name = baseName(path);
    if (name.size() > 3 && name.ends_with(".gz")) name.resize(name.size() - 3);
    gz_header header{};
    header.time = uLong(std::time(nullptr));
    header.os = 255;
    header.name = reinterpret_cast<Bytef*>(name.data());
    deflateSetHeader(&zs, &header);
    out.resize(deflateBound(&zs, uLong(data.size())) + name.size() + 32);
    zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
    zs.avail_in = uInt(data.size());
    zs.next_out = reinterpret_cast<Bytef*>(out.data());
    zs.avail_out = uInt(out.size());
    const int rc = deflate(&zs, Z_FINISH);
    out.resize(zs.total_out);
    deflateEnd(&zs);
    if (rc != Z_STREAM_END) {
        error = "gzip compression failed";
        return false;
    }
    return true;
}

bool writeAll(int fd, std::string_view data)
{
    while (!data.empty()) {
        const ssize_t n = ::write(fd, data.data(), data.size());
        if (n < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        data.remove_prefix(size_t(n));
    }
    return true;
}

} // namespace

bool writeFileAtomically(const std::string& path, std::string_view data, bool gzip, std::string& error)
{
    std::string packed;
    if (gzip) {
        if (!gzipMember(path, data, packed, error)) {
            error = path + ": " + error;
            return false;
        }
        data = packed;
    }
    std::string temp = path + ".tmp-XXXXXX";
    const int fd = ::mkstemp(temp.data());
    if (fd < 0) {
        error = path + ": cannot create a temporary file: " + std::strerror(errno);
        return false;
    }
    // mkstemp creates 0600; an export is an ordinary user file.
    const mode_t mask = ::umask(0);
    ::umask(mask);
    ::fchmod(fd, 0666 & ~mask);
    const bool ok = writeAll(fd, data) && ::fsync(fd) == 0;
    const int writeErr = errno;
    if (::close(fd) != 0 || !ok) {
        error = path + ": cannot write: " + std::strerror(ok ? errno : writeErr);
        ::unlink(temp.c_str());
        return false;
    }
    if (::rename(temp.c_str(), path.c_str()) != 0) {
        error = path + ": cannot replace the file: " + std::strerror(errno);
        ::unlink(temp.c_str());
        return false;
    }
    return true;
}

} // namespace ks
