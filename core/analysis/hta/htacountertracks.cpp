#include "core/analysis/hta/htacountertracks.h"

#include "core/analysis/hta/htacounters.h"

namespace ks::hta {

namespace {

// Several changes at one time leave the last value: a counter holds one value per time.
std::unique_ptr<CounterTrack> toTrack(ProcessId process, const std::vector<SeriesPoint>& series)
{
    auto track = std::make_unique<CounterTrack>(process, StringId(), StringId());
    for (size_t i = 0; i < series.size(); ++i) {
        if (i + 1 < series.size() && series[i + 1].tsNs == series[i].tsNs) continue;
        track->append(series[i].tsNs, series[i].value);
    }
    return track;
}

} // namespace

std::vector<CounterSeries> buildCounterSeries(const Trace& trace)
{
    std::vector<CounterSeries> out;
    const EventTable table = EventTable::build(trace);
    for (const StreamQueue& q : queueLength(table).streams) {
        if (q.series.empty()) continue;
        CounterSeries s;
        s.process = trace.findProcess(q.pid);
        s.label = "Queue length · stream " + std::to_string(q.stream);
        s.track = toTrack(s.process, q.series);
        out.push_back(std::move(s));
    }
    for (const MemoryBandwidth& m : memoryBandwidth(table)) {
        if (m.series.empty()) continue;
        CounterSeries s;
        s.process = trace.findProcess(m.pid);
        s.label = m.kind + " bandwidth (GB/s)";
        s.track = toTrack(s.process, m.series);
        out.push_back(std::move(s));
    }
    return out;
}

} // namespace ks::hta
