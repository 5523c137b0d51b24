#pragma once

#include "core/model/types.h"
#include "core/util/column.h"
#include "core/util/minmaxpyramid.h"

#include <utility>

namespace ks {

// One counter series: a 'C' event name plus one of its arg keys, sampled over time.
class CounterTrack {
public:
    CounterTrack(ProcessId process, StringId name, StringId series)
        : m_process(process), m_name(name), m_series(series)
    {}

    ProcessId process() const { return m_process; }
    StringId name() const { return m_name; }
    StringId series() const { return m_series; }

    size_t size() const { return m_ts.size(); }
    TimeNs ts(size_t i) const { return m_ts[i]; }
    double value(size_t i) const { return m_values[i]; }
    const Column<TimeNs>& times() const { return m_ts; }
    const Column<double>& values() const { return m_values; }

    // Smallest and largest value of samples [begin, end) ({+inf, -inf} when empty), from the
    // block summaries kept as samples arrive: a zoomed-out timeline asks this once per pixel.
    std::pair<double, double> valueRange(size_t begin, size_t end) const
    {
        return m_pyramid.range(m_values, begin, end);
    }

    // Samples arrive sorted (the reader sorts, live producers append in order). The time goes in
    // last: size() is what readers on other threads trust.
    void append(TimeNs ts, double v)
    {
        m_values.push_back(v);
        m_pyramid.appended(m_values);
        m_ts.push_back(ts);
    }

    size_t bytesUsed() const { return m_ts.bytesUsed() + m_values.bytesUsed() + m_pyramid.bytesUsed(); }

private:
    ProcessId m_process;
    StringId m_name;
    StringId m_series;
    Column<TimeNs> m_ts;
    Column<double> m_values;
    MinMaxPyramid m_pyramid;
};

} // namespace ks
