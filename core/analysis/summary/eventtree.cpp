#include "core/analysis/summary/eventtree.h"

namespace ks {

void EventTree::finishLane(const FunctionEventList::Lane& lane)
{
    FunctionEventList& l = m_list;
    m_device = l.deviceUs.allocated();
    m_memory = l.hasMemoryColumns();
    m_compensated = l.torch() == TorchFlavor::Torch2;
    m_stack.clear();
    for (uint32_t g = lane.begin; g < lane.end; ++g) {
        const TimeNs s = l.start[g];
        const TimeNs e = l.end[g];
        while (!m_stack.empty() && (s >= m_stack.back().end || e > m_stack.back().end))
            finishTop();
        Open o;
        o.end = e;
        o.self.g = g;
        o.self.nameKey = l.nameKey[g];
        o.self.kernels = m_device ? l.deviceUs[g] : 0.0;
        m_stack.push_back(o);
    }
    while (!m_stack.empty())
        finishTop();
}

void EventTree::finishTop()
{
    FunctionEventList& l = m_list;
    Report n = m_stack.back().self;
    const Report& only = m_stack.back().lastChild;
    if (n.children == 1 && only.nameKey == n.nameKey) {
        l.flags[only.g] |= FunctionEventList::kRemoved;
        const uint32_t g = n.g;
        const uint32_t key = n.nameKey;
        n = only;
        n.g = g;
        n.nameKey = key;
    }
    m_stack.pop_back();

    const uint32_t g = n.g;
    const double total = l.elapsedUs(g);
    l.selfCpuUs[g] = total - n.childCpu.value();
    double device = 0.0;
    if (m_device) {
        const double children = n.childDevice.value();
        device = n.kernels + children;
        l.deviceUs[g] = device;
        l.selfDeviceUs[g] = device - children;
    }
    int64_t cpuMem = 0, deviceMem = 0;
    if (m_memory) {
        // An event without a record inside has none in its children either: all its values are 0.
        const uint32_t slot = l.memorySlot[g];
        if (slot != FunctionEventList::kNoMemory) {
            FunctionEventList::MemoryUsage& m = l.memoryUsage[slot];
            cpuMem = m.cpu;
            deviceMem = m.device;
            m.selfCpu = cpuMem - n.childCpuMem;
            m.selfDevice = deviceMem - n.childDeviceMem;
        }
    }
    if (m_stack.empty()) return;
    Open& parent = m_stack.back();
    Report& p = parent.self;
    ++p.children;
    p.childCpu.add(total, m_compensated);
    p.childDevice.add(device, m_compensated);
    p.childCpuMem += cpuMem;
    p.childDeviceMem += deviceMem;
    parent.lastChild = n;
}

} // namespace ks
