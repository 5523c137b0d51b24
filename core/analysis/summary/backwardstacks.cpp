#include "core/analysis/summary/backwardstacks.h"

#include "core/analysis/summary/stackexport.h"

namespace ks {

BackwardStacks::BackwardStacks(const Trace& trace, const FunctionEventList& list)
    : m_trace(trace), m_list(list), m_links(trace, list)
{}

void BackwardStacks::stackOf(uint32_t g, std::vector<std::string_view>& frames) const
{
    uint32_t own = g;
    const uint32_t fn = m_links.backwardFunction(g);
    if (fn != AutogradLinks::kNone) {
        own = m_links.forwardOf(fn);
        if (own == AutogradLinks::kNone) {
            frames.clear();
            return;
        }
    }
    sliceStack(m_trace, SliceRef{m_links.track(own), m_list.sliceRow[own]}, frames,
               m_list.torch() == TorchFlavor::Torch1);
}

} // namespace ks
