#include "core/io/chunkproducer.h"

#include "core/io/bytesource.h"
#include "core/io/jsonscan.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace ks {

ChunkProducer::ChunkProducer(ByteSource& source, size_t chunkBytes, std::string carry, uint64_t carryOffset,
                             uint64_t streamPos)
    : m_source(source), m_chunkBytes(chunkBytes), m_carry(std::move(carry)), m_offset(carryOffset),
      m_streamPos(streamPos)
{}

size_t ChunkProducer::findCut(const char* text, size_t before)
{
    size_t i = before;
    while (i > 0) {
        const void* brace = memrchr(text, '{', i);
        if (!brace) return 0;
        i = size_t(static_cast<const char*>(brace) - text);
        size_t j = i;
        while (j > 0 && isJsonSpace(text[j - 1]))
            --j;
        if (j == 0 || text[j - 1] != ',') continue;
        --j;
        while (j > 0 && isJsonSpace(text[j - 1]))
            --j;
        if (j == 0 || text[j - 1] != '}') continue;
        return j; // text[j-1] == '}'
    }
    return 0;
}

bool ChunkProducer::fill(Chunk& c)
{
    if (m_done) return false;
    c.index = m_index++;
    c.streamOffset = m_offset;
    c.separator = std::move(m_separator);
    m_separator.clear();
    c.last = false;
    // Room for the carried-over start of an event plus at least half a chunk of new text.
    size_t target = std::max(m_chunkBytes, m_carry.size() + m_chunkBytes / 2 + 1);
    c.reserve(target, 0);
    std::memcpy(c.text(), m_carry.data(), m_carry.size());
    size_t size = m_carry.size();
    m_carry.clear();
    size_t cut = 0;
    while (true) {
        while (size < target && !m_eof) {
            size_t got = 0;
            try {
                got = m_source.read(c.text() + size, target - size);
            } catch (const std::exception& e) {
                m_error = e.what();
            }
            if (got == 0) m_eof = true;
            size += got;
            m_streamPos += got;
        }
        if (m_eof) break;
        cut = findCut(c.text(), size);
        if (cut > 0) break;
        // One event larger than the chunk: grow it.
        target *= 2;
        c.reserve(target, size);
    }
    if (m_eof) {
        c.textSize = size;
        c.last = true;
        m_done = true;
    } else {
        // The next chunk starts at the '{' after the separator.
        size_t next = cut;
        while (c.text()[next] != '{')
            ++next;
        m_separator.assign(c.text() + cut, next - cut);
        m_carry.assign(c.text() + next, size - next);
        m_offset = c.streamOffset + next;
        c.textSize = cut;
    }
    c.seal();
    return true;
}

} // namespace ks
