#include "core/live/framestream.h"

#include "core/live/frames.h"

namespace ks::live {

void FrameStream::feed(const char* data, size_t n)
{
    if (failed()) return;
    // Compact lazily: the consumed prefix goes once it is larger than what is left.
    if (m_pos > 0 && m_pos >= m_buffer.size() - m_pos) {
        m_buffer.erase(0, m_pos);
        m_pos = 0;
    }
    m_buffer.append(data, n);
    m_bytes += n;
}

bool FrameStream::next(Frame& frame)
{
    if (failed()) return false;
    const size_t avail = m_buffer.size() - m_pos;
    if (avail < kHeaderBytes) {
        m_announced = 0;
        return false;
    }
    uint32_t len;
    uint16_t type, flags;
    std::memcpy(&len, m_buffer.data() + m_pos, 4);
    std::memcpy(&type, m_buffer.data() + m_pos + 4, 2);
    std::memcpy(&flags, m_buffer.data() + m_pos + 6, 2);
    if (len > kMaxFrameBytes) {
        m_error = "frame " + std::to_string(m_frames + 1) + " announces " + std::to_string(len) +
                  " bytes (more than the " + std::to_string(kMaxFrameBytes >> 20) +
                  " MiB limit): not a valid stream";
        return false;
    }
    if (flags != 0 || type == 0) {
        m_error = "frame " + std::to_string(m_frames + 1) + " has an invalid header (type " +
                  std::to_string(type) + ", flags " + std::to_string(flags) + ")";
        return false;
    }
    m_announced = kHeaderBytes + len;
    if (avail < m_announced) return false;
    frame.type = type;
    frame.payload = std::string_view(m_buffer.data() + m_pos + kHeaderBytes, len);
    m_pos += m_announced;
    m_announced = 0;
    ++m_frames;
    return true;
}

} // namespace ks::live
