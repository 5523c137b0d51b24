#include "core/record/fwdbwdlinks.h"

namespace ks::record {

void FwdBwdLinks::forward(int64_t seq, uint64_t torchThread, const End& e)
{
    auto [it, added] = m_forward.try_emplace({seq, torchThread}, e);
    // Slices reach here as they end, children first: keep the one that began first.
    if (!added && e.startTicks < it->second.startTicks) it->second = e;
}

void FwdBwdLinks::backward(int64_t seq, uint64_t fwdThread, const End& e)
{
    m_backward.emplace_back(Key{seq, fwdThread}, e);
}

std::vector<FwdBwdLinks::Link> FwdBwdLinks::links() const
{
    std::vector<Link> out;
    uint64_t id = 1;
    for (const auto& [key, bwd] : m_backward) {
        auto it = m_forward.find(key);
        if (it != m_forward.end()) out.push_back(Link{id++, it->second, bwd});
    }
    return out;
}

} // namespace ks::record
