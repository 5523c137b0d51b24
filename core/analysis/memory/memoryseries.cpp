#include "core/analysis/memory/memoryseries.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace ks {

std::vector<MemorySeries> buildMemorySeries(const Trace& trace)
{
    std::map<std::tuple<uint32_t, int, int>, size_t> index;
    std::vector<MemorySeries> out;
    std::vector<int64_t> running;
    const Column<MemoryEvent>& events = trace.memoryEvents();
    for (size_t i = 0; i < events.size(); ++i) {
        const MemoryEvent& e = events[i];
        const ProcessId process = e.track.valid() ? trace.track(e.track).process : ProcessId();
        const auto key = std::make_tuple(process.value, int(e.deviceType), int(e.deviceId));
        auto [it, fresh] = index.try_emplace(key, out.size());
        if (fresh) {
            MemorySeries s;
            s.process = process;
            s.deviceType = e.deviceType;
            s.deviceId = e.deviceId;
            if (e.deviceType == 0)
                s.label = "CPU memory";
            else
                s.label = (e.deviceType == 1 ? "GPU " : "Device ") +
                          std::to_string(std::max(0, int(e.deviceId))) + " memory";
            s.allocated = std::make_unique<CounterTrack>(process, StringId(), StringId());
            out.push_back(std::move(s));
            running.push_back(0);
        }
        const size_t k = it->second;
        running[k] += e.bytes;
        const double value = e.totalAllocated >= 0 ? double(e.totalAllocated) : double(running[k]);
        out[k].allocated->append(e.ts, value);
    }
    // The allocator events arrive in time order per thread; merge threads so each series is sorted.
    for (MemorySeries& s : out) {
        const CounterTrack& c = *s.allocated;
        bool sorted = true;
        for (size_t i = 1; i < c.size() && sorted; ++i)
            sorted = c.ts(i - 1) <= c.ts(i);
        if (sorted) continue;
        std::vector<std::pair<TimeNs, double>> v;
        for (size_t i = 0; i < c.size(); ++i)
            v.emplace_back(c.ts(i), c.value(i));
        std::stable_sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
        auto sortedTrack = std::make_unique<CounterTrack>(s.process, StringId(), StringId());
        for (const auto& [ts, value] : v)
            sortedTrack->append(ts, value);
        s.allocated = std::move(sortedTrack);
    }
    std::sort(out.begin(), out.end(), [](const MemorySeries& a, const MemorySeries& b) {
        return std::tie(a.deviceType, a.deviceId, a.process) < std::tie(b.deviceType, b.deviceId, b.process);
    });
    return out;
}

} // namespace ks
