#include "core/analysis/timeline/condensedtrack.h"

namespace ks {

std::unique_ptr<CondensedTrack> CondensedTrack::build(const Trace& trace, TrackId id, int maxPythonDepth)
{
    const SliceTrack& st = trace.slices(id);
    const size_t n = st.size();
    // A first pass decides whether anything goes: most tracks have no Python frames at all.
    struct Frame {
        int python;  // Python frames on the stack down to and including this row
        int32_t row; // condensed row showing this row (its own or its nearest kept ancestor)
    };
    std::vector<Frame> stack;
    std::vector<uint8_t> hidden(n, 0);
    size_t hiddenCount = 0;
    for (size_t r = 0; r < n; ++r) {
        if (st.isOpen(r)) return nullptr;
        const size_t d = std::min<size_t>(st.depth(r), stack.size());
        stack.resize(d);
        const int parentPython = d > 0 ? stack[d - 1].python : 0;
        const bool python = trace.kindOf(st.category(r)) == EventKind::PythonFunction;
        if (python && parentPython >= maxPythonDepth) {
            hidden[r] = 1;
            ++hiddenCount;
        }
        stack.push_back(Frame{parentPython + (python ? 1 : 0), -1});
    }
    if (hiddenCount == 0) return nullptr;

    std::unique_ptr<CondensedTrack> c(new CondensedTrack);
    c->m_hidden = hiddenCount;
    c->m_original.reserve(n - hiddenCount);
    c->m_shown.assign(n, -1);
    stack.clear();
    for (size_t r = 0; r < n; ++r) {
        const size_t d = std::min<size_t>(st.depth(r), stack.size());
        stack.resize(d);
        int32_t shown = d > 0 ? stack[d - 1].row : -1;
        if (!hidden[r]) {
            // Kept rows are a subsequence of the original order (start, enclosing first), which is
            // the order append() wants; it recomputes the nesting without the left-out frames.
            shown = int32_t(
                c->m_track.append(st.start(r), st.duration(r), st.name(r), st.category(r), st.args(r)));
            c->m_original.push_back(uint32_t(r));
        }
        c->m_shown[r] = shown;
        stack.push_back(Frame{0, shown});
    }
    c->m_lod = std::make_unique<SliceLod>(c->m_track);
    c->m_lod->update();
    return c;
}

int64_t CondensedTrack::shownRow(uint32_t originalRow) const
{
    return originalRow < m_shown.size() ? m_shown[originalRow] : -1;
}

size_t CondensedTrack::bytesUsed() const
{
    return m_track.bytesUsed() + m_lod->bytesUsed() + m_original.capacity() * sizeof(uint32_t) +
           m_shown.capacity() * sizeof(int32_t);
}

} // namespace ks
