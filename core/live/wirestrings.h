#pragma once

#include "core/model/types.h"
#include "core/util/stringpool.h"

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace ks::live {

// One connection's string table: wire id -> the trace's StringId. Senders number strings from 1
// in the order they intern them, so a dense table suits them; an id far beyond the number defined
// goes to a sparse map instead, so a single small frame with a huge id costs one entry rather than
// a table up to it.
class WireStrings {
public:
    // False when id was never defined, unless definitions are being refused: then the fallback.
    bool find(uint32_t id, StringId& out) const;
    void define(uint32_t id, StringId s);
    // Definitions are no longer kept (the session is over its budget): unknown ids resolve to
    // fallback instead of being a protocol error.
    void refuse(StringId fallback)
    {
        m_refusing = true;
        m_fallback = fallback;
    }
    bool refusing() const { return m_refusing; }

private:
    std::vector<StringId> m_dense;
    std::unordered_map<uint32_t, StringId> m_sparse;
    size_t m_defined = 0;
    bool m_refusing = false;
    StringId m_fallback;
};

} // namespace ks::live
