#pragma once

#include "core/model/trace.h"

namespace ks {

// Walks the link ids (External id / correlation) of one track's slices in row order, without a
// search per slice: Trace::linkIds() is sorted by slice reference. Reads the column one contiguous
// run at a time.
class TrackLinkCursor {
public:
    TrackLinkCursor(const Trace& trace, TrackId track) : m_links(trace.linkIds()), m_track(track)
    {
        m_size = m_links.size();
        m_at = m_links.lowerBound(SliceRef{track, 0},
                                  [](const SliceLinkIds& l, const SliceRef& r) { return l.slice < r; });
        m_runStart = m_runEnd = m_at;
    }

    // The ids of `row` (-1 when absent). Rows must be asked for in increasing order.
    void find(uint32_t row, int64_t& externalId, int64_t& correlation)
    {
        externalId = -1;
        correlation = -1;
        while (m_at < m_size) {
            if (m_at == m_runEnd) loadRun();
            const SliceLinkIds& l = m_run[m_at - m_runStart];
            if (l.slice.track != m_track || l.slice.index > row) return;
            if (l.slice.index == row) {
                externalId = l.externalId;
                correlation = l.correlation;
                return;
            }
            ++m_at;
        }
    }

private:
    void loadRun()
    {
        // forEachSpan reports the contiguous runs from m_at on; only the first one is kept.
        m_links.forEachSpan(m_at, m_size, [this](const SliceLinkIds* p, size_t n, size_t first) {
            if (first == m_at) {
                m_run = p;
                m_runStart = first;
                m_runEnd = first + n;
            }
        });
    }

    const Column<SliceLinkIds>& m_links;
    TrackId m_track;
    size_t m_size = 0;
    size_t m_at = 0;
    const SliceLinkIds* m_run = nullptr;
    size_t m_runStart = 0;
    size_t m_runEnd = 0;
};

} // namespace ks
