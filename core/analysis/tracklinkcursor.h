#pragma once

#include "model/trace.h"

namespace ks {

// Walks the link ids (External id / correlation) of one track's slices in row order, without a
// search per slice: Trace::linkIds() is sorted by slice reference.
class TrackLinkCursor {
public:
    TrackLinkCursor(const Trace& trace, TrackId track) : m_links(trace.linkIds()), m_track(track)
    {
        m_at = m_links.lowerBound(SliceRef{track, 0},
                                  [](const SliceLinkIds& l, const SliceRef& r) { return l.slice < r; });
    }

    // The ids of `row` (-1 when absent). Rows must be asked for in increasing order.
    void find(uint32_t row, int64_t& externalId, int64_t& correlation)
    {
        const size_t n = m_links.size();
        while (m_at < n && m_links[m_at].slice.track == m_track && m_links[m_at].slice.index < row)
            ++m_at;
        if (m_at < n && m_links[m_at].slice.track == m_track && m_links[m_at].slice.index == row) {
            externalId = m_links[m_at].externalId;
            correlation = m_links[m_at].correlation;
        } else {
            externalId = -1;
            correlation = -1;
        }
    }

private:
    const Column<SliceLinkIds>& m_links;
    TrackId m_track;
    size_t m_at = 0;
};

} // namespace ks
