#include "ui/snapshot/segmentview.h"

#include "core/analysis/snapshot/snapshottimeline.h"
#include "ui/snapshot/snapshotcolors.h"
#include "ui/snapshot/snapshotdocument.h"
#include "ui/util/format.h"
#include "ui/util/theme.h"

#include <QMouseEvent>
#include <QPaintEvent>
#include <QPainter>
#include <algorithm>

using namespace Qt::StringLiterals;

namespace ks::ui {

namespace {

constexpr int kHeader = 26;
constexpr int kRow = 18;

} // namespace

SegmentView::SegmentView(QWidget* parent) : QWidget(parent)
{
    setMouseTracking(true);
    connect(&Theme::instance(), &Theme::changed, this, qOverload<>(&QWidget::update));
}

void SegmentView::setState(std::shared_ptr<const SnapshotDocument> doc, AllocatorState state, QString title)
{
    m_doc = std::move(doc);
    m_state = std::move(state);
    m_title = std::move(title);
    sortRows();
    m_largest = 1;
    for (const StateSegment& s : m_state.segments)
        m_largest = std::max(m_largest, s.size);
    // Every row has its height: the scroll area scrolls instead of squeezing them.
    setMinimumHeight(sizeHint().height());
    update();
}

void SegmentView::setOrder(Order order)
{
    m_order = order;
    sortRows();
    update();
}

void SegmentView::sortRows()
{
    auto& segs = m_state.segments;
    const auto byAddress = [](const StateSegment& x, const StateSegment& y) { return x.addr < y.addr; };
    switch (m_order) {
    case Order::Address:
        std::sort(segs.begin(), segs.end(), byAddress);
        break;
    case Order::MostAllocated:
        std::stable_sort(segs.begin(), segs.end(), [&](const StateSegment& x, const StateSegment& y) {
            return x.allocated != y.allocated ? x.allocated > y.allocated : byAddress(x, y);
        });
        break;
    case Order::MostFree:
        std::stable_sort(segs.begin(), segs.end(), [&](const StateSegment& x, const StateSegment& y) {
            const int64_t fx = x.size - x.allocated, fy = y.size - y.allocated;
            return fx != fy ? fx > fy : byAddress(x, y);
        });
        break;
    }
}

QString SegmentView::summary() const
{
    return u"%1: %2 segments, reserved %3, allocated %4, fragmentation (reserved − allocated) %5"_s
        .arg(m_title)
        .arg(m_state.segments.size())
        .arg(formatBytes(double(m_state.reserved)), formatBytes(double(m_state.allocated)),
             formatBytes(double(m_state.fragmentation())));
}

QSize SegmentView::sizeHint() const
{
    return QSize(800, kHeader + int(m_state.segments.size()) * kRow + 4);
}

int SegmentView::barLeft() const
{
    // Room for the longest label: a 48-bit address, a size and a stream that is a pointer.
    return fontMetrics().horizontalAdvance(u"0x7f0000000000  000.0 MiB  stream 0x7f0000000000"_s) + 18;
}

double SegmentView::bytesPerPixel() const
{
    return double(m_largest) / std::max(1, width() - barLeft() - 8);
}

QRect SegmentView::rowRect(int segment) const
{
    return QRect(barLeft(), kHeader + segment * kRow + 2,
                 std::max(1, int(m_state.segments[size_t(segment)].size / bytesPerPixel())), kRow - 4);
}

std::pair<int, int> SegmentView::blockAt(QPoint p) const
{
    const int s = (p.y() - kHeader) / kRow;
    if (p.y() < kHeader || s < 0 || size_t(s) >= m_state.segments.size()) return {-1, -1};
    const QRect r = rowRect(s);
    if (p.x() < r.left() || p.x() > r.right()) return {-1, -1};
    const StateSegment& seg = m_state.segments[size_t(s)];
    const double addr = double(seg.addr) + (p.x() - r.left() + 0.5) * bytesPerPixel();
    for (size_t b = 0; b < seg.blocks.size(); ++b)
        if (double(seg.blocks[b].addr) <= addr && addr < double(seg.blocks[b].addr + seg.blocks[b].size))
            return {s, int(b)};
    return {s, -1};
}

void SegmentView::paintEvent(QPaintEvent* e)
{
    QPainter p(this);
    const Palette& pal = Theme::palette();
    p.fillRect(rect(), pal.base);
    p.setPen(pal.text);
    p.drawText(QRect(6, 0, width() - 12, kHeader), Qt::AlignLeft | Qt::AlignVCenter, summary());
    const double bpp = bytesPerPixel();
    const int first = std::max(0, (e->rect().top() - kHeader) / kRow);
    const int last = std::min(int(m_state.segments.size()) - 1, (e->rect().bottom() - kHeader) / kRow);
    for (int s = first; s <= last; ++s) {
        const StateSegment& seg = m_state.segments[size_t(s)];
        const QRect r = rowRect(s);
        p.setPen(pal.mutedText);
        p.drawText(QRect(6, r.top() - 2, barLeft() - 12, kRow), Qt::AlignLeft | Qt::AlignVCenter,
                   u"0x%1  %2  stream %3"_s.arg(QString::number(quint64(seg.addr), 16),
                                                formatBytes(double(seg.size)), streamText(seg.stream)));
        for (const StateBlock& b : seg.blocks) {
            const double x0 = r.left() + double(b.addr - seg.addr) / bpp;
            const double xReq = x0 + double(b.requested) / bpp;
            const double x1 = x0 + double(b.size) / bpp;
            const QColor c =
                b.freeRequested ? QColor(kPendingFreeColor) : QColor(snapshotColor(uint64_t(b.addr) >> 9));
            // At least a pixel wide, so that a small block is still seen.
            p.fillRect(QRectF(x0, r.top(), std::max(1.0, xReq - x0), r.height()), c);
            if (x1 - xReq >= 0.5)
                p.fillRect(QRectF(xReq, r.top(), x1 - xReq, r.height()),
                           QColor(kPendingFreeColor).darker(140));
        }
        p.setPen(pal.text);
        p.setBrush(Qt::NoBrush);
        p.drawRect(r.adjusted(0, 0, -1, -1));
    }
}

void SegmentView::mouseMoveEvent(QMouseEvent* e)
{
    const auto [s, b] = blockAt(e->position().toPoint());
    if (s < 0 || !m_doc) return;
    const StateSegment& seg = m_state.segments[size_t(s)];
    QString text =
        u"Segment 0x%1: %2, %3 allocated, %4 free (stream %5)"_s.arg(QString::number(quint64(seg.addr), 16))
            .arg(formatBytes(double(seg.size)), formatBytes(double(seg.allocated)),
                 formatBytes(double(seg.size - seg.allocated)), streamText(seg.stream));
    uint32_t stack = seg.stack;
    if (b >= 0) {
        const StateBlock& blk = seg.blocks[size_t(b)];
        text =
            u"Block 0x%1: %2 requested of %3 (%4 lost to rounding)%5, stream %6"_s
                .arg(QString::number(quint64(blk.addr), 16), formatBytes(double(blk.requested)),
                     formatBytes(double(blk.size)), formatBytes(double(blk.size - blk.requested)),
                     blk.freeRequested ? u", freed but waiting for its stream (record_stream)"_s : QString())
                .arg(streamText(seg.stream));
        stack = blk.stack;
    }
    const MemorySnapshot& snap = *m_doc->snapshot;
    const auto [frames, count] = snap.stackFrames(stack);
    for (size_t k = 0; k < count; ++k)
        if (frameShown(snap, frames[k])) text += u'\n' + QString::fromStdString(frameText(snap, frames[k]));
    emit blockHovered(text);
}

} // namespace ks::ui
