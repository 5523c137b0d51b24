#pragma once

// What the safe pickle reader (picklereader.h) calls as it runs a pickle's data opcodes. The reader
// never builds a tree: it tells the handler that a container was made and what went into it, and
// the handler keeps only what it needs (a snapshot builder keeps columns, not dicts), so memory
// stays proportional to the result rather than to the file.
//
// Order: a list or dict is made empty (newList/newDict) and filled afterwards; its elements are
// complete by the time they are added (pickle builds children first), and a container is complete
// when it is itself added to its parent or is the root. A memo reference (BINGET) hands over the
// same handle again. Any exception a handler throws ends the read with its message and the offset.

#include "core/io/pickle/picklevalue.h"

#include <cstdint>
#include <span>

namespace ks::pickle {

class Handler {
public:
    virtual ~Handler() = default;
    virtual uint64_t newList() = 0;
    virtual uint64_t newDict() = 0;
    // A tuple arrives complete (TUPLE, TUPLE1..3, EMPTY_TUPLE).
    virtual uint64_t newTuple(std::span<const Value> items) = 0;
    virtual void append(uint64_t list, const Value& item) = 0;
    // APPENDS: the items of one batch, in order (a handler may look its list up once for them all).
    virtual void appendMany(uint64_t list, std::span<const Value> items)
    {
        for (const Value& v : items)
            append(list, v);
    }
    virtual void setItem(uint64_t dict, const Value& key, const Value& value) = 0;
    // STOP: the pickle's value.
    virtual void finish(const Value& root) = 0;
};

} // namespace ks::pickle
