#pragma once

#include "core/analysis/summary/functioneventlist.h"
#include "core/analysis/summary/pysum.h"

#include <cstdint>
#include <vector>

namespace ks {

// Finishes one CPU lane (one thread) of a FunctionEventList the way torch's EventList._build_tree()
// and FunctionEvent's properties do (spec §2.2):
//  - an event's parent is the nearest event still open that fully contains it (torch's stack rule,
//    on events sorted by (start, -end)); partial overlaps give no relation;
//  - a child with its parent's name that is the parent's only child is removed: the parent adopts
//    its children and takes over its kernel list (replaces, not adds);
//  - self CPU time = own duration - Σ children's durations; device total = Σ own kernels + Σ
//    children's device totals; self device = device total - Σ children's; self memory alike.
// Sums run over children in list order with Python's sum() of the flavour's Python (PySum), so the
// doubles match torch's bit for bit.
//
// One forward pass with a stack of open events: an event is finished when the walk leaves it, by
// which time all its children have reported to it. torch removes duplicates top-down; doing it
// bottom-up as events finish gives the same tree, because removal only ever collapses a chain of
// same-named only children into its topmost event, which ends up with the deepest one's children
// and kernels either way.
class EventTree {
public:
    explicit EventTree(FunctionEventList& list) : m_list(list) {}

    void finishLane(const FunctionEventList::Lane& lane);

private:
    // What a finished child tells its parent; when it is the only child and shares the parent's
    // name, the parent takes these over as its own.
    struct Report {
        uint32_t g = 0;
        uint32_t nameKey = 0;
        uint32_t children = 0;
        PySum childCpu;
        PySum childDevice;
        int64_t childCpuMem = 0;
        int64_t childDeviceMem = 0;
        double kernels = 0;
    };
    struct Open {
        TimeNs end;
        Report self; // own values; children/child* accumulate as children finish
        Report lastChild;
    };

    void finishTop();

    FunctionEventList& m_list;
    std::vector<Open> m_stack;
    bool m_device = false;
    bool m_memory = false;
    bool m_compensated = false;
};

} // namespace ks
