#pragma once

// The pickle reader's stack of values: the few operations of std::vector it needs, with a push
// that the compiler keeps inline. With std::vector, GCC kept push_back out of line in the reader's
// opcode loop, so every pushed value (a frames list's BINGETs: 150 an entry) was built in a
// temporary in memory and read back at once, a store-forwarding stall each (a quarter of a
// gigabyte snapshot's read).

#include "core/io/pickle/picklevalue.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>

namespace ks::pickle {

class ValueStack {
public:
    size_t size() const { return m_size; }
    bool empty() const { return m_size == 0; }
    const Value* data() const { return m_data.get(); }
    Value* data() { return m_data.get(); }
    Value& operator[](size_t i) { return m_data[i]; }
    const Value& operator[](size_t i) const { return m_data[i]; }
    Value& back() { return m_data[m_size - 1]; }
    void pop_back() { --m_size; }
    // Only ever shrinks (to a MARK's position).
    void shrink(size_t n) { m_size = std::min(m_size, n); }
    // Room allocated, in values (sizeof(Value) bytes each).
    size_t capacity() const { return m_capacity; }
    // Growth never allocates room for more than n values (the reader's stack limit), so doubling
    // cannot take the stack's memory past what the limit allows.
    void limitCapacity(size_t n) { m_maxCapacity = n; }

    void push_back(const Value& v)
    {
        if (m_size == m_capacity) [[unlikely]] {
            // v may be one of ours (DUP pushes the top): copied before the storage moves.
            const Value copy = v;
            grow();
            store(copy);
            return;
        }
        store(v);
    }

private:
    void store(const Value& v)
    {
        // Field by field: a whole-struct copy made GCC build the value in a temporary and read it
        // back 16 bytes at a time, the stall this class is for.
        Value& d = m_data[m_size++];
        d.kind = v.kind;
        d.stringId = v.stringId;
        d.i = v.i;
        d.text = v.text;
    }

    [[gnu::noinline]] void grow()
    {
        // Past the limit only when the caller pushes past it (the reader checks first).
        const size_t capacity =
            std::max(std::min(std::max<size_t>(64, m_capacity * 2), m_maxCapacity), m_size + 1);
        auto data = std::make_unique<Value[]>(capacity);
        if (m_size > 0) std::memcpy(static_cast<void*>(data.get()), m_data.get(), m_size * sizeof(Value));
        m_data = std::move(data);
        m_capacity = capacity;
    }

    std::unique_ptr<Value[]> m_data;
    size_t m_size = 0;
    size_t m_capacity = 0;
    size_t m_maxCapacity = SIZE_MAX;
};

} // namespace ks::pickle
