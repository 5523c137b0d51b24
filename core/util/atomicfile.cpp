#include "core/util/atomicfile.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <dirent.h>
#include <fcntl.h>
#include <random>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

namespace ks {

namespace {

std::string directoryOf(const std::string& path)
{
    const size_t slash = path.find_last_of('/');
    if (slash == std::string::npos) return ".";
    if (slash == 0) return "/";
    return path.substr(0, slash);
}

std::string baseNameOf(const std::string& path)
{
    const size_t slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

bool endsWith(std::string_view s, std::string_view suffix)
{
    return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

constexpr std::string_view kTempMarker = ".ks-";
constexpr std::string_view kTempSuffix = ".tmp";
constexpr size_t kRandomChars = 8;

std::string randomSuffix()
{
    // No thread_local generator: this code also runs inside libkinetoscope.so, which may be
    // dlopen'ed (Python ctypes, CUDA injection) where thread-local storage must stay tiny.
    uint64_t bits = 0;
    if (::getrandom(&bits, sizeof bits, GRND_NONBLOCK) != ssize_t(sizeof bits)) {
        static std::atomic<uint64_t> counter{0};
        bits = uint64_t(std::chrono::steady_clock::now().time_since_epoch().count()) ^
               (uint64_t(getpid()) << 32) ^ (counter.fetch_add(1) * 0x9e3779b97f4a7c15ULL);
    }
    static const char* alphabet = "abcdefghijklmnopqrstuvwxyz0123456789";
    std::string s(kRandomChars, 'x');
    for (char& c : s) {
        c = alphabet[bits % 36];
        bits /= 36;
    }
    return s;
}

// The pid in a temporary file name of ours (".<name>.ks-<pid>-<random>.tmp"), or 0.
pid_t tempOwner(std::string_view name)
{
    if (name.size() < 2 || name[0] != '.' || !endsWith(name, kTempSuffix)) return 0;
    name.remove_suffix(kTempSuffix.size());
    if (name.size() < kRandomChars + 1 || name[name.size() - kRandomChars - 1] != '-') return 0;
    for (char c : name.substr(name.size() - kRandomChars))
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))) return 0;
    name.remove_suffix(kRandomChars + 1);
    const size_t marker = name.rfind(kTempMarker);
    if (marker == std::string_view::npos || marker == 0) return 0;
    const std::string_view digits = name.substr(marker + kTempMarker.size());
    if (digits.empty() || digits.size() > 9) return 0;
    pid_t pid = 0;
    for (char c : digits) {
        if (c < '0' || c > '9') return 0;
        pid = pid * 10 + (c - '0');
    }
    return pid;
}

// The temporary files open now, for the signal handler to remove: fixed slots of plain bytes, as a
// handler may use nothing else. A slot is written while it is Claimed and read only when Ready.
constexpr size_t kTempSlots = 64;
enum SlotState : int { Free, Claimed, Ready };
struct TempSlot {
    std::atomic<int> state{Free};
    char path[4096];
};
TempSlot g_temps[kTempSlots];

int registerTemp(const std::string& path)
{
    if (path.size() >= sizeof TempSlot::path) return -1;
    for (size_t i = 0; i < kTempSlots; ++i) {
        int expected = Free;
        if (g_temps[i].state.compare_exchange_strong(expected, Claimed)) {
            std::memcpy(g_temps[i].path, path.c_str(), path.size() + 1);
            g_temps[i].state.store(Ready, std::memory_order_release);
            return int(i);
        }
    }
    return -1; // more than 64 at once: those are left to the next run's cleanup
}

void unregisterTemp(int slot)
{
    if (slot >= 0) g_temps[slot].state.store(Free, std::memory_order_release);
}

void removeTempsAndDie(int sig)
{
    for (TempSlot& t : g_temps)
        if (t.state.load(std::memory_order_acquire) == Ready) ::unlink(t.path);
    // Then the signal's own action, so the parent sees the process killed by it.
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    ::sigaction(sig, &dfl, nullptr);
    ::raise(sig);
}

bool processGone(pid_t pid)
{
    // EPERM means it exists under another user: only ESRCH says it is gone.
    return pid > 0 && ::kill(pid, 0) != 0 && errno == ESRCH;
}

} // namespace

void AtomicFile::removeTempsOnSignals()
{
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
        struct sigaction old {};
        if (::sigaction(sig, nullptr, &old) != 0 || old.sa_handler != SIG_DFL) continue; // ignored or taken
        struct sigaction sa {};
        sa.sa_handler = removeTempsAndDie;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_RESETHAND;
        ::sigaction(sig, &sa, nullptr);
    }
}

size_t AtomicFile::removeStaleTemps(const std::string& dir)
{
    DIR* d = ::opendir(dir.c_str());
    if (!d) return 0;
    size_t removed = 0;
    const time_t now = std::time(nullptr);
    const uid_t uid = ::geteuid();
    while (const dirent* e = ::readdir(d)) {
        const std::string_view name = e->d_name;
        const pid_t pid = tempOwner(name);
        if (pid == 0 || pid == ::getpid()) continue;
        struct stat st {};
        if (::fstatat(::dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
        if (!S_ISREG(st.st_mode) || st.st_uid != uid || now - st.st_mtime < kStaleTempSeconds) continue;
        // Checked last: a pid can be reused, but then the file is merely kept.
        if (!processGone(pid)) continue;
        if (::unlinkat(::dirfd(d), e->d_name, 0) == 0) ++removed;
    }
    ::closedir(d);
    return removed;
}

struct AtomicFile::Gzip {
    z_stream z{};
    bool initialized = false;
    std::string out;
    // zlib keeps pointers to the header until it has written it.
    gz_header header{};
    std::string name;

    ~Gzip()
    {
        if (initialized) deflateEnd(&z);
    }
};

AtomicFile::AtomicFile(std::string path) : AtomicFile(std::move(path), Options()) {}

AtomicFile::AtomicFile(std::string path, const Options& options) : m_path(std::move(path)), m_options(options)
{
    if (m_options.bufferSize < 4096) m_options.bufferSize = 4096;
    if (m_options.gzipLevel < 1 || m_options.gzipLevel > 9) m_options.gzipLevel = 6;
}

AtomicFile::~AtomicFile()
{
    discard();
}

bool AtomicFile::isOpen() const
{
    return m_fd >= 0;
}

bool AtomicFile::compressed() const
{
    switch (m_options.compression) {
    case Compression::None:
        return false;
    case Compression::Gzip:
        return true;
    case Compression::BySuffix:
        return endsWith(m_path, ".gz");
    }
    return false;
}

bool AtomicFile::fail(const std::string& what, int err)
{
    if (!m_failed) {
        m_error = what;
        if (err) m_error += std::string(": ") + std::strerror(err);
    }
    m_failed = true;
    removeTemp();
    return false;
}

void AtomicFile::removeTemp()
{
    if (m_fd >= 0) {
        ::close(m_fd);
        m_fd = -1;
    }
    if (!m_tempPath.empty()) {
        ::unlink(m_tempPath.c_str());
        m_tempPath.clear();
    }
    unregisterTemp(m_signalSlot);
    m_signalSlot = -1;
}

bool AtomicFile::open()
{
    if (m_fd >= 0 || m_failed) return !m_failed;
    if (m_path.empty()) return fail("cannot write: no file name given", 0);
    // Writing "through" a symlink replaces the file it points to, not the link; a dangling link is
    // replaced by the new file.
    struct stat lst {};
    if (::lstat(m_path.c_str(), &lst) == 0 && S_ISLNK(lst.st_mode)) {
        if (char* real = ::realpath(m_path.c_str(), nullptr)) {
            m_path = real;
            std::free(real);
        }
    }
    const std::string dir = directoryOf(m_path);
    const std::string base = baseNameOf(m_path);
    if (base.empty()) return fail("cannot write " + m_path + ": the name is a directory", 0);
    struct stat st {};
    const bool exists = ::stat(m_path.c_str(), &st) == 0;
    if (exists && S_ISDIR(st.st_mode)) return fail("cannot write " + m_path + ": it is a directory", 0);
    // O_EXCL with a fresh random name instead of mkstemp: the file gets 0666 minus the umask, the
    // mode an ordinary new file would have, without touching the process-wide umask.
    int err = 0;
    const std::string prefix =
        dir + "/." + base + std::string(kTempMarker) + std::to_string(::getpid()) + "-";
    for (int attempt = 0; attempt < 100; ++attempt) {
        std::string temp = prefix + randomSuffix() + std::string(kTempSuffix);
        const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0) {
            m_fd = fd;
            m_tempPath = std::move(temp);
            m_signalSlot = registerTemp(m_tempPath);
            break;
        }
        err = errno;
        if (err != EEXIST) break;
    }
    if (m_fd < 0) return fail("cannot create a temporary file in " + dir + " to write " + m_path, err);
    removeStaleTemps(dir);
    // Replacing a file keeps its permissions (a private 0600 trace stays private).
    if (exists && S_ISREG(st.st_mode) && ::fchmod(m_fd, st.st_mode & 07777) != 0)
        return fail("cannot set the permissions of " + m_tempPath, errno);
    if (compressed()) {
        m_gzip = std::make_unique<Gzip>();
        // windowBits 15 + 16 asks zlib for a gzip wrapper (header and CRC-32 trailer).
        if (deflateInit2(&m_gzip->z, m_options.gzipLevel, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
            return fail("cannot start gzip compression for " + m_path, 0);
        m_gzip->initialized = true;
        if (m_options.pythonGzipHeader) {
            const size_t slash = m_path.find_last_of('/');
            m_gzip->name = slash == std::string::npos ? m_path : m_path.substr(slash + 1);
            if (m_gzip->name.size() > 3 && m_gzip->name.ends_with(".gz"))
                m_gzip->name.resize(m_gzip->name.size() - 3);
            m_gzip->header.time = uLong(std::time(nullptr));
            m_gzip->header.os = 255;
            m_gzip->header.name = reinterpret_cast<Bytef*>(m_gzip->name.data());
            if (deflateSetHeader(&m_gzip->z, &m_gzip->header) != Z_OK)
                return fail("cannot set the gzip header for " + m_path, 0);
        }
        m_gzip->out.resize(m_options.bufferSize);
    }
    m_buffer.reserve(m_options.bufferSize);
    return true;
}

bool AtomicFile::writeRaw(const char* data, size_t n)
{
    while (n > 0) {
        const ssize_t w = ::write(m_fd, data, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            return fail("cannot write " + m_path, errno);
        }
        data += w;
        n -= size_t(w);
        m_bytesOut += uint64_t(w);
    }
    return true;
}

bool AtomicFile::deflateBuffer(bool finish)
{
    z_stream& z = m_gzip->z;
    z.next_in = reinterpret_cast<Bytef*>(m_buffer.data());
    // The buffer never exceeds bufferSize, far below uInt's range.
    z.avail_in = uInt(m_buffer.size());
    const int flush = finish ? Z_FINISH : Z_NO_FLUSH;
    while (true) {
        z.next_out = reinterpret_cast<Bytef*>(m_gzip->out.data());
        z.avail_out = uInt(m_gzip->out.size());
        const int rc = deflate(&z, flush);
        if (rc == Z_STREAM_ERROR) return fail("gzip compression failed for " + m_path, 0);
        const size_t produced = m_gzip->out.size() - z.avail_out;
        if (produced && !writeRaw(m_gzip->out.data(), produced)) return false;
        if (finish ? rc == Z_STREAM_END : (z.avail_in == 0 && z.avail_out != 0)) break;
    }
    m_buffer.clear();
    return true;
}

bool AtomicFile::flushBuffer()
{
    if (m_gzip) return deflateBuffer(false);
    if (!m_buffer.empty() && !writeRaw(m_buffer.data(), m_buffer.size())) return false;
    m_buffer.clear();
    return true;
}

bool AtomicFile::write(std::string_view data)
{
    if (m_failed) return false;
    if (m_fd < 0) return fail("cannot write " + m_path + ": the file is not open", 0);
    m_bytesIn += data.size();
    while (!data.empty()) {
        const size_t room = m_options.bufferSize - m_buffer.size();
        const size_t take = std::min(room, data.size());
        m_buffer.append(data.data(), take);
        data.remove_prefix(take);
        if (m_buffer.size() >= m_options.bufferSize && !flushBuffer()) return false;
    }
    return true;
}

bool AtomicFile::commit()
{
    if (m_failed) return false;
    if (m_fd < 0) return fail("cannot write " + m_path + ": the file is not open", 0);
    if (m_gzip) {
        if (!deflateBuffer(true)) return false;
    } else if (!flushBuffer()) {
        return false;
    }
    if (::fsync(m_fd) != 0) return fail("cannot flush " + m_path + " to disk", errno);
    const int fd = m_fd;
    m_fd = -1;
    if (::close(fd) != 0) return fail("cannot write " + m_path, errno);
    if (::rename(m_tempPath.c_str(), m_path.c_str()) != 0) return fail("cannot replace " + m_path, errno);
    m_tempPath.clear();
    // After the rename: a signal in between unlinks a name that no longer exists.
    unregisterTemp(m_signalSlot);
    m_signalSlot = -1;
    // The rename itself is durable only once the directory entry is on disk. Some file systems
    // refuse fsync on directories; the data is safe either way, so this is best effort.
    const int dfd = ::open(directoryOf(m_path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        ::fsync(dfd);
        ::close(dfd);
    }
    m_gzip.reset();
    return true;
}

void AtomicFile::discard()
{
    removeTemp();
    m_gzip.reset();
    m_buffer.clear();
}

} // namespace ks
