#pragma once

#include "core/model/slicetrack.h"

namespace ks {

// Calls fn(row) for every row of a track whose span meets [t0, t1] (depth by depth, each in start
// order): what a time-range analysis visits, in O(levels × log n + rows visited), so a live update
// that looks at the newest step only does not scan the whole trace.
template <typename Fn>
void forEachRowMeeting(const SliceTrack& st, TimeNs t0, TimeNs t1, Fn&& fn)
{
    for (size_t d = 0; d < st.levelCount(); ++d) {
        const SliceTrack::Level& lv = st.level(d);
        const size_t last = st.endAtDepthStartingBefore(d, t1, true);
        for (size_t i = st.firstAtDepthEndingAfter(d, t0, true); i < last; ++i) {
            const uint32_t row = lv.rows[i];
            if (st.end(row) >= t0) fn(row);
        }
    }
}

} // namespace ks
