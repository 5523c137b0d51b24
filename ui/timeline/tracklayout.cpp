#include "ui/timeline/tracklayout.h"

#include "ui/document/tracedocument.h"
#include "ui/timeline/timelinemetrics.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <algorithm>
#include <map>
#include <tuple>

namespace ks::ui {

namespace {

QString qstr(std::string_view s)
{
    return QString::fromUtf8(s.data(), qsizetype(s.size()));
}

// GPU names by device id from the deviceProperties metadata.
std::map<int64_t, QString> deviceNames(const Trace& t)
{
    std::map<int64_t, QString> out;
    const std::string* props = t.metadata().find("deviceProperties");
    if (!props) props = t.metadata().find("computeProperties");
    if (!props) return out;
    const QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(*props));
    const QJsonArray devices = doc.array();
    for (qsizetype i = 0; i < devices.size(); ++i) {
        const QJsonObject d = devices[i].toObject();
        const QString name = d.value(QLatin1String("name")).toString();
        if (!name.isEmpty()) out[d.value(QLatin1String("id")).toInteger(i)] = name;
    }
    return out;
}

struct GroupSpec {
    int order = 0; // pinned (-1), host main thread, GPU, host other threads, other, overhead, spans
    int64_t sortKey = 0;
    int64_t pid = 0;
    ProcessId process;
    bool gpu = false;
    QString title;
    QString subtitle;
    std::vector<TrackId> tracks;
    struct Counter {
        QString label;
        const CounterTrack* track;
        bool bytes;
    };
    std::vector<Counter> counters;
};

} // namespace

void TrackLayout::clear()
{
    m_rows.clear();
    m_groups.clear();
    m_rowOfTrack.clear();
    m_totalHeight = 0;
}

void TrackLayout::build(const TraceDocument& doc)
{
    clear();
    const Trace& t = *doc.trace;
    const auto gpuNames = deviceNames(t);
    // Key: (process, gpu part) -> spec.
    std::map<std::pair<uint32_t, bool>, GroupSpec> specs;
    auto specFor = [&](ProcessId pid, bool gpu) -> GroupSpec& {
        auto [it, fresh] = specs.try_emplace({pid.value, gpu});
        GroupSpec& g = it->second;
        if (fresh) {
            const Process& p = t.process(pid);
            g.process = pid;
            g.gpu = gpu;
            g.pid = p.pid.isString() ? 0 : p.pid.number;
            const QString pname = p.name.valid() ? qstr(t.str(p.name)) : QString();
            if (gpu) {
                const int dev = p.deviceId >= 0 ? p.deviceId : int(g.pid);
                g.order = 1;
                g.sortKey = dev;
                g.title = QStringLiteral("GPU %1").arg(dev);
                auto name = gpuNames.find(dev);
                g.subtitle = name != gpuNames.end() ? name->second : QString();
            } else {
                switch (p.kind) {
                case ProcessKind::Spans:
                    g.order = 5;
                    g.title = QStringLiteral("Profiler spans");
                    break;
                case ProcessKind::Overhead:
                    g.order = 4;
                    g.title = pname.isEmpty() ? QStringLiteral("Overhead") : pname;
                    break;
                case ProcessKind::Other:
                    g.order = 3;
                    g.title = qstr(t.processLabel(pid));
                    break;
                default:
                    g.order = 0;
                    g.title = pname.isEmpty() ? QStringLiteral("Process") : pname;
                    g.subtitle = QStringLiteral("pid ") + qstr(t.keyText(p.pid));
                    break;
                }
                g.sortKey = p.hasSortIndex ? p.sortIndex : g.pid;
            }
        }
        return g;
    };

    for (size_t i = 0; i < t.trackCount(); ++i) {
        const Track& tr = t.track(TrackId(uint32_t(i)));
        // Instant-only rows ("Iteration Start", "Record Window End") carry nothing to draw.
        if (tr.slices.empty()) continue;
        const bool gpu = tr.kind == TrackKind::GpuStream || tr.kind == TrackKind::GpuAnnotation;
        specFor(tr.process, gpu).tracks.push_back(tr.id);
    }
    // 2020 traces put the profiler span under pid "Traces" rather than "Spans".
    for (auto& [key, g] : specs) {
        const bool allSpans =
            !g.tracks.empty() && std::all_of(g.tracks.begin(), g.tracks.end(),
                                             [&](TrackId id) { return t.track(id).kind == TrackKind::Span; });
        if (allSpans && g.order != 5) {
            g.order = 5;
            g.title = QStringLiteral("Profiler spans");
            g.subtitle.clear();
        }
    }
    // Device memory goes with that device's streams; host memory with the host process.
    std::map<int, ProcessId> gpuProcessOfDevice;
    for (const auto& [key, g] : specs)
        if (g.gpu) gpuProcessOfDevice[int(g.sortKey)] = g.process;
    for (const MemorySeries& m : doc.memory) {
        if (!m.process.valid() || m.allocated->size() == 0) continue;
        auto dev =
            m.deviceType != 0 ? gpuProcessOfDevice.find(std::max(0, m.deviceId)) : gpuProcessOfDevice.end();
        GroupSpec& g =
            dev != gpuProcessOfDevice.end() ? specFor(dev->second, true) : specFor(m.process, false);
        g.counters.push_back({QString::fromStdString(m.label), m.allocated.get(), true});
    }
    // HTA's queue length and memcpy bandwidth go with the GPU whose streams they count.
    for (const hta::CounterSeries& c : doc.htaCounters)
        if (c.process.valid())
            specFor(c.process, true)
                .counters.push_back({QString::fromStdString(c.label), c.track.get(), false});
    for (size_t i = 0; i < t.counterCount(); ++i) {
        const CounterTrack& c = t.counter(CounterTrackId(uint32_t(i)));
        if (c.size() == 0) continue;
        QString label = qstr(t.str(c.name()));
        if (c.series().valid() && !t.str(c.series()).empty())
            label += QStringLiteral(" · ") + qstr(t.str(c.series()));
        specFor(c.process(), t.process(c.process()).kind == ProcessKind::Gpu)
            .counters.push_back({label, &c, false});
    }

    // Steps are recorded on the thread that drives the loop: that is the main thread.
    std::vector<uint8_t> hasSteps(t.trackCount(), 0);
    for (size_t i = 0; i < t.steps().size(); ++i)
        if (t.steps()[i].slice.track.valid()) hasSteps[t.steps()[i].slice.track.value] = 1;
    auto isMain = [&](const GroupSpec& g, TrackId id) {
        const Track& x = t.track(id);
        return hasSteps[id.value] || (!x.tid.isString() && x.tid.number == g.pid);
    };

    std::vector<GroupSpec> list;
    bool anyGpu = false;
    for (auto& [key, g] : specs) {
        anyGpu |= g.gpu;
        list.push_back(std::move(g));
    }
    // The primary host process is the one whose thread records the steps, else the busiest; other
    // host processes follow the GPUs.
    GroupSpec* primary = nullptr;
    size_t primarySlices = 0;
    bool primaryHasSteps = false;
    for (GroupSpec& g : list) {
        if (g.order != 0) continue;
        size_t n = 0;
        bool steps = false;
        for (TrackId id : g.tracks) {
            n += t.slices(id).size();
            steps |= hasSteps[id.value] != 0;
        }
        if (!primary || (steps && !primaryHasSteps) || (steps == primaryHasSteps && n > primarySlices)) {
            primary = &g;
            primarySlices = n;
            primaryHasSteps = steps;
        }
    }
    for (GroupSpec& g : list)
        if (g.order == 0 && &g != primary) g.order = 2;
    // Main thread first, then the GPU streams, then the host's other threads: what a training step
    // does on the host and on the device is then visible together without scrolling.
    if (anyGpu) {
        const size_t n = list.size();
        for (size_t i = 0; i < n; ++i) {
            GroupSpec& g = list[i];
            if (g.order != 0 || g.tracks.size() < 2) continue;
            auto mainIt =
                std::find_if(g.tracks.begin(), g.tracks.end(), [&](TrackId id) { return isMain(g, id); });
            if (mainIt == g.tracks.end())
                mainIt = std::max_element(g.tracks.begin(), g.tracks.end(), [&](TrackId a, TrackId b) {
                    return t.slices(a).size() < t.slices(b).size();
                });
            GroupSpec rest;
            rest.order = 2;
            rest.sortKey = g.sortKey;
            rest.pid = g.pid;
            rest.process = g.process;
            rest.title = g.title + QStringLiteral(" · other threads");
            rest.subtitle = g.subtitle;
            for (TrackId id : g.tracks)
                if (id != *mainIt) rest.tracks.push_back(id);
            const TrackId mainTrack = *mainIt;
            g.tracks = {mainTrack};
            list.push_back(std::move(rest));
        }
    }
    // Pinned tracks leave their groups for one above all others.
    if (!m_pinned.empty()) {
        GroupSpec pinned;
        pinned.order = -1;
        pinned.title = QStringLiteral("Pinned");
        for (TrackId id : m_pinned) {
            for (GroupSpec& g : list) {
                auto it = std::find(g.tracks.begin(), g.tracks.end(), id);
                if (it == g.tracks.end()) continue;
                g.tracks.erase(it);
                pinned.tracks.push_back(id);
                break;
            }
        }
        if (!pinned.tracks.empty()) list.push_back(std::move(pinned));
    }
    std::vector<GroupSpec*> order;
    for (GroupSpec& g : list)
        if (g.order < 0 || !g.tracks.empty() || !g.counters.empty()) order.push_back(&g);
    std::stable_sort(order.begin(), order.end(), [](const GroupSpec* a, const GroupSpec* b) {
        return std::tie(a->order, a->sortKey, a->pid) < std::tie(b->order, b->sortKey, b->pid);
    });

    m_rowOfTrack.assign(t.trackCount(), -1);
    for (GroupSpec* g : order) {
        auto& tracks = g->tracks;
        if (g->order < 0) {
            // Pinned: in the order they were pinned.
        } else if (g->gpu) {
            std::stable_sort(tracks.begin(), tracks.end(), [&](TrackId a, TrackId b) {
                const Track& x = t.track(a);
                const Track& y = t.track(b);
                // Annotations sit right above the stream they describe.
                return std::make_tuple(x.stream, x.kind != TrackKind::GpuAnnotation, x.id.value) <
                       std::make_tuple(y.stream, y.kind != TrackKind::GpuAnnotation, y.id.value);
            });
        } else {
            auto key = [&](TrackId id) {
                const Track& x = t.track(id);
                const int64_t tid = x.tid.isString() ? INT64_MAX : x.tid.number;
                const bool main = isMain(*g, id);
                return std::make_tuple(main ? 0 : 1, x.hasSortIndex ? x.sortIndex : tid, tid, x.id.value);
            };
            std::stable_sort(tracks.begin(), tracks.end(),
                             [&](TrackId a, TrackId b) { return key(a) < key(b); });
        }
        Group group;
        group.title = g->title;
        group.subtitle = g->subtitle;
        group.gpu = g->gpu;
        group.pinned = g->order < 0;
        group.headerRow = int(m_rows.size());
        const int gi = int(m_groups.size());
        Row header;
        header.kind = RowKind::GroupHeader;
        header.group = gi;
        header.label = g->title;
        header.detail = g->subtitle;
        header.height = metrics::kGroupHeaderHeight;
        m_rows.push_back(header);
        for (TrackId id : tracks) {
            const Track& tr = t.track(id);
            Row r;
            r.kind = RowKind::Slices;
            r.group = gi;
            r.track = id;
            r.label = qstr(t.trackLabel(id));
            if (tr.kind == TrackKind::GpuAnnotation)
                r.label = QStringLiteral("Stream %1 · annotations").arg(tr.stream);
            if (tr.kind == TrackKind::CpuThread)
                r.detail = QStringLiteral("tid ") + qstr(t.keyText(tr.tid));
            else if (tr.kind == TrackKind::GpuStream || tr.kind == TrackKind::GpuAnnotation)
                r.detail = QStringLiteral("stream ") + QString::number(tr.stream);
            group.rows.push_back(int(m_rows.size()));
            m_rowOfTrack[id.value] = int(m_rows.size());
            m_rows.push_back(r);
        }
        for (const auto& c : g->counters) {
            Row r;
            r.kind = RowKind::Counter;
            r.group = gi;
            r.counter = c.track;
            r.label = c.label;
            r.bytes = c.bytes;
            group.rows.push_back(int(m_rows.size()));
            m_rows.push_back(r);
        }
        m_groups.push_back(std::move(group));
    }
    // Row heights depend on nesting depth.
    for (Row& r : m_rows) {
        if (r.kind == RowKind::Slices) {
            const int full = std::max<int>(1, int(t.slices(r.track).levelCount()));
            r.depthCount = full;
            if (const CondensedTrack* c = doc.condensedTrack(r.track)) {
                const int folded = std::max<int>(1, int(c->track().levelCount()));
                r.foldedLevels = std::max(0, full - folded);
                r.stackUnfolded = m_unfoldByDefault;
                if (!r.stackUnfolded) r.depthCount = folded;
            }
            r.height = r.depthCount * metrics::kSliceRowHeight + 2 * metrics::kTrackPadding;
        } else if (r.kind == RowKind::Counter) {
            r.height = metrics::kCounterHeight;
        }
    }
    relayout();
}

void TrackLayout::relayout()
{
    int y = 0;
    for (const Group& g : m_groups) {
        Row& h = m_rows[g.headerRow];
        h.y = y;
        h.visible = true;
        y += h.height;
        for (int ri : g.rows) {
            Row& r = m_rows[ri];
            r.visible = !g.collapsed && !(r.kind == RowKind::Slices && isTrackHidden(r.track));
            r.y = y;
            if (r.visible) y += r.height;
        }
    }
    m_totalHeight = y;
}

void TrackLayout::setCollapsed(int group, bool collapsed)
{
    if (group < 0 || group >= int(m_groups.size())) return;
    m_groups[group].collapsed = collapsed;
    relayout();
}

void TrackLayout::setAllCollapsed(bool collapsed)
{
    for (Group& g : m_groups)
        g.collapsed = collapsed;
    relayout();
}

void TrackLayout::setStackUnfolded(int row, bool unfolded)
{
    if (row < 0 || row >= int(m_rows.size())) return;
    Row& r = m_rows[size_t(row)];
    if (r.foldedLevels == 0 || r.stackUnfolded == unfolded) return;
    r.stackUnfolded = unfolded;
    r.depthCount += unfolded ? r.foldedLevels : -r.foldedLevels;
    r.height = r.depthCount * metrics::kSliceRowHeight + 2 * metrics::kTrackPadding;
    relayout();
}

void TrackLayout::setTrackHidden(TrackId track, bool hidden)
{
    const auto it = std::find(m_hidden.begin(), m_hidden.end(), track);
    if (hidden == (it != m_hidden.end())) return;
    if (hidden)
        m_hidden.push_back(track);
    else
        m_hidden.erase(it);
    relayout();
}

bool TrackLayout::isTrackHidden(TrackId track) const
{
    return std::find(m_hidden.begin(), m_hidden.end(), track) != m_hidden.end();
}

void TrackLayout::showAllTracks()
{
    m_hidden.clear();
    relayout();
}

void TrackLayout::setTrackPinned(TrackId track, bool pinned)
{
    const auto it = std::find(m_pinned.begin(), m_pinned.end(), track);
    if (pinned == (it != m_pinned.end())) return;
    if (pinned)
        m_pinned.push_back(track);
    else
        m_pinned.erase(it);
}

bool TrackLayout::isTrackPinned(TrackId track) const
{
    return std::find(m_pinned.begin(), m_pinned.end(), track) != m_pinned.end();
}

void TrackLayout::resetTrackState()
{
    m_hidden.clear();
    m_pinned.clear();
}

void TrackLayout::restoreTrackState(std::vector<TrackId> hidden, std::vector<TrackId> pinned)
{
    m_hidden = std::move(hidden);
    m_pinned = std::move(pinned);
}

int TrackLayout::rowAt(int y) const
{
    if (y < 0 || y >= m_totalHeight) return -1;
    // Rows are in y order; hidden rows share their successor's y, so search then skip them.
    auto it = std::upper_bound(m_rows.begin(), m_rows.end(), y, [](int v, const Row& r) { return v < r.y; });
    for (auto k = it; k != m_rows.begin();) {
        --k;
        if (k->visible && y < k->y + k->height) return int(k - m_rows.begin());
        if (k->visible) break;
    }
    return -1;
}

std::vector<int> TrackLayout::rowsIn(int y0, int y1) const
{
    std::vector<int> out;
    for (size_t i = 0; i < m_rows.size(); ++i) {
        const Row& r = m_rows[i];
        if (r.visible && r.y < y1 && r.y + r.height > y0) out.push_back(int(i));
    }
    return out;
}

int TrackLayout::rowOfTrack(TrackId track) const
{
    return track.value < m_rowOfTrack.size() ? m_rowOfTrack[track.value] : -1;
}

int TrackLayout::displayRowOfTrack(TrackId track) const
{
    const int row = rowOfTrack(track);
    if (row < 0) return -1;
    return m_rows[row].visible ? row : m_groups[m_rows[row].group].headerRow;
}

std::vector<TrackId> TrackLayout::tracksIn(int y0, int y1) const
{
    std::vector<TrackId> out;
    for (int i : rowsIn(y0, y1 + 1)) {
        const Row& r = m_rows[i];
        if (r.kind == RowKind::Slices) {
            out.push_back(r.track);
        } else if (r.kind == RowKind::GroupHeader && m_groups[r.group].collapsed) {
            for (int k : m_groups[r.group].rows)
                if (m_rows[k].kind == RowKind::Slices) out.push_back(m_rows[k].track);
        }
    }
    return out;
}

} // namespace ks::ui
