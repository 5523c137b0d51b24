#include "core/live/wirestrings.h"

#include <algorithm>

namespace ks::live {

namespace {

// Ids up to twice the number defined plus this stay dense.
constexpr size_t kDenseSlack = 65536;

} // namespace

bool WireStrings::find(uint32_t id, StringId& out) const
{
    if (id < m_dense.size() && m_dense[id].valid()) {
        out = m_dense[id];
        return true;
    }
    if (auto it = m_sparse.find(id); it != m_sparse.end()) {
        out = it->second;
        return true;
    }
    if (!m_refusing) return false;
    out = m_fallback;
    return true;
}

void WireStrings::define(uint32_t id, StringId s)
{
    if (id < m_dense.size()) {
        m_defined += !m_dense[id].valid();
        m_dense[id] = s;
        return;
    }
    const size_t denseLimit = 2 * m_defined + kDenseSlack;
    if (id <= denseLimit) {
        // Grown geometrically, but never past the limit.
        m_dense.resize(
            std::max<size_t>(size_t(id) + 1, std::min<size_t>(2 * m_dense.size() + 1024, denseLimit)),
            StringId());
        ++m_defined;
        m_dense[id] = s;
        return;
    }
    m_defined += m_sparse.insert_or_assign(id, s).second;
}

} // namespace ks::live
