#include "core/io/chunk.h"

#include "core/io/eventparser.h"
#include "core/util/bigalloc.h"

#include <cstring>

namespace ks {

size_t Chunk::padding()
{
    return EventParser::padding();
}

Chunk::Chunk(size_t capacity)
{
    m_capacity = capacity + 2 + padding();
    m_data = static_cast<char*>(allocateLarge(m_capacity));
    m_data[0] = '[';
}

Chunk::~Chunk()
{
    freeLarge(m_data, m_capacity);
}

void Chunk::reserve(size_t text, size_t keep)
{
    if (text <= textCapacity()) return;
    const size_t capacity = text + 2 + padding();
    char* bigger = static_cast<char*>(allocateLarge(capacity));
    std::memcpy(bigger, m_data, keep + 1);
    freeLarge(m_data, m_capacity);
    m_data = bigger;
    m_capacity = capacity;
}

void Chunk::seal()
{
    m_data[1 + textSize] = ']';
    std::memset(m_data + 2 + textSize, 0, padding());
}

} // namespace ks
