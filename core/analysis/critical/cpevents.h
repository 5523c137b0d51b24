#pragma once

#include "core/model/trace.h"

#include <cmath>
#include <string_view>

namespace ks {

// Names HTA's critical path analysis treats specially (hta/analyzers/critical_path_analysis.py,
// hta/common/trace_symbol_table.py, hta/common/types.py).

// Runtime calls that hold the CUDA runtime lock (CUDA_RUNTIME_EVENTS).
bool cpIsLockingRuntime(std::string_view name);
// Calls that block the CPU until the GPU catches up (BLOCKING_SYNC_CALLS): their own duration is
// waiting, so it is given weight 0.
bool cpIsBlockingCall(std::string_view name);

// Times as HTA sees them. HTA rounds a trace with sub-microsecond times to whole microseconds
// (round_down_time_stamps: starts up, ends down), so a slice shorter than 1 us can end before it
// starts and drop out of the graph; with round unset, times are the trace's own ns.
struct CpClock {
    bool round = false;

    // HTA's own arithmetic: the file's "ts" and "dur" as float64 us (at epoch times, 1.7e15 us, a
    // double has 0.25 us steps, so ts + dur can land on the next whole us), start = ceil(ts),
    // end = floor(ts + dur).
    static double us(TimeNs ns) { return double(static_cast<long double>(ns) / 1000.0L); }
    TimeNs up(TimeNs t) const { return round ? TimeNs(std::ceil(us(t))) * 1000 : t; }
    TimeNs down(TimeNs start, TimeNs end) const
    {
        return round ? TimeNs(std::floor(us(start) + us(end - start))) * 1000 : end;
    }
    TimeNs start(const SliceTrack& st, size_t row) const { return up(st.start(row)); }
    TimeNs end(const SliceTrack& st, size_t row) const { return down(st.start(row), st.end(row)); }
    TimeNs duration(const SliceTrack& st, size_t row) const { return end(st, row) - start(st, row); }
    TimeNs start(const Trace& t, SliceRef r) const { return start(t.slices(r.track), r.index); }
    TimeNs end(const Trace& t, SliceRef r) const { return end(t.slices(r.track), r.index); }
    TimeNs duration(const Trace& t, SliceRef r) const { return duration(t.slices(r.track), r.index); }

    // Whether HTA would round this trace: some slice starts off a whole microsecond.
    static bool hasSubMicrosecondTimes(const Trace& trace);
};

// The "stream" arg of a GPU-side event (HTA's stream column), else the stream of its track.
int64_t cpStreamOf(const Trace& trace, SliceRef ref);

} // namespace ks
