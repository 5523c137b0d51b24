#include "core/io/bytesource.h"

#include "core/util/textescape.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>
#include <zlib.h>

namespace ks {

namespace {

// Raw bytes from a file descriptor or from memory.
class RawInput {
public:
    virtual ~RawInput() = default;
    virtual size_t read(char* buf, size_t n) = 0;
    virtual uint64_t position() const = 0;
    virtual uint64_t size() const = 0;
};

class FdInput final : public RawInput {
public:
    FdInput(int fd, uint64_t size) : m_fd(fd), m_size(size) {}
    ~FdInput() override { ::close(m_fd); }
    size_t read(char* buf, size_t n) override
    {
        size_t done = 0;
        while (done < n) {
            const ssize_t r = ::read(m_fd, buf + done, n - done);
            if (r < 0) {
                if (errno == EINTR) continue;
                throw std::runtime_error(std::string("read error: ") + std::strerror(errno));
            }
            if (r == 0) break;
            done += size_t(r);
        }
        m_pos += done;
        return done;
    }
    uint64_t position() const override { return m_pos; }
    uint64_t size() const override { return m_size; }

private:
    int m_fd;
    uint64_t m_size;
    uint64_t m_pos = 0;
};

class MemInput final : public RawInput {
public:
    explicit MemInput(std::string_view d) : m_data(d) {}
    size_t read(char* buf, size_t n) override
    {
        const size_t take = std::min(n, m_data.size() - m_pos);
        std::memcpy(buf, m_data.data() + m_pos, take);
        m_pos += take;
        return take;
    }
    uint64_t position() const override { return m_pos; }
    uint64_t size() const override { return m_data.size(); }

private:
    std::string_view m_data;
    size_t m_pos = 0;
};

class PlainSource final : public ByteSource {
public:
    PlainSource(std::unique_ptr<RawInput> in, std::string prefix)
        : m_in(std::move(in)), m_prefix(std::move(prefix))
    {}
    size_t read(char* buf, size_t n) override
    {
        size_t done = 0;
        if (m_prefixPos < m_prefix.size()) {
            done = std::min(n, m_prefix.size() - m_prefixPos);
            std::memcpy(buf, m_prefix.data() + m_prefixPos, done);
            m_prefixPos += done;
        }
        if (done < n) done += m_in->read(buf + done, n - done);
        return done;
    }
    uint64_t inputPosition() const override { return m_in->position() - (m_prefix.size() - m_prefixPos); }
    uint64_t inputSize() const override { return m_in->size(); }

private:
    std::unique_ptr<RawInput> m_in;
    std::string m_prefix;
    size_t m_prefixPos = 0;
};

class GzipSource final : public ByteSource {
public:
    GzipSource(std::unique_ptr<RawInput> in, std::string prefix) : m_in(std::move(in)), m_inBuf(1 << 20)
    {
        std::memset(&m_z, 0, sizeof m_z);
        // 16 + MAX_WBITS: gzip wrapper only.
        if (inflateInit2(&m_z, 16 + MAX_WBITS) != Z_OK)
            throw std::runtime_error("zlib initialisation failed");
        std::memcpy(m_inBuf.data(), prefix.data(), prefix.size());
        m_z.next_in = reinterpret_cast<Bytef*>(m_inBuf.data());
        m_z.avail_in = uInt(prefix.size());
        m_consumedBase = 0;
    }
    ~GzipSource() override { inflateEnd(&m_z); }

    size_t read(char* buf, size_t n) override
    {
        size_t done = 0;
        while (done < n && !m_finished) {
            if (m_z.avail_in == 0) {
                const size_t r = m_in->read(m_inBuf.data(), m_inBuf.size());
                if (r == 0) {
                    // Input ended before the gzip trailer: a truncated file. Hand out what we have.
                    m_truncated = true;
                    m_finished = true;
                    break;
                }
                m_z.next_in = reinterpret_cast<Bytef*>(m_inBuf.data());
                m_z.avail_in = uInt(r);
            }
            m_z.next_out = reinterpret_cast<Bytef*>(buf + done);
            const size_t want = std::min<size_t>(n - done, 1u << 30);
            m_z.avail_out = uInt(want);
            const int rc = inflate(&m_z, Z_NO_FLUSH);
            done += want - m_z.avail_out;
            if (rc == Z_STREAM_END) {
                // Concatenated gzip members are legal; continue with the next one if any.
                if (m_z.avail_in == 0) {
                    const size_t r = m_in->read(m_inBuf.data(), m_inBuf.size());
                    if (r == 0) {
                        m_finished = true;
                        break;
                    }
                    m_z.next_in = reinterpret_cast<Bytef*>(m_inBuf.data());
                    m_z.avail_in = uInt(r);
                }
                if (m_z.avail_in >= 2 && m_z.next_in[0] == 0x1f && m_z.next_in[1] == 0x8b) {
                    inflateReset(&m_z);
                } else {
                    m_finished = true; // trailing garbage after the last member is ignored
                }
            } else if (rc == Z_BUF_ERROR) {
                continue; // needs more input
            } else if (rc != Z_OK) {
                throw std::runtime_error(std::string("corrupt gzip data: ") +
                                         (m_z.msg ? m_z.msg : "inflate failed") + " (compressed byte " +
                                         std::to_string(inputPosition()) + ")");
            }
        }
        return done;
    }
    uint64_t inputPosition() const override { return m_in->position() - m_z.avail_in; }
    uint64_t inputSize() const override { return m_in->size(); }
    bool compressed() const override { return true; }
    bool truncatedInput() const override { return m_truncated; }

private:
    std::unique_ptr<RawInput> m_in;
    std::vector<char> m_inBuf;
    z_stream m_z;
    uint64_t m_consumedBase;
    bool m_finished = false;
    bool m_truncated = false;
};

std::unique_ptr<ByteSource> wrap(std::unique_ptr<RawInput> in)
{
    char head[2];
    const size_t n = in->read(head, 2);
    std::string prefix(head, n);
    if (n == 2 && uint8_t(head[0]) == 0x1f && uint8_t(head[1]) == 0x8b)
        return std::make_unique<GzipSource>(std::move(in), std::move(prefix));
    return std::make_unique<PlainSource>(std::move(in), std::move(prefix));
}

} // namespace

std::unique_ptr<ByteSource> openByteSource(const std::string& path, std::string& error)
{
    // O_NONBLOCK: opening a FIFO blocks until a writer shows up, which may be never.
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        error = "cannot open " + escapeText(path) + ": " + std::strerror(errno);
        return nullptr;
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        error = "cannot stat " + escapeText(path) + ": " + std::strerror(errno);
        ::close(fd);
        return nullptr;
    }
    if (S_ISDIR(st.st_mode)) {
        error = escapeText(path) + " is a directory";
        ::close(fd);
        return nullptr;
    }
    // A trace is a file: a FIFO, socket or device (/dev/zero: endless) is refused.
    if (!S_ISREG(st.st_mode)) {
        error = path + " is not a regular file";
        ::close(fd);
        return nullptr;
    }
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
#ifdef POSIX_FADV_SEQUENTIAL
    ::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
    try {
        return wrap(std::make_unique<FdInput>(fd, uint64_t(st.st_size)));
    } catch (const std::exception& e) {
        error = e.what();
        return nullptr;
    }
}

std::unique_ptr<ByteSource> memoryByteSource(std::string_view data)
{
    return wrap(std::make_unique<MemInput>(data));
}

} // namespace ks
