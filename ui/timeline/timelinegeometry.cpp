#include "timeline/timelinegeometry.h"

#include "document/tracedocument.h"
#include "timeline/highlight.h"

#include <algorithm>
#include <cmath>

namespace ks::ui {

void TimelineGeometry::reset(const TraceDocument* doc)
{
    m_doc = doc;
    m_key = Key{};
    m_items.clear();
    m_itemsValid.clear();
    m_counters.clear();
    m_highlightValid = false;
    m_highlightFor = nullptr;
    m_queries = 0;
    if (doc) {
        m_items.resize(doc->trace->trackCount());
        m_itemsValid.assign(doc->trace->trackCount(), 0);
    }
}

bool TimelineGeometry::setKey(const Key& key)
{
    if (key == m_key) return false;
    m_key = key;
    std::fill(m_itemsValid.begin(), m_itemsValid.end(), 0);
    m_counters.clear();
    m_highlightValid = false;
    return true;
}

const std::vector<LodItem>& TimelineGeometry::sliceItems(TrackId track)
{
    std::vector<LodItem>& items = m_items[track.value];
    if (!m_itemsValid[track.value]) {
        items.clear();
        m_doc->lod(track).query(m_key.window.t0, m_key.window.t1, std::max(1, m_key.width), items);
        m_itemsValid[track.value] = 1;
        ++m_queries;
    }
    return items;
}

const std::vector<CounterColumn>& TimelineGeometry::counterColumns(const CounterTrack* counter)
{
    for (auto& [c, cols] : m_counters)
        if (c == counter) return cols;
    m_counters.emplace_back(
        counter, ks::counterColumns(*counter, m_key.window.t0, m_key.window.t1, std::max(1, m_key.width)));
    ++m_queries;
    return m_counters.back().second;
}

const std::vector<int>& TimelineGeometry::highlightColumns(const Highlight* h)
{
    if (m_highlightValid && m_highlightFor == h) return m_highlightColumns;
    m_highlightColumns.clear();
    m_highlightFor = h;
    m_highlightValid = true;
    if (!h || h->occurrences.empty() || !m_doc) return m_highlightColumns;
    const Trace& t = *m_doc->trace;
    const auto& occ = h->occurrences;
    auto startOf = [&](SliceRef r) { return t.slices(r.track).start(r.index); };
    const double nsPerPx = double(m_key.window.span()) / std::max(1, m_key.width);
    // Jump from column to column: cost grows with the width, not with the number of matches.
    size_t i = size_t(std::lower_bound(occ.begin(), occ.end(), m_key.window.t0,
                                       [&](SliceRef r, TimeNs key) { return startOf(r) < key; }) -
                      occ.begin());
    while (i < occ.size()) {
        const TimeNs s = startOf(occ[i]);
        if (s > m_key.window.t1) break;
        const int col = int(std::floor(double(s - m_key.window.t0) / nsPerPx));
        m_highlightColumns.push_back(col);
        const TimeNs next = m_key.window.t0 + TimeNs(std::ceil((col + 1) * nsPerPx));
        i = size_t(std::lower_bound(occ.begin() + i + 1, occ.end(), std::max(next, s + 1),
                                    [&](SliceRef r, TimeNs key) { return startOf(r) < key; }) -
                   occ.begin());
    }
    return m_highlightColumns;
}

} // namespace ks::ui
