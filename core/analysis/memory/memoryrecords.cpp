#include "core/analysis/memory/memoryrecords.h"

#include <algorithm>

namespace ks {

MemoryRecords::MemoryRecords(const Trace& trace)
{
    const Column<MemoryEvent>& events = trace.memoryEvents();
    const size_t n = events.size();
    std::vector<uint32_t> order;
    order.reserve(n);
    for (size_t i = 0; i < n; ++i)
        order.push_back(uint32_t(i));
    // The reader keeps them in time order already; traces built by other means may not.
    std::stable_sort(order.begin(), order.end(),
                     [&events](uint32_t a, uint32_t b) { return events[a].ts < events[b].ts; });
    m_cpu.push_back(0);
    m_device.push_back(0);
    for (uint32_t i : order) {
        const MemoryEvent& m = events[i];
        if (m.outOfMemory) {
            m_oom.push_back(i);
            continue;
        }
        m_ts.push_back(m.ts);
        m_index.push_back(i);
        m_cpu.push_back(addSaturated(m_cpu.back(), isCpuDevice(m.deviceType) ? m.bytes : 0));
        m_device.push_back(addSaturated(m_device.back(), isAcceleratorDevice(m.deviceType) ? m.bytes : 0));
    }
}

size_t MemoryRecords::firstAtOrAfter(TimeNs t, size_t from) const
{
    // Gallop from `from`, then bisect the bracket.
    const size_t n = m_ts.size();
    size_t lo = std::min(from, n);
    if (lo == n || m_ts[lo] >= t) return lo;
    size_t step = 1;
    size_t hi = lo + 1;
    while (hi < n && m_ts[hi] < t) {
        lo = hi;
        step *= 2;
        hi = lo + step;
    }
    hi = std::min(hi, n);
    return size_t(std::lower_bound(m_ts.begin() + lo, m_ts.begin() + hi, t) - m_ts.begin());
}

size_t MemoryRecords::firstAfter(TimeNs t, size_t from) const
{
    const size_t n = m_ts.size();
    size_t lo = std::min(from, n);
    if (lo == n || m_ts[lo] > t) return lo;
    size_t step = 1;
    size_t hi = lo + 1;
    while (hi < n && m_ts[hi] <= t) {
        lo = hi;
        step *= 2;
        hi = lo + step;
    }
    hi = std::min(hi, n);
    return size_t(std::upper_bound(m_ts.begin() + lo, m_ts.begin() + hi, t) - m_ts.begin());
}

std::pair<size_t, size_t> MemoryRecords::within(TimeNs start, TimeNs end, size_t from) const
{
    const size_t lo = firstAtOrAfter(start, from);
    return {lo, firstAfter(end, lo)};
}

} // namespace ks
