#pragma once

// The byte layer of the live protocol (docs/live-protocol.md): frame header, little-endian
// builders and bounds-checked readers. Typed frames are in live/frames.h.

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace ks::live {

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the wire format is little-endian");

constexpr uint32_t kMagic = 0x564c534bu; // "KSLV" as bytes on the wire
constexpr uint16_t kProtocolMajor = 1;
// 1.1: Events may carry OpInfo records (operator ids, type 9) after a Begin.
constexpr uint16_t kProtocolMinor = 2;
constexpr size_t kHeaderBytes = 8;
// Larger frames are treated as garbage: no sender ever builds one (events are split far below).
constexpr uint32_t kMaxFrameBytes = 16u << 20;

enum class FrameType : uint16_t {
    Hello = 1,
    Strings = 2,
    Thread = 3,
    Events = 4,
    Payload = 5,
    Step = 6,
    Log = 7,
    Window = 8,
    Device = 9,
    Stats = 10,
    Goodbye = 11,
    Info = 12,
    Gap = 13,
};
const char* frameTypeName(uint16_t type);

// Appends frames to a byte string: begin(type), put*(), end() patches the length in.
class FrameBuilder {
public:
    explicit FrameBuilder(std::string& out) : m_out(out) {}

    void begin(FrameType type)
    {
        m_start = m_out.size();
        const uint32_t len = 0;
        const uint16_t t = uint16_t(type), flags = 0;
        raw(&len, 4);
        raw(&t, 2);
        raw(&flags, 2);
    }
    void end()
    {
        const uint32_t len = uint32_t(m_out.size() - m_start - kHeaderBytes);
        std::memcpy(&m_out[m_start], &len, 4);
    }
    size_t payloadSize() const { return m_out.size() - m_start - kHeaderBytes; }

    void u8(uint8_t v) { raw(&v, 1); }
    void u16(uint16_t v) { raw(&v, 2); }
    void u32(uint32_t v) { raw(&v, 4); }
    void u64(uint64_t v) { raw(&v, 8); }
    void i32(int32_t v) { raw(&v, 4); }
    void i64(int64_t v) { raw(&v, 8); }
    void f64(double v) { raw(&v, 8); }
    // Length-prefixed (u32) bytes.
    void str(std::string_view s)
    {
        u32(uint32_t(s.size()));
        raw(s.data(), s.size());
    }
    void raw(const void* p, size_t n) { m_out.append(static_cast<const char*>(p), n); }

private:
    std::string& m_out;
    size_t m_start = 0;
};

// Reads a frame's payload. Any read past the end sets failed() and yields zeros, so decoders check
// once at the end instead of after every field.
class PayloadReader {
public:
    explicit PayloadReader(std::string_view p) : m_p(p) {}

    bool failed() const { return m_failed; }
    bool atEnd() const { return m_pos == m_p.size(); }
    size_t remaining() const { return m_p.size() - m_pos; }

    uint8_t u8() { return get<uint8_t>(); }
    uint16_t u16() { return get<uint16_t>(); }
    uint32_t u32() { return get<uint32_t>(); }
    uint64_t u64() { return get<uint64_t>(); }
    int32_t i32() { return get<int32_t>(); }
    int64_t i64() { return get<int64_t>(); }
    double f64() { return get<double>(); }
    std::string_view str()
    {
        const uint32_t n = u32();
        return bytes(n);
    }
    std::string_view bytes(size_t n)
    {
        if (m_failed || n > remaining()) {
            m_failed = true;
            return {};
        }
        std::string_view v = m_p.substr(m_pos, n);
        m_pos += n;
        return v;
    }

private:
    template <typename T>
    T get()
    {
        T v{};
        if (m_failed || sizeof(T) > remaining()) {
            m_failed = true;
            return v;
        }
        std::memcpy(&v, m_p.data() + m_pos, sizeof(T));
        m_pos += sizeof(T);
        return v;
    }

    std::string_view m_p;
    size_t m_pos = 0;
    bool m_failed = false;
};

} // namespace ks::live
