#pragma once

#include "core/live/wire.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace ks::live {

struct Frame {
    uint16_t type = 0;
    std::string_view payload; // valid until the next feed()/next() call
};

// Cuts a byte stream into frames. Bytes arrive in arbitrary pieces (socket reads); a frame is
// returned once all of it is there. A header announcing a frame larger than kMaxFrameBytes, or
// non-zero flags, is a protocol error: the stream cannot be resynchronised, so the stream stops
// there and error() says why.
class FrameStream {
public:
    // Appends bytes read from the connection.
    void feed(const char* data, size_t n);
    // The next complete frame; false when none is complete (or after an error).
    bool next(Frame& frame);

    bool failed() const { return !m_error.empty(); }
    const std::string& error() const { return m_error; }
    // Bytes of an incomplete frame (or header) still waiting; non-zero at end of stream means the
    // stream was cut inside a frame.
    size_t pending() const { return m_buffer.size() - m_pos; }
    // Bytes of the frame being assembled and its announced size (0 when not even the header is in).
    size_t announced() const { return m_announced; }
    uint64_t framesRead() const { return m_frames; }
    uint64_t bytesRead() const { return m_bytes; }

private:
    std::string m_buffer;
    size_t m_pos = 0;
    size_t m_announced = 0;
    uint64_t m_frames = 0;
    uint64_t m_bytes = 0;
    std::string m_error;
};

} // namespace ks::live
