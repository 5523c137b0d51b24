#pragma once

#include "core/analysis/summary/autogradlinks.h"
#include "core/analysis/summary/functioneventlist.h"
#include "core/model/trace.h"

#include <cstdint>
#include <string_view>
#include <vector>

namespace ks {

// The stacks torch's FunctionEvents hold after EventList._set_backward_stacktraces() (spec
// torch-profiler-exports.md §2.2): an event at or under a backward function takes the stack of the
// first forward event, in list order, with that function's (sequence number, forward thread)
// (AutogradLinks); with no such event its stack is empty. Every other event keeps its own stack
// (sliceStack()). torch::autograd::AccumulateGrad has no sequence number, so it and its children
// get empty stacks, as in torch.
//
// Needs the list built with withSliceRows.
class BackwardStacks {
public:
    BackwardStacks(const Trace& trace, const FunctionEventList& list);

    // The frames torch's FunctionEvent.stack holds for CPU event g, innermost first.
    void stackOf(uint32_t g, std::vector<std::string_view>& frames) const;

private:
    const Trace& m_trace;
    const FunctionEventList& m_list;
    AutogradLinks m_links;
};

} // namespace ks
