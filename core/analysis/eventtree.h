#pragma once

#include "analysis/functioneventlist.h"

#include <cstdint>
#include <vector>

namespace ks {

// Finishes one CPU lane (one thread) of a FunctionEventList the way torch's EventList._build_tree()
// and FunctionEvent's properties do (spec §2.2):
//  - parents come from the stack walk done while filling (an event's parent is the nearest event
//    still open that fully contains it; partial overlaps give no relation);
//  - a child with its parent's name that is the parent's only child is removed: the parent adopts
//    its children and takes over its kernel list (not adds: replaces), repeatedly, top-down;
//  - self CPU time = own duration − Σ children's durations; device total = Σ own kernels +
//    Σ children's device totals; self device = device total − Σ children's; self memory alike.
// Sums run over children in list order, so floating-point results match torch's bit for bit.
//
// Owns scratch arrays; reuse one instance per thread.
class EventTree {
public:
    explicit EventTree(FunctionEventList& list) : m_list(list) {}

    void finishLane(const FunctionEventList::Lane& lane);

private:
    void removeDuplicates(uint32_t begin, uint32_t n);
    void linkChildren(uint32_t begin, uint32_t n);
    void computeSelfValues(uint32_t begin, uint32_t n);

    static constexpr uint32_t kNone = UINT32_MAX;

    FunctionEventList& m_list;
    // Lane-local indices.
    std::vector<uint32_t> m_childCount;
    std::vector<uint32_t> m_mergedInto;
    std::vector<uint32_t> m_firstChild;
    std::vector<uint32_t> m_lastChild;
    std::vector<uint32_t> m_nextSibling;
};

} // namespace ks
