#include "ui/snapshot/snapshotchart.h"

#include "ui/snapshot/snapshotcolors.h"
#include "ui/util/format.h"
#include "ui/util/theme.h"

#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

using namespace Qt::StringLiterals;

namespace ks::ui {

namespace {

constexpr int kLeft = 74;   // the byte axis
constexpr int kBottom = 22; // the entry axis
constexpr int kTop = 18;    // labels of the peak and the OOMs
constexpr int kRight = 8;

// A "nice" step (1, 2 or 5 times a power of ten) near `raw`.
double niceStep(double raw)
{
    if (raw <= 0) return 1;
    const double p = std::pow(10.0, std::floor(std::log10(raw)));
    const double f = raw / p;
    return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * p;
}

} // namespace

SnapshotChart::SnapshotChart(QWidget* parent) : QWidget(parent)
{
    setMouseTracking(true);
    setFocusPolicy(Qt::StrongFocus);
    setMinimumSize(320, 160);
    connect(&Theme::instance(), &Theme::changed, this, [this] {
        m_dirty = true;
        update();
    });
}

void SnapshotChart::setDocument(std::shared_ptr<const SnapshotDocument> doc, size_t device)
{
    m_doc = std::move(doc);
    m_device = device;
    m_bands.reset();
    m_hover = UINT32_MAX;
    m_marked = UINT32_MAX;
    resetView();
}

void SnapshotChart::setBands(std::shared_ptr<const SnapshotBands> bands)
{
    m_bands = std::move(bands);
    m_hover = UINT32_MAX;
    m_dirty = true;
    update();
}

void SnapshotChart::setOps(std::vector<OpSpan> ops)
{
    m_ops = std::move(ops);
    m_dirty = true;
    update();
}

void SnapshotChart::resetView()
{
    const double n = m_doc ? double(bands().entryCount()) : 0;
    setView(0, std::max(1.0, n));
}

void SnapshotChart::setView(double x0, double x1)
{
    const double n = m_doc ? std::max(1.0, double(bands().entryCount())) : 1;
    // At least a few entries in view; never past the trace's ends.
    double span = std::clamp(x1 - x0, std::min(4.0, n), n);
    x0 = std::clamp(x0, 0.0, n - span);
    m_x0 = x0;
    m_x1 = x0 + span;
    m_dirty = true;
    update();
}

void SnapshotChart::setMarkedEntry(uint32_t entry)
{
    m_marked = entry;
    update();
}

QRect SnapshotChart::plotRect() const
{
    return QRect(kLeft, kTop, std::max(1, width() - kLeft - kRight),
                 std::max(1, height() - kTop - kBottom - opStrip()));
}

int SnapshotChart::xForEntry(double x) const
{
    const QRect r = plotRect();
    return r.left() + int(std::floor((x - m_x0) / (m_x1 - m_x0) * r.width()));
}

int SnapshotChart::yForBytes(double bytes) const
{
    const QRect r = plotRect();
    return r.bottom() - int(std::floor(bytes / m_yMax * r.height()));
}

uint32_t SnapshotChart::entryAtX(int x) const
{
    const QRect r = plotRect();
    const int c = x - r.left();
    if (c < 0 || size_t(c) >= m_layout.columns.size()) return UINT32_MAX;
    return m_layout.columns[size_t(c)].entry;
}

uint32_t SnapshotChart::allocationAt(QPoint p) const
{
    if (!m_doc) return UINT32_MAX;
    const uint32_t entry = entryAtX(p.x());
    const QRect r = plotRect();
    if (entry == UINT32_MAX || p.y() > r.bottom() || p.y() < r.top()) return UINT32_MAX;
    const double bytes = double(r.bottom() - p.y() + 0.5) / r.height() * m_yMax;
    return bands().allocationAt(entry, int64_t(bytes));
}

void SnapshotChart::relayout()
{
    m_dirty = false;
    const QRect r = plotRect();
    m_image = QImage(r.size(), QImage::Format_ARGB32_Premultiplied);
    m_image.fill(Theme::palette().base);
    m_layout = {};
    if (!m_doc || bands().entryCount() == 0) return;
    const SnapshotBands& bands = this->bands();
    const SnapshotTimeline& t = m_doc->timelines[m_device];
    // The y axis fits the highest stack in view (memory_viz's select_window does the same).
    const uint32_t n = uint32_t(bands.entryCount());
    const uint32_t first = uint32_t(std::clamp(std::floor(m_x0), 0.0, double(n - 1)));
    const uint32_t last = uint32_t(std::clamp(std::ceil(m_x1) - 1, double(first), double(n - 1)));
    m_yMax = std::max(1.0, double(t.liveAfter[bands.peakEntryIn(first, last)]) * 1.05);
    const int64_t minBytes = int64_t(std::ceil(m_yMax / r.height()));
    m_layout = bands.layout(m_x0, m_x1, r.width(), minBytes);

    const int h = r.height();
    // Bytes are never negative: truncation is the floor, and a multiplication is cheaper than a
    // division in a loop that runs for every band of every column.
    const double rowsPerByte = h / m_yMax;
    auto row = [&](int64_t bytes) { return std::max(-1, h - 1 - int(double(bytes) * rowsPerByte)); };
    // Straight into the image's memory: scanLine() per pixel checked for a detach every time.
    QRgb* pixels = reinterpret_cast<QRgb*>(m_image.bits());
    const qsizetype stride = m_image.bytesPerLine() / qsizetype(sizeof(QRgb));
    for (size_t c = 0; c < m_layout.columns.size(); ++c) {
        const BandColumn& col = m_layout.columns[c];
        int lastTop = h - 1;
        for (uint32_t k = 0; k < col.runCount; ++k) {
            const BandRun& run = m_layout.runs[col.firstRun + k];
            const QRgb color = run.allocation == kMergedRun       ? kMergedBandColor
                               : run.allocation == kSummarizedRun ? kSummarizedBandColor
                                                                  : snapshotColor(run.allocation);
            // Rows from the band's top down to just above its bottom: a band of one pixel or more
            // covers at least one row.
            // The runs of a column are contiguous: this one's bottom is the last one's top.
            const int yTop = row(run.top);
            int yBottom = k == 0 ? row(run.bottom) : lastTop;
            lastTop = yTop;
            if (yBottom == yTop) yBottom = yTop + 1;
            for (int y = std::max(0, yTop + 1); y <= std::min(h - 1, yBottom); ++y)
                pixels[y * stride + qsizetype(c)] = color;
        }
    }
}

void SnapshotChart::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    const Palette& pal = Theme::palette();
    p.fillRect(rect(), pal.header);
    const QRect r = plotRect();
    if (m_dirty || m_image.size() != r.size()) relayout();
    p.drawImage(r.topLeft(), m_image);
    if (m_hover != UINT32_MAX && m_hover < UINT32_MAX - 1) {
        // The hovered allocation darkened where it is drawn.
        p.setPen(QPen(QColor(0, 0, 0, 110), 1));
        for (size_t c = 0; c < m_layout.columns.size(); ++c) {
            const BandColumn& col = m_layout.columns[c];
            for (uint32_t k = 0; k < col.runCount; ++k) {
                const BandRun& run = m_layout.runs[col.firstRun + k];
                if (run.allocation != m_hover) continue;
                const int x = r.left() + int(c);
                const int yTop = yForBytes(double(run.top));
                p.drawLine(x, yTop, x, std::max(yTop, yForBytes(double(run.bottom)) - 1));
            }
        }
    }
    paintMarkers(p, r);
    paintOps(p, r);
    paintAxes(p, r);
    if (!m_doc) return;
    if (bands().entryCount() == 0) {
        p.setPen(pal.hintText);
        p.drawText(r, Qt::AlignCenter, u"This device has no recorded allocator history"_s);
    }
}

void SnapshotChart::paintMarkers(QPainter& p, const QRect& r)
{
    if (!m_doc) return;
    const Palette& pal = Theme::palette();
    const SnapshotTimeline& t = m_doc->timelines[m_device];
    p.save();
    p.setClipRect(QRect(r.left(), 0, r.width(), height()));
    auto mark = [&](uint32_t entry, const QColor& color, const QString& label, Qt::PenStyle style,
                    bool inside = false) {
        const int x = xForEntry(entry + 0.5);
        if (x < r.left() || x > r.right()) return;
        p.setPen(QPen(color, 1, style));
        p.drawLine(x, r.top(), x, r.bottom());
        // Right of the line, or left of it near the plot's right edge.
        const int w = p.fontMetrics().horizontalAdvance(label) + 6;
        const int top = inside ? r.top() + 2 : 0; // inside the plot: under the peak's label
        const QRect box = x + w <= r.right() ? QRect(x + 3, top, w, kTop) : QRect(x - w, top, w - 3, kTop);
        if (label.isEmpty()) return;
        if (inside) p.fillRect(box, pal.base);
        p.drawText(box, Qt::AlignRight | Qt::AlignVCenter, label);
    };
    if (t.peakEntry != kBeforeTrace)
        mark(t.peakEntry, pal.text, u"peak "_s + formatBytes(double(t.peakBytes)), Qt::DashLine);
    for (uint32_t oom : t.ooms)
        mark(oom, pal.error, u"OOM"_s, Qt::SolidLine);
    // The peak's label already names its entry.
    if (m_marked != UINT32_MAX)
        mark(m_marked, pal.link, m_marked == t.peakEntry ? QString() : u"entry %1"_s.arg(m_marked),
             Qt::SolidLine, true);
    p.restore();
}

void SnapshotChart::paintOps(QPainter& p, const QRect& r)
{
    if (m_ops.empty()) return;
    const Palette& pal = Theme::palette();
    const QRect strip(r.left(), r.bottom() + 2, r.width(), opStrip() - 2);
    p.save();
    p.setClipRect(strip);
    p.fillRect(strip, pal.header);
    const QFontMetrics fm = p.fontMetrics();
    for (size_t i = 0; i < m_ops.size(); ++i) {
        const OpSpan& op = m_ops[i];
        const int x0 = xForEntry(op.first), x1 = std::max(x0 + 1, xForEntry(double(op.last) + 1));
        if (x1 < strip.left() || x0 > strip.right()) continue;
        const QRect box(x0, strip.top(), x1 - x0, strip.height());
        // Neighbours alternate, so back-to-back ops stay apart.
        p.fillRect(box, i % 2 ? pal.stepBand : pal.counterFill);
        if (box.width() > 24) {
            p.setPen(pal.text);
            p.drawText(box.adjusted(2, 0, -2, 0), Qt::AlignLeft | Qt::AlignVCenter,
                       fm.elidedText(op.name, Qt::ElideRight, box.width() - 4));
        }
    }
    p.restore();
}

void SnapshotChart::paintAxes(QPainter& p, const QRect& r)
{
    const Palette& pal = Theme::palette();
    p.setPen(pal.border);
    p.drawLine(r.bottomLeft() + QPoint(0, 1), r.bottomRight() + QPoint(0, 1));
    p.drawLine(r.topLeft() - QPoint(1, 0), r.bottomLeft() - QPoint(1, 0));
    const QFontMetrics fm = p.fontMetrics();
    // Bytes: about one label per 40 pixels, in binary units.
    const double rawStep = m_yMax / std::max(1, r.height() / 40);
    const double unit = rawStep >= 1024.0 * 1024 * 1024 ? 1024.0 * 1024 * 1024
                        : rawStep >= 1024.0 * 1024      ? 1024.0 * 1024
                        : rawStep >= 1024.0             ? 1024.0
                                                        : 1.0;
    const double step = niceStep(rawStep / unit) * unit;
    for (double b = 0; b <= m_yMax; b += step) {
        const int y = yForBytes(b);
        p.setPen(pal.tick);
        p.drawLine(r.left() - 5, y, r.left() - 1, y);
        p.setPen(pal.text);
        p.drawText(QRect(0, y - fm.height() / 2, r.left() - 8, fm.height()),
                   Qt::AlignRight | Qt::AlignVCenter, formatBytes(b));
    }
    // Entries.
    const double xStep = niceStep((m_x1 - m_x0) / std::max(1, r.width() / 90));
    for (double x = std::ceil(m_x0 / xStep) * xStep; x < m_x1; x += xStep) {
        const int px = xForEntry(x);
        p.setPen(pal.tick);
        p.drawLine(px, r.bottom() + 1 + opStrip(), px, r.bottom() + 5 + opStrip());
        p.setPen(pal.text);
        // Centred under its tick; one that would not fit inside the widget is left out.
        const QString label = QString::number(qint64(x));
        const int w = fm.horizontalAdvance(label);
        if (px + w / 2 + 2 > width()) continue;
        p.drawText(QRect(px - w / 2 - 2, r.bottom() + 4 + opStrip(), w + 4, kBottom - 4), Qt::AlignCenter,
                   label);
    }
}

void SnapshotChart::resizeEvent(QResizeEvent*)
{
    m_dirty = true;
}

void SnapshotChart::wheelEvent(QWheelEvent* e)
{
    const QRect r = plotRect();
    const double at = m_x0 + (e->position().x() - r.left()) / r.width() * (m_x1 - m_x0);
    const double factor = std::pow(0.85, e->angleDelta().y() / 120.0);
    setView(at - (at - m_x0) * factor, at + (m_x1 - at) * factor);
    e->accept();
}

void SnapshotChart::mousePressEvent(QMouseEvent* e)
{
    if (e->button() != Qt::LeftButton) return;
    m_pressPos = e->position().toPoint();
    m_pressX0 = m_x0;
    m_pressX1 = m_x1;
    m_dragging = true;
}

void SnapshotChart::mouseMoveEvent(QMouseEvent* e)
{
    const QPoint pos = e->position().toPoint();
    if (m_dragging && (pos - m_pressPos).manhattanLength() > 3) {
        const double dx = double(pos.x() - m_pressPos.x()) / plotRect().width() * (m_pressX1 - m_pressX0);
        setView(m_pressX0 - dx, m_pressX1 - dx);
    }
    const uint32_t a = allocationAt(pos);
    if (a != m_hover) {
        m_hover = a;
        update();
    }
    if (a != UINT32_MAX) emit hovered(a, entryAtX(pos.x()));
}

void SnapshotChart::mouseReleaseEvent(QMouseEvent* e)
{
    if (e->button() != Qt::LeftButton || !m_dragging) return;
    m_dragging = false;
    if ((e->position().toPoint() - m_pressPos).manhattanLength() <= 3) {
        const uint32_t entry = entryAtX(e->position().toPoint().x());
        if (entry != UINT32_MAX) {
            setMarkedEntry(entry);
            emit entryClicked(entry);
        }
    }
}

void SnapshotChart::mouseDoubleClickEvent(QMouseEvent*)
{
    resetView();
}

void SnapshotChart::keyPressEvent(QKeyEvent* e)
{
    const double span = m_x1 - m_x0;
    switch (e->key()) {
    case Qt::Key_Home:
        resetView();
        break;
    case Qt::Key_Plus:
    case Qt::Key_Equal:
        setView(m_x0 + span / 4, m_x1 - span / 4);
        break;
    case Qt::Key_Minus:
        setView(m_x0 - span / 2, m_x1 + span / 2);
        break;
    case Qt::Key_Left:
        setView(m_x0 - span / 8, m_x1 - span / 8);
        break;
    case Qt::Key_Right:
        setView(m_x0 + span / 8, m_x1 + span / 8);
        break;
    default:
        QWidget::keyPressEvent(e);
    }
}

void SnapshotChart::leaveEvent(QEvent*)
{
    if (m_hover != UINT32_MAX) {
        m_hover = UINT32_MAX;
        update();
    }
}

} // namespace ks::ui
