#pragma once

#include "core/model/trace.h"

#include <vector>

namespace ks {

// A value per slice of the trace, stored densely per track (allocated for a track on its first
// write) instead of in a hash map: the overview keys millions of kernels and their launching ops
// by slice, and a hash map node per key cost more than the analyses themselves. Reads of tracks or
// rows never written give `none`.
template <typename T>
class SliceTable {
public:
    SliceTable(const Trace& trace, T none) : m_trace(trace), m_none(none), m_tracks(trace.trackCount()) {}

    T get(SliceRef r) const
    {
        if (r.track.value >= m_tracks.size()) return m_none;
        const std::vector<T>& rows = m_tracks[r.track.value];
        return r.index < rows.size() ? rows[r.index] : m_none;
    }

    T& at(SliceRef r)
    {
        if (r.track.value >= m_tracks.size()) m_tracks.resize(size_t(r.track.value) + 1);
        std::vector<T>& rows = m_tracks[r.track.value];
        if (r.index >= rows.size())
            rows.resize(std::max<size_t>(size_t(r.index) + 1, m_trace.slices(r.track).size()), m_none);
        return rows[r.index];
    }

    // Every slot holding another value than `none`, in slice order.
    template <typename Fn>
    void forEach(Fn&& fn) const
    {
        for (size_t t = 0; t < m_tracks.size(); ++t)
            for (size_t row = 0; row < m_tracks[t].size(); ++row)
                if (m_tracks[t][row] != m_none)
                    fn(SliceRef{TrackId(uint32_t(t)), uint32_t(row)}, m_tracks[t][row]);
    }

private:
    const Trace& m_trace;
    T m_none;
    std::vector<std::vector<T>> m_tracks;
};

} // namespace ks
