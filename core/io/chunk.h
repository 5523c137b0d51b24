#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace ks {

// One piece of the traceEvents array text in a reusable buffer laid out as '[' text ']' padding, the
// form the event parser wants. Buffers are allocated once per load and recycled: fresh memory is
// expensive to fault in, warm memory is not.
class Chunk {
public:
    explicit Chunk(size_t capacity);
    ~Chunk();
    Chunk(const Chunk&) = delete;
    Chunk& operator=(const Chunk&) = delete;

    // Makes room for at least `text` bytes of text, keeping the first `keep` bytes of it.
    void reserve(size_t text, size_t keep);
    // Closes the text at textSize with ']' and zero padding.
    void seal();

    char* buffer() { return m_data; }
    const char* buffer() const { return m_data; }
    char* text() { return m_data + 1; }
    const char* text() const { return m_data + 1; }
    size_t textCapacity() const { return m_capacity - 2 - padding(); }
    size_t bufferCapacity() const { return m_capacity; }
    std::string_view view() const { return {text(), textSize}; }
    static size_t padding();

    uint64_t index = 0;
    size_t textSize = 0;
    uint64_t streamOffset = 0; // offset of text()[0] in the JSON stream
    // The bytes between the previous chunk's end and this chunk's text (the ", " separator the cut
    // dropped), so text can be rejoined exactly when a cut turns out to be wrong.
    std::string separator;
    bool last = false; // the source ended after this chunk

private:
    char* m_data = nullptr;
    size_t m_capacity = 0;
};

} // namespace ks
