#include "ui/timeline/timelinegeometry.h"

#include "ui/document/tracedocument.h"
#include "ui/timeline/highlight.h"

#include <QtConcurrent/QtConcurrentMap>
#include <algorithm>
#include <atomic>
#include <cmath>

namespace ks::ui {

void TimelineGeometry::reset(const TraceDocument* doc)
{
    m_doc = doc;
    m_key = Key{};
    m_tracks.clear();
    m_counters.clear();
    m_counterHold = std::numeric_limits<TimeNs>::min();
    m_highlightValid = false;
    m_highlightFor = nullptr;
    m_queries = 0;
    m_condensed.clear();
    if (doc) m_tracks.resize(doc->trace->trackCount());
    m_condensed.resize(m_tracks.size(), nullptr);
}

void TimelineGeometry::setCondensed(TrackId track, const CondensedTrack* condensed)
{
    if (track.value >= m_condensed.size() || m_condensed[track.value] == condensed) return;
    m_condensed[track.value] = condensed;
    invalidateTracks({track});
}

uint32_t TimelineGeometry::rowOf(TrackId track, const LodItem& item) const
{
    if (const CondensedTrack* c = condensed(track)) return c->originalRow(c->lod().rowOf(item));
    return m_doc->lod(track).rowOf(item);
}

bool TimelineGeometry::setKey(const Key& key)
{
    if (key == m_key) return false;
    m_key = key;
    for (TrackGeometry& g : m_tracks)
        g.itemsValid = g.rectsValid = false;
    m_counters.clear();
    m_highlightValid = false;
    return true;
}

void TimelineGeometry::grow(size_t trackCount)
{
    if (m_tracks.size() < trackCount) m_tracks.resize(trackCount);
    if (m_condensed.size() < trackCount) m_condensed.resize(trackCount, nullptr);
}

void TimelineGeometry::invalidateTracks(const std::vector<TrackId>& tracks)
{
    for (TrackId t : tracks) {
        if (t.value >= m_tracks.size()) continue;
        m_tracks[t.value].itemsValid = false;
        m_tracks[t.value].rectsValid = false;
    }
    // Highlight columns are per window, but new slices may match the highlight.
    m_highlightValid = false;
}

const std::vector<LodItem>& TimelineGeometry::sliceItems(TrackId track)
{
    TrackGeometry& g = m_tracks[track.value];
    if (!g.itemsValid) {
        g.items.clear();
        const CondensedTrack* c = condensed(track);
        (c ? c->lod() : m_doc->lod(track))
            .query(m_key.window.t0, m_key.window.t1, std::max(1, m_key.width), g.items);
        g.itemsValid = true;
        ++m_queries;
    }
    return g.items;
}

void TimelineGeometry::prefetch(const std::vector<TrackId>& tracks)
{
    std::vector<TrackGeometry*> todo;
    std::vector<const SliceLod*> lods;
    for (TrackId t : tracks) {
        TrackGeometry& g = m_tracks[t.value];
        if (!g.itemsValid) {
            todo.push_back(&g);
            const CondensedTrack* c = condensed(t);
            lods.push_back(c ? &c->lod() : &m_doc->lod(t));
        }
    }
    if (todo.size() < 2) {
        for (TrackId t : tracks)
            sliceItems(t);
        return;
    }
    // Tracks are independent: query them side by side (Tracy's parallel preprocessing).
    std::vector<size_t> jobs(todo.size());
    for (size_t i = 0; i < jobs.size(); ++i)
        jobs[i] = i;
    const Key key = m_key;
    QtConcurrent::blockingMap(jobs, [&](size_t i) {
        todo[i]->items.clear();
        lods[i]->query(key.window.t0, key.window.t1, std::max(1, key.width), todo[i]->items);
    });
    for (TrackGeometry* g : todo)
        g->itemsValid = true;
    m_queries += todo.size();
}

const std::vector<CounterColumn>& TimelineGeometry::counterColumns(const CounterTrack* counter)
{
    for (auto& [c, cols] : m_counters)
        if (c == counter) return cols;
    m_counters.emplace_back(counter, ks::counterColumns(*counter, m_key.window.t0, m_key.window.t1,
                                                        std::max(1, m_key.width), m_counterHold));
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
