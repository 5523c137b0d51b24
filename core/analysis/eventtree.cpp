#include "analysis/eventtree.h"

namespace ks {

void EventTree::finishLane(const FunctionEventList::Lane& lane)
{
    const uint32_t n = lane.end - lane.begin;
    removeDuplicates(lane.begin, n);
    linkChildren(lane.begin, n);
    computeSelfValues(lane.begin, n);
}

void EventTree::removeDuplicates(uint32_t begin, uint32_t n)
{
    FunctionEventList& l = m_list;
    m_childCount.assign(n, 0);
    m_mergedInto.assign(n, kNone);
    for (uint32_t i = 0; i < n; ++i) {
        const uint32_t p = l.link[begin + i];
        if (p != FunctionEventList::kNone) ++m_childCount[p - begin];
    }
    const bool hasDevice = l.deviceUs.allocated();
    // One top-down pass does what torch's repeated passes do: a parent always precedes its
    // children, so by the time a child is looked at, its parent's fate is settled, and an event
    // removed into its parent sends its own children there too.
    for (uint32_t i = 0; i < n; ++i) {
        const uint32_t g = begin + i;
        if (l.link[g] == FunctionEventList::kNone) continue;
        uint32_t p = l.link[g] - begin;
        if (m_mergedInto[p] != kNone) p = m_mergedInto[p];
        l.link[g] = begin + p;
        if (l.nameKey[begin + p] != l.nameKey[g] || m_childCount[p] != 1) continue;
        l.flags[g] |= FunctionEventList::kRemoved;
        m_mergedInto[i] = p;
        m_childCount[p] = m_childCount[i];
        if (hasDevice)
            l.deviceUs[begin + p] = l.deviceUs[g]; // the kernel list moves up, replacing the parent's
    }
}

void EventTree::linkChildren(uint32_t begin, uint32_t n)
{
    FunctionEventList& l = m_list;
    m_firstChild.assign(n, kNone);
    m_lastChild.assign(n, kNone);
    m_nextSibling.assign(n, kNone);
    for (uint32_t i = 0; i < n; ++i) {
        const uint32_t g = begin + i;
        if (l.flags[g] & FunctionEventList::kRemoved) continue;
        if (l.link[g] == FunctionEventList::kNone) {
            l.flags[g] |= FunctionEventList::kTopLevel;
            continue;
        }
        const uint32_t p = l.link[g] - begin;
        if (m_firstChild[p] == kNone)
            m_firstChild[p] = i;
        else
            m_nextSibling[m_lastChild[p]] = i;
        m_lastChild[p] = i;
    }
}

void EventTree::computeSelfValues(uint32_t begin, uint32_t n)
{
    FunctionEventList& l = m_list;
    const bool hasDevice = l.deviceUs.allocated();
    const bool hasMemory = l.cpuMemory.allocated();
    // Children come after their parent, so walking backwards finishes every subtree before its root
    // needs the subtree's device total.
    for (uint32_t i = n; i-- > 0;) {
        const uint32_t g = begin + i;
        if (l.flags[g] & FunctionEventList::kRemoved) continue;
        double childCpu = 0.0;
        double childDevice = 0.0;
        int64_t childCpuMem = 0;
        int64_t childDeviceMem = 0;
        for (uint32_t c = m_firstChild[i]; c != kNone; c = m_nextSibling[c]) {
            const uint32_t cg = begin + c;
            childCpu += l.elapsedUs(cg);
            if (hasDevice) childDevice += l.deviceUs[cg];
            if (hasMemory) {
                childCpuMem += l.cpuMemory[cg];
                childDeviceMem += l.deviceMemory[cg];
            }
        }
        l.selfCpuUs[g] = l.elapsedUs(g) - childCpu;
        if (hasDevice) {
            const double total = l.deviceUs[g] + childDevice;
            l.deviceUs[g] = total;
            l.selfDeviceUs[g] = total - childDevice;
        }
        if (hasMemory) {
            l.selfCpuMemory[g] = l.cpuMemory[g] - childCpuMem;
            l.selfDeviceMemory[g] = l.deviceMemory[g] - childDeviceMem;
        }
    }
}

} // namespace ks
