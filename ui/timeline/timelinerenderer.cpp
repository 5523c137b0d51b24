#include "ui/timeline/timelinerenderer.h"

#include "core/analysis/timeline/counterlod.h"
#include "ui/document/tracedocument.h"
#include "ui/timeline/highlight.h"
#include "ui/timeline/timelinemetrics.h"
#include "ui/timeline/timelinestate.h"
#include "ui/timeline/trackmemory.h"
#include "ui/util/format.h"
#include "ui/util/theme.h"

#include <QGuiApplication>
#include <QPaintEngine>
#include <QPainter>
#include <QPainterPath>
#include <algorithm>
#include <cmath>
#include <cstring>

namespace ks::ui {

namespace {

// The first text drawn in a font loads its engine and rasterises its glyphs: 5 ms of the first
// frame in bench_render. Done here, when the view is made, the first frame after a trace opens
// finds them cached (the caches are per font engine, shared by every raster paint device).
void warmFonts(std::initializer_list<const QFont*> fonts)
{
    if (!qobject_cast<QGuiApplication*>(QCoreApplication::instance())) return;
    QString ascii;
    for (char16_t ch = 0x20; ch < 0x7f; ++ch)
        ascii += QChar(ch);
    QImage scratch(1024, 16, QImage::Format_ARGB32_Premultiplied);
    QPainter p(&scratch);
    p.setRenderHint(QPainter::TextAntialiasing, true);
    for (const QFont* font : fonts) {
        p.setFont(*font);
        p.drawText(0, 12, ascii);
    }
}

} // namespace

TimelineRenderer::TimelineRenderer()
{
    m_sliceFont.setPixelSize(11);
    m_labelFont.setPixelSize(12);
    m_groupFont.setPixelSize(12);
    m_groupFont.setBold(true);
    m_detailFont.setPixelSize(10);
    m_buckets.resize(SliceColors::kCount);
    // The ruler's fonts are the slice and detail fonts' sizes.
    warmFonts({&m_sliceFont, &m_labelFont, &m_groupFont, &m_detailFont});
}

void TimelineRenderer::setDocument(const TraceDocument* doc)
{
    // Another trace: its tracks that were hidden or pinned before (in any trace with tracks of
    // the same names) are again.
    if (doc != m_doc)
        m_layout.restoreTrackState(doc ? TrackMemory::hidden(*doc->trace) : std::vector<TrackId>{},
                                   doc ? TrackMemory::pinned(*doc->trace) : std::vector<TrackId>{});
    m_doc = doc;
    m_names.clear();
    m_nameReady.clear();
    m_textWidths.clear();
    m_counterRanges.clear();
    m_colors.reset(doc ? doc->trace.get() : nullptr);
    m_geometry.reset(doc);
    if (doc) {
        m_layout.build(*doc);
        syncFoldedStacks();
        const Trace& t = *doc->trace;
        std::vector<Step> steps;
        for (size_t i = 0; i < t.steps().size(); ++i)
            steps.push_back(t.steps()[i]);
        m_ruler.setSteps(std::move(steps), t.startTime());
    } else {
        m_layout.clear();
        m_ruler.setSteps({}, 0);
    }
}

void TimelineRenderer::rebuildLayout()
{
    if (!m_doc) return;
    std::vector<QString> collapsed;
    for (const TrackLayout::Group& g : m_layout.groups())
        if (g.collapsed) collapsed.push_back(g.title);
    m_layout.build(*m_doc);
    const auto& groups = m_layout.groups();
    for (size_t i = 0; i < groups.size(); ++i)
        if (std::find(collapsed.begin(), collapsed.end(), groups[i].title) != collapsed.end())
            m_layout.setCollapsed(int(i), true);
    syncFoldedStacks();
}

void TimelineRenderer::documentGrew(bool structureChanged)
{
    if (!m_doc) return;
    const Trace& t = *m_doc->trace;
    m_counterRanges.clear();
    m_geometry.grow(t.trackCount());
    m_geometry.invalidateCounters();
    // The run goes on: a counter (memory, RSS) stands at its last value until now, the trace's end,
    // instead of stopping short where its last sample (or the last analysis) was.
    m_geometry.setCounterHold(t.endTime());
    if (structureChanged) rebuildLayout();
    if (t.steps().size() != m_ruler.steps().size() || t.startTime() != m_ruler.origin()) {
        std::vector<Step> steps;
        steps.reserve(t.steps().size());
        for (size_t i = 0; i < t.steps().size(); ++i)
            steps.push_back(t.steps()[i]);
        m_ruler.setSteps(std::move(steps), t.startTime());
    }
}

void TimelineRenderer::syncFoldedStacks()
{
    for (const TrackLayout::Row& r : m_layout.rows())
        if (r.kind == TrackLayout::RowKind::Slices)
            m_geometry.setCondensed(
                r.track, r.foldedLevels > 0 && !r.stackUnfolded ? m_doc->condensedTrack(r.track) : nullptr);
}

void TimelineRenderer::setStackUnfolded(int row, bool unfolded)
{
    m_layout.setStackUnfolded(row, unfolded);
    syncFoldedStacks();
}

int TimelineRenderer::displayDepth(SliceRef r) const
{
    if (const CondensedTrack* c = m_geometry.condensed(r.track)) {
        const int64_t shown = c->shownRow(r.index);
        return shown < 0 ? 0 : c->track().depth(size_t(shown));
    }
    return m_doc->trace->slices(r.track).depth(r.index);
}

TimelineCoords TimelineRenderer::coords(const QSize& size, const TimelineState& s) const
{
    return TimelineCoords{size, s.window, headerHeight(), s.scrollY};
}

const QString& TimelineRenderer::name(StringId id)
{
    static const QString kEmpty;
    if (!m_doc || !id.valid()) return kEmpty;
    if (id.value >= m_names.size()) {
        const size_t n = m_doc->trace->strings().size();
        m_names.resize(n);
        m_nameReady.resize(n, 0);
        m_textWidths.resize(n, -1);
    }
    if (!m_nameReady[id.value]) {
        m_names[id.value] = displayName(m_doc->trace->str(id));
        m_nameReady[id.value] = 1;
    }
    return m_names[id.value];
}

int TimelineRenderer::textWidth(StringId id)
{
    const QString& n = name(id);
    int& w = m_textWidths[id.value];
    if (w < 0) w = QFontMetrics(m_sliceFont).horizontalAdvance(n);
    return w;
}

std::pair<double, double> TimelineRenderer::counterRange(const CounterTrack* counter)
{
    auto it = m_counterRanges.find(counter);
    if (it != m_counterRanges.end()) return it->second;
    double lo, hi;
    ks::counterRange(*counter, lo, hi);
    lo = std::min(0.0, lo);
    if (hi <= lo) hi = lo + 1;
    return m_counterRanges[counter] = {lo, hi};
}

QRectF TimelineRenderer::sliceRect(const TimelineCoords& c, SliceRef r) const
{
    if (!m_doc || !r.valid()) return {};
    const int ri = m_layout.rowOfTrack(r.track);
    if (ri < 0 || !m_layout.rows()[ri].visible) return {};
    const TrackLayout::Row& row = m_layout.rows()[ri];
    const SliceTrack& st = m_doc->trace->slices(r.track);
    const double x0 = c.x(st.start(r.index));
    const double x1 = c.x(st.end(r.index));
    const int y = c.y(row.y) + metrics::kTrackPadding + displayDepth(r) * metrics::kSliceRowHeight;
    return QRectF(x0, y, std::max(1.0, x1 - x0), metrics::kSliceRowHeight - 1);
}

double TimelineRenderer::sliceCenterY(const TimelineCoords& c, SliceRef r) const
{
    const QRectF rect = sliceRect(c, r);
    if (!rect.isEmpty()) return rect.center().y();
    const int ri = m_layout.displayRowOfTrack(r.track);
    if (ri < 0) return -1;
    const TrackLayout::Row& row = m_layout.rows()[ri];
    return c.y(row.y) + row.height / 2.0;
}

void TimelineRenderer::paint(QPainter& p, const QSize& size, const TimelineState& s)
{
    p.setRenderHint(QPainter::Antialiasing, false);
    p.setRenderHint(QPainter::TextAntialiasing, true);
    const TimelineCoords c = coords(size, s);
    p.fillRect(QRect(QPoint(0, 0), size), Theme::palette().base);
    if (!m_doc) return;
    m_geometry.setKey(TimelineGeometry::Key{s.window, c.trackWidth()});
    const std::vector<RulerTick> ticks =
        rulerTicks(s.window.t0, s.window.t1, c.trackWidth(), m_doc->trace->startTime());
    const std::vector<int> rows = m_layout.rowsIn(s.scrollY, s.scrollY + c.viewHeight());

    const QRect trackArea(c.trackLeft(), c.headerHeight, c.trackWidth(), c.viewHeight());
    p.save();
    p.setClipRect(trackArea);
    // Step bands and grid lines lie under everything.
    const auto& steps = m_ruler.steps();
    for (size_t i = 0; i < steps.size(); ++i) {
        const double x0 = c.x(steps[i].start), x1 = c.x(steps[i].end);
        if (x1 < c.trackLeft() || x0 > size.width()) continue;
        if (i % 2) p.fillRect(QRectF(x0, c.headerHeight, x1 - x0, c.viewHeight()), Theme::palette().stepBand);
    }
    p.setPen(Theme::palette().grid);
    for (const RulerTick& t : ticks)
        if (t.major) p.drawLine(int(c.x(t.time)), c.headerHeight, int(c.x(t.time)), size.height());
    p.setPen(Theme::palette().stepLine);
    for (const Step& st : steps) {
        p.drawLine(int(c.x(st.start)), c.headerHeight, int(c.x(st.start)), size.height());
        p.drawLine(int(c.x(st.end)), c.headerHeight, int(c.x(st.end)), size.height());
    }
    paintTracks(p, c, s, rows);

    if (s.hasRange) {
        const double x0 = c.x(s.rangeT0), x1 = c.x(s.rangeT1);
        p.fillRect(QRectF(x0, c.headerHeight, x1 - x0, c.viewHeight()),
                   withAlpha(Theme::palette().selection, 22));
        const int y0 = c.y(s.rangeY0), y1 = c.y(s.rangeY1);
        p.fillRect(QRectF(x0, y0, x1 - x0, y1 - y0), withAlpha(Theme::palette().selection, 40));
        p.setPen(Theme::palette().link);
        p.drawLine(QPointF(x0, c.headerHeight), QPointF(x0, size.height()));
        p.drawLine(QPointF(x1, c.headerHeight), QPointF(x1, size.height()));
    }
    paintSelection(p, c, s);
    paintArrows(p, c, s);
    if (s.hoverX >= c.trackLeft() && !s.hasRange) {
        p.setPen(withAlpha(Theme::palette().text, 70));
        p.drawLine(s.hoverX, c.headerHeight, s.hoverX, size.height());
    }
    p.restore();

    paintLabels(p, c, rows);
    m_ruler.paint(p, c, s, ticks, m_geometry.highlightColumns(s.highlight));
}

TrackGeometry& TimelineRenderer::builtTrack(const TimelineCoords& c, TrackId track)
{
    TrackGeometry& g = m_geometry.track(track);
    if (g.rectsValid && g.itemsValid) return g;
    const std::vector<LodItem>& items = m_geometry.sliceItems(track);
    const Trace& t = *m_doc->trace;
    const double left = c.trackLeft() - 2, right = c.size.width() + 2;
    // c.x() with its division hoisted: the same arithmetic, so the same pixels.
    const double origin = c.trackLeft();
    const TimeNs t0 = c.window.t0;
    const double pxPerNs = c.pxPerNs();
    g.itemColor.resize(items.size());
    g.rects.resize(items.size());
    g.batches.clear();
    g.labels.clear();
    // Items come depth by depth. Each depth is sorted by colour (counting sort): the stripe of a
    // depth (paintStripes) is laid out from its batches in colour order, and without stripes a batch
    // is one drawRects call. Depths never overlap and within a depth the colours keep the order
    // they had when the whole track was sorted by colour, so the pixels are the same.
    StringId lastCategory;
    EventKind lastKind = t.kindOf(lastCategory);
    uint32_t out = 0;
    size_t first = 0;
    while (first < items.size()) {
        const uint16_t depth = items[first].depth;
        size_t last = first;
        m_colorCounts.assign(SliceColors::kCount + 1, 0);
        for (; last < items.size() && items[last].depth == depth; ++last) {
            const LodItem& it = items[last];
            if (it.category != lastCategory) {
                lastCategory = it.category;
                lastKind = t.kindOf(it.category);
            }
            const uint8_t ci = m_colors.indexOf(it.name, lastKind);
            g.itemColor[last] = ci;
            ++m_colorCounts[ci + 1];
        }
        for (int ci = 1; ci <= SliceColors::kCount; ++ci)
            m_colorCounts[ci] += m_colorCounts[ci - 1];
        // m_colorCounts[ci] is where colour ci starts within this depth's rects.
        const int y = metrics::kTrackPadding + depth * metrics::kSliceRowHeight;
        for (size_t i = first; i < last; ++i) {
            const LodItem& it = items[i];
            double x0 = origin + double(it.start - t0) * pxPerNs;
            double x1 = origin + double(it.end - t0) * pxPerNs;
            QRect r;
            if (x1 >= left && x0 <= right) {
                x0 = std::max(x0, left);
                x1 = std::min(x1, right);
                // Both are positive here (left > 0): truncation is floor, and ceil is one compare
                // (std::floor and std::ceil are not inlined without SSE4.1).
                const int ix0 = int(x0);
                const int ix1 = int(x1) + (double(int(x1)) < x1 ? 1 : 0);
                int w = std::max(1, ix1 - ix0);
                // A one-pixel gap separates neighbours that are wide enough to afford it.
                if (w >= 4) w -= 1;
                r = QRect(ix0, y, w, metrics::kSliceRowHeight - 1);
                if (w >= metrics::kMinLabelTextWidth)
                    g.labels.push_back(TrackGeometry::Label{r, it.name, g.itemColor[i]});
            } // else outside the window horizontally: an empty rect paints nothing
            g.rects[out + m_colorCounts[g.itemColor[i]]++] = r;
        }
        uint32_t end = out;
        for (int ci = 0; ci < SliceColors::kCount; ++ci) {
            if (m_colorCounts[ci] == end - out) continue;
            end = out + m_colorCounts[ci];
            g.batches.push_back(TrackGeometry::Batch{end, depth, uint8_t(ci)});
        }
        out = end;
        first = last;
    }
    g.rectsValid = true;
    return g;
}

void TimelineRenderer::paintTracks(QPainter& p, const TimelineCoords& c, const TimelineState& s,
                                   const std::vector<int>& rows)
{
    const auto& all = m_layout.rows();
    std::vector<TrackId> visibleTracks;
    for (int ri : rows) {
        const TrackLayout::Row& row = all[ri];
        if (row.kind == TrackLayout::RowKind::Slices)
            visibleTracks.push_back(row.track);
        else if (row.kind == TrackLayout::RowKind::GroupHeader && m_layout.groups()[row.group].collapsed)
            for (int k : m_layout.groups()[row.group].rows)
                if (all[k].kind == TrackLayout::RowKind::Slices) visibleTracks.push_back(all[k].track);
    }
    m_geometry.prefetch(visibleTracks);

    for (auto& b : m_buckets)
        b.clear();
    for (int ri : rows) {
        const TrackLayout::Row& row = all[ri];
        const int y = c.y(row.y);
        if (row.kind == TrackLayout::RowKind::GroupHeader) {
            p.fillRect(QRect(c.trackLeft(), y, c.trackWidth(), row.height), Theme::palette().groupHeader);
            // A collapsed group still shows when its tracks are busy: their outermost level.
            if (m_layout.groups()[row.group].collapsed) {
                for (int k : m_layout.groups()[row.group].rows) {
                    if (all[k].kind != TrackLayout::RowKind::Slices) continue;
                    const TrackGeometry& g = builtTrack(c, all[k].track);
                    for (size_t i = 0; i < g.items.size() && g.items[i].depth == 0; ++i) {
                        const LodItem& it = g.items[i];
                        const double x0 = std::max<double>(c.x(it.start), c.trackLeft() - 1);
                        const double x1 = std::min<double>(c.x(it.end), c.size.width() + 1);
                        if (x1 < x0) continue;
                        const int ix0 = int(std::floor(x0));
                        m_buckets[g.itemColor[i]].emplace_back(
                            ix0, y + 7, std::max(1, int(std::ceil(x1)) - ix0), row.height - 14);
                    }
                }
            }
        } else if (row.kind == TrackLayout::RowKind::Slices) {
            paintSliceRow(p, c, row, s);
        } else {
            paintCounterRow(p, c, row);
        }
        p.setPen(Theme::palette().separator);
        p.drawLine(c.trackLeft(), y + row.height - 1, c.size.width(), y + row.height - 1);
    }
    p.setPen(Qt::NoPen);
    for (int ci = 0; ci < SliceColors::kCount; ++ci) {
        if (m_buckets[ci].empty()) continue;
        p.setBrush(m_colors.color(uint8_t(ci)));
        p.drawRects(m_buckets[ci].data(), int(m_buckets[ci].size()));
    }
    p.setBrush(Qt::NoBrush);
}

void TimelineRenderer::paintSliceRow(QPainter& p, const TimelineCoords& c, const TrackLayout::Row& row,
                                     const TimelineState& s)
{
    TrackGeometry& g = builtTrack(c, row.track);
    const int top = c.y(row.y);
    p.save();
    p.translate(0, top);
    p.setPen(Qt::NoPen);
    if (canBlitStripes(p)) {
        paintStripes(p, c, g, top);
    } else {
        uint32_t begin = 0;
        for (const TrackGeometry::Batch& b : g.batches) {
            p.setBrush(m_colors.brush(b.color));
            p.drawRects(g.rects.data() + begin, int(b.end - begin));
            begin = b.end;
        }
        p.setBrush(Qt::NoBrush);
    }
    if (!g.labels.empty()) {
        p.setFont(m_sliceFont);
        const QFontMetrics fm(m_sliceFont);
        // The visible part of the track, in the track's own coordinates.
        const QRect area(c.trackLeft(), c.headerHeight - top, c.trackWidth(), c.viewHeight());
        for (const TrackGeometry::Label& l : g.labels) {
            if (l.rect.bottom() < area.top() || l.rect.top() > area.bottom()) continue;
            // Keep the label of a box that runs off the left edge in view.
            const QRect r = l.rect.intersected(area).adjusted(4, 0, -3, 0);
            if (r.width() < metrics::kMinLabelTextWidth - 7) continue;
            const QString& full = name(l.name);
            const QString text =
                textWidth(l.name) <= r.width() ? full : fm.elidedText(full, Qt::ElideRight, r.width());
            if (text.size() <= 1) continue;
            p.setPen(m_colors.textColor(l.color));
            p.drawText(r, Qt::AlignVCenter | Qt::AlignLeft, text);
        }
    }
    if (s.highlight) {
        m_highlightRects.clear();
        for (size_t i = 0; i < g.items.size(); ++i) {
            if (!s.highlight->matchesName(g.items[i].name)) continue;
            const LodItem& it = g.items[i];
            if (!s.highlight->matchesExact(row.track, it.start, it.end)) continue;
            const double x0 = std::max<double>(c.x(it.start), c.trackLeft() - 2);
            const double x1 = std::min<double>(c.x(it.end), c.size.width() + 2);
            if (x1 < x0) continue;
            const int ix0 = int(std::floor(x0));
            m_highlightRects.emplace_back(ix0, metrics::kTrackPadding + it.depth * metrics::kSliceRowHeight,
                                          std::max(1, int(std::ceil(x1)) - ix0),
                                          metrics::kSliceRowHeight - 1);
        }
        if (!m_highlightRects.empty()) {
            p.setPen(QPen(Theme::palette().highlight, 2));
            p.drawRects(m_highlightRects.data(), int(m_highlightRects.size()));
        }
    }
    p.restore();
}

bool TimelineRenderer::canBlitStripes(QPainter& p) const
{
    // Only where a blit lands on the same device pixels as the rectangles would: Qt's raster
    // engine (it draws an image at once, so the stripe buffer can be refilled for the next depth),
    // no scaling (a high-DPI screen takes drawRects), plain source-over with opaque colours.
    if (!m_stripeBlits || !m_colors.opaque()) return false;
    const QPaintEngine* engine = p.paintEngine();
    if (!engine || engine->type() != QPaintEngine::Raster) return false;
    const QTransform t = p.deviceTransform();
    return t.type() <= QTransform::TxTranslate && t.dx() == std::floor(t.dx()) &&
           t.dy() == std::floor(t.dy()) && p.opacity() == 1.0 &&
           p.compositionMode() == QPainter::CompositionMode_SourceOver;
}

void TimelineRenderer::paintStripes(QPainter& p, const TimelineCoords& c, const TrackGeometry& g, int top)
{
    // A depth's rectangles all share one row of the image, fifteen pixels high. Qt fills each of
    // them row by row (a call per pixel row per rectangle: 40 ns for a 1x15 box, the bulk of a
    // zoomed-out frame), so they are laid into one line of colour indices instead, in the order
    // drawRects would paint them (a later colour over an earlier one), and the line is blitted as
    // a 15-row image: transparent where no slice is, so what lies under the slices still shows.
    const int left = c.trackLeft();
    const int width = c.trackWidth();
    const int height = metrics::kSliceRowHeight - 1;
    if (m_stripe.width() != width || m_stripe.height() != height)
        m_stripe = QImage(width, height, QImage::Format_ARGB32_Premultiplied);
    m_stripeOwner.resize(size_t(width));
    QRgb lut[SliceColors::kCount + 1];
    lut[0] = 0;
    for (int ci = 0; ci < SliceColors::kCount; ++ci)
        lut[ci + 1] = m_colors.color(uint8_t(ci)).rgba(); // opaque: premultiplied is the same
    // The visible rows, in the track's coordinates.
    const int visTop = c.headerHeight - top;
    const int visBottom = visTop + c.viewHeight();
    uint8_t* owner = m_stripeOwner.data();
    const size_t bpl = size_t(m_stripe.bytesPerLine());
    uchar* bits = m_stripe.bits();
    size_t b = 0;
    uint32_t begin = 0;
    while (b < g.batches.size()) {
        const uint16_t depth = g.batches[b].depth;
        size_t e = b;
        while (e < g.batches.size() && g.batches[e].depth == depth)
            ++e;
        const uint32_t end = g.batches[e - 1].end;
        // From the depth, not from a rect: one outside the window is an empty QRect at y 0.
        const int y = metrics::kTrackPadding + depth * metrics::kSliceRowHeight;
        if (y + height > visTop && y < visBottom) {
            std::memset(owner, 0, size_t(width));
            int lo = width, hi = 0;
            uint32_t r = begin;
            for (size_t k = b; k < e; ++k) {
                const uint8_t value = uint8_t(g.batches[k].color + 1);
                for (; r < g.batches[k].end; ++r) {
                    const QRect& rect = g.rects[r];
                    const int x0 = std::max(rect.x(), left) - left;
                    const int x1 = std::min(rect.x() + rect.width(), left + width) - left;
                    if (x1 <= x0) continue;
                    std::memset(owner + x0, value, size_t(x1 - x0));
                    lo = std::min(lo, x0);
                    hi = std::max(hi, x1);
                }
            }
            if (hi > lo) {
                // Only the columns something covers are converted, copied and blitted.
                auto* row = reinterpret_cast<QRgb*>(bits) + lo;
                for (int x = lo; x < hi; ++x)
                    row[x - lo] = lut[owner[x]];
                for (int line = 1; line < height; ++line)
                    std::memcpy(bits + size_t(line) * bpl + size_t(lo) * sizeof(QRgb), row,
                                size_t(hi - lo) * sizeof(QRgb));
                p.drawImage(QPoint(left + lo, y), m_stripe, QRect(lo, 0, hi - lo, height));
                ++m_stripesBlitted;
            }
        }
        begin = end;
        b = e;
    }
}

void TimelineRenderer::paintCounterRow(QPainter& p, const TimelineCoords& c, const TrackLayout::Row& row)
{
    const auto& cols = m_geometry.counterColumns(row.counter);
    if (cols.empty()) return;
    const auto [lo, hi] = counterRange(row.counter);
    const int top = c.y(row.y) + 6;
    const int bottom = c.y(row.y) + row.height - 4;
    const double h = bottom - top;
    auto yOf = [&](double v) { return bottom - int(std::lround((v - lo) / (hi - lo) * h)); };
    std::vector<QRect> area;
    area.reserve(cols.size());
    QPolygon line;
    line.reserve(int(cols.size()) * 2);
    int prevY = -1;
    for (const CounterColumn& col : cols) {
        const int x = c.trackLeft() + col.column;
        const int yMax = yOf(col.max);
        area.emplace_back(x, yMax, 1, std::max(1, bottom - yMax));
        const int yLast = yOf(col.last);
        if (prevY >= 0 && prevY != yLast) line << QPoint(x, prevY);
        line << QPoint(x, yLast);
        prevY = yLast;
    }
    p.setPen(Qt::NoPen);
    p.setBrush(Theme::palette().counterFill);
    p.drawRects(area.data(), int(area.size()));
    p.setBrush(Qt::NoBrush);
    p.setPen(QPen(Theme::palette().counterLine, 1));
    p.drawPolyline(line);
}

void TimelineRenderer::paintLabels(QPainter& p, const TimelineCoords& c, const std::vector<int>& rows)
{
    p.save();
    const QRect column(0, c.headerHeight, c.trackLeft(), c.viewHeight());
    p.setClipRect(column);
    p.fillRect(column, Theme::palette().header);
    const auto& all = m_layout.rows();
    const QFontMetrics labelFm(m_labelFont);
    const QFontMetrics groupFm(m_groupFont);
    const int textRight = c.trackLeft() - 10;
    for (int ri : rows) {
        const TrackLayout::Row& row = all[ri];
        const int y = c.y(row.y);
        if (row.kind == TrackLayout::RowKind::GroupHeader) {
            const TrackLayout::Group& g = m_layout.groups()[row.group];
            p.fillRect(QRect(0, y, c.trackLeft(), row.height), Theme::palette().groupHeader);
            // Disclosure triangle.
            p.setRenderHint(QPainter::Antialiasing, true);
            p.setPen(Qt::NoPen);
            p.setBrush(Theme::palette().mutedText);
            const QPointF o(14, y + row.height / 2.0);
            QPolygonF tri;
            if (g.collapsed)
                tri << o + QPointF(-3, -5) << o + QPointF(3, 0) << o + QPointF(-3, 5);
            else
                tri << o + QPointF(-5, -3) << o + QPointF(5, -3) << o + QPointF(0, 3);
            p.drawPolygon(tri);
            p.setRenderHint(QPainter::Antialiasing, false);
            p.setBrush(Qt::NoBrush);
            // Accent bar: blue for hosts, green for devices.
            p.fillRect(QRect(0, y, 3, row.height),
                       g.gpu ? Theme::palette().deviceAccent : Theme::palette().hostAccent);
            p.setFont(m_groupFont);
            p.setPen(Theme::palette().text);
            const int titleRight = textRight;
            const QString title = groupFm.elidedText(row.label, Qt::ElideRight, titleRight - 26);
            p.drawText(QRect(26, y, titleRight - 26, row.height), Qt::AlignVCenter | Qt::AlignLeft, title);
            const int used = 26 + groupFm.horizontalAdvance(title) + 8;
            if (!row.detail.isEmpty() && used + 30 < titleRight) {
                p.setFont(m_detailFont);
                p.setPen(Theme::palette().hintText);
                p.drawText(
                    QRect(used, y, titleRight - used, row.height), Qt::AlignVCenter | Qt::AlignLeft,
                    QFontMetrics(m_detailFont).elidedText(row.detail, Qt::ElideRight, titleRight - used));
            }
        } else {
            const int lineH = row.kind == TrackLayout::RowKind::Slices
                                  ? metrics::kSliceRowHeight + 2 * metrics::kTrackPadding
                                  : 22;
            p.setFont(m_labelFont);
            p.setPen(Theme::palette().text);
            p.drawText(QRect(26, y, textRight - 26, lineH), Qt::AlignVCenter | Qt::AlignLeft,
                       labelFm.elidedText(row.label, Qt::ElideRight, textRight - 26));
            QString detail = row.detail;
            if (row.kind == TrackLayout::RowKind::Counter) {
                const double peak = counterRange(row.counter).second;
                detail =
                    QStringLiteral("peak ") + (row.bytes ? formatBytes(peak) : QString::number(peak, 'g', 4));
            }
            if (!detail.isEmpty() && row.height >= lineH + 12) {
                p.setFont(m_detailFont);
                p.setPen(Theme::palette().hintText);
                p.drawText(QRect(26, y + lineH - 4, textRight - 26, 14), Qt::AlignTop | Qt::AlignLeft,
                           detail);
            }
            if (row.foldedLevels > 0 && row.height >= lineH + 26) {
                // The fold is the label's click target (TimelineView): say what it hides.
                p.setFont(m_detailFont);
                p.setPen(Theme::palette().link);
                const QString fold =
                    row.stackUnfolded
                        ? QStringLiteral("▾ Python stack: %1 levels · fold").arg(row.depthCount)
                        : QStringLiteral("▸ %1 deeper Python levels folded").arg(row.foldedLevels);
                p.drawText(QRect(26, y + lineH + 10, textRight - 26, 14), Qt::AlignTop | Qt::AlignLeft,
                           QFontMetrics(m_detailFont).elidedText(fold, Qt::ElideRight, textRight - 26));
            }
        }
        p.setPen(Theme::palette().separator);
        p.drawLine(0, y + row.height - 1, c.trackLeft(), y + row.height - 1);
    }
    p.setPen(Theme::palette().border);
    p.drawLine(c.trackLeft() - 1, c.headerHeight, c.trackLeft() - 1, c.size.height());
    p.restore();
}

void TimelineRenderer::paintSelection(QPainter& p, const TimelineCoords& c, const TimelineState& s)
{
    p.setBrush(Qt::NoBrush);
    QPen dashed(Theme::palette().text, 1, Qt::DashLine);
    p.setPen(dashed);
    for (SliceRef r : s.linked) {
        const QRectF rect = sliceRect(c, r);
        if (!rect.isEmpty()) p.drawRect(rect.adjusted(0, 0, -1, -1));
    }
    if (s.currentMatch.valid() && s.currentMatch != s.selected) {
        const QRectF rect = sliceRect(c, s.currentMatch);
        if (!rect.isEmpty()) {
            p.setPen(QPen(Theme::palette().highlight, 3));
            p.drawRect(rect.adjusted(-1, -1, 0, 0));
        }
    }
    if (s.selected.valid()) {
        const QRectF rect = sliceRect(c, s.selected);
        if (!rect.isEmpty()) {
            p.setPen(QPen(Theme::palette().text, 2));
            p.drawRect(rect.adjusted(0, 0, -1, -1).toAlignedRect());
        }
    }
}

void TimelineRenderer::paintArrows(QPainter& p, const TimelineCoords& c, const TimelineState& s)
{
    if (s.arrows.empty()) return;
    const Trace& t = *m_doc->trace;
    p.setRenderHint(QPainter::Antialiasing, true);
    const QColor color = Theme::palette().text;
    p.setPen(QPen(color, 1.4));
    for (const auto& [from, to] : s.arrows) {
        const double y0 = sliceCenterY(c, from), y1 = sliceCenterY(c, to);
        if (y0 < 0 || y1 < 0) continue;
        const QPointF a(c.x(t.slices(from.track).start(from.index)), y0);
        const QPointF b(c.x(t.slices(to.track).start(to.index)), y1);
        const double dx = std::max(24.0, std::abs(b.x() - a.x()) / 2);
        QPainterPath path(a);
        path.cubicTo(a + QPointF(dx, 0), b - QPointF(dx, 0), b);
        p.setBrush(Qt::NoBrush);
        p.drawPath(path);
        // Arrowhead along the curve's final direction (horizontal by construction).
        QPolygonF head;
        head << b << b + QPointF(-7, -3.5) << b + QPointF(-7, 3.5);
        p.setBrush(color);
        p.drawPolygon(head);
        p.setBrush(Theme::palette().base);
        p.drawEllipse(a, 2.5, 2.5);
    }
    p.setBrush(Qt::NoBrush);
    p.setRenderHint(QPainter::Antialiasing, false);
}

} // namespace ks::ui
