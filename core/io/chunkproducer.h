#pragma once

#include "core/io/chunk.h"

#include <cstdint>
#include <string>

namespace ks {

class ByteSource;

// Cuts the traceEvents text coming from a ByteSource into chunks that end after a complete event.
//
// The cut is a guess: the end of a '}' followed by ',' and '{' (whitespace allowed between). The
// pattern can also occur inside a string or inside args holding an array of objects; the parser then
// fails on the chunk and the loader rejoins it with the next one (the dropped separator is kept in
// Chunk::separator for that).
class ChunkProducer {
public:
    // carry: text already read past the start of the events array; carryOffset: its stream offset.
    ChunkProducer(ByteSource& source, size_t chunkBytes, std::string carry, uint64_t carryOffset,
                  uint64_t streamPos);

    // Fills chunk with the next piece of text. Returns false once everything was handed out. A read
    // error ends the text where it happened (the chunk is marked last) and is kept in error().
    bool fill(Chunk& chunk);

    uint64_t streamPos() const { return m_streamPos; }
    const std::string& error() const { return m_error; }

    // Position just past the last complete event in text[0, before), or 0 when there is none.
    static size_t findCut(const char* text, size_t before);

private:
    ByteSource& m_source;
    size_t m_chunkBytes;
    std::string m_carry;
    uint64_t m_offset;
    uint64_t m_streamPos;
    std::string m_separator;
    std::string m_error;
    uint64_t m_index = 0;
    bool m_eof = false;
    bool m_done = false;
};

} // namespace ks
