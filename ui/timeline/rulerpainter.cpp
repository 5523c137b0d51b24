#include "ui/timeline/rulerpainter.h"

#include "ui/timeline/timelinemetrics.h"
#include "ui/timeline/timelinestate.h"
#include "ui/util/format.h"
#include "ui/util/theme.h"

#include <QPainter>
#include <algorithm>

namespace ks::ui {

namespace {
// Below this width a step cannot show its alternating colour or a label.
constexpr double kNarrowStepPixels = 3;
} // namespace

RulerPainter::RulerPainter()
{
    m_font.setPixelSize(11);
    m_smallFont.setPixelSize(10);
}

void RulerPainter::setSteps(std::vector<Step> steps, TimeNs origin)
{
    m_origin = origin;
    std::sort(steps.begin(), steps.end(), [](const Step& a, const Step& b) {
        return a.number != b.number ? a.number < b.number : a.start < b.start;
    });
    // A step can be recorded on several threads; keep its widest extent once.
    m_steps.clear();
    for (const Step& s : steps) {
        if (!m_steps.empty() && m_steps.back().number == s.number) {
            m_steps.back().start = std::min(m_steps.back().start, s.start);
            m_steps.back().end = std::max(m_steps.back().end, s.end);
        } else {
            m_steps.push_back(s);
        }
    }
    std::sort(m_steps.begin(), m_steps.end(), [](const Step& a, const Step& b) { return a.start < b.start; });
}

int RulerPainter::height() const
{
    return metrics::kRulerHeight + (hasSteps() ? metrics::kStepRulerHeight : 0) + metrics::kMatchStripHeight;
}

int RulerPainter::stepRulerTop() const
{
    return metrics::kRulerHeight;
}
int RulerPainter::matchStripTop() const
{
    return metrics::kRulerHeight + (hasSteps() ? metrics::kStepRulerHeight : 0);
}

int RulerPainter::stepAt(const TimelineCoords& c, int x) const
{
    for (size_t i = 0; i < m_steps.size(); ++i)
        if (x >= c.x(m_steps[i].start) && x < c.x(m_steps[i].end)) return int(i);
    return -1;
}

void RulerPainter::paintSteps(QPainter& p, const TimelineCoords& c) const
{
    const int top = stepRulerTop();
    const int h = metrics::kStepRulerHeight;
    p.setFont(m_smallFont);
    const QFontMetrics fm(m_smallFont);
    const int digitWidth = fm.horizontalAdvance(QLatin1Char('0'));
    // Only the steps in the window (steps are in start order and do not overlap), and a run of
    // steps too narrow to tell apart drawn as one band: a trace of thousands of steps zoomed out
    // cost a rectangle and two text measurements per step on every frame.
    size_t i = size_t(std::upper_bound(m_steps.begin(), m_steps.end(), c.window.t0,
                                       [](TimeNs t, const Step& s) { return t < s.start; }) -
                      m_steps.begin());
    if (i > 0) --i;
    int runX0 = -1, runX1 = -1;
    auto flushRun = [&] {
        if (runX0 < 0) return;
        p.fillRect(QRect(runX0, top + 2, std::max(1, runX1 - runX0), h - 4), Theme::palette().stepLabel);
        runX0 = runX1 = -1;
    };
    for (; i < m_steps.size(); ++i) {
        const Step& s = m_steps[i];
        if (s.start > c.window.t1) break;
        const double x0 = std::max<double>(c.trackLeft(), c.x(s.start));
        const double x1 = std::min<double>(c.size.width(), c.x(s.end));
        if (x1 < c.trackLeft() || x0 > c.size.width()) continue;
        if (x1 - x0 < kNarrowStepPixels) {
            if (runX0 < 0) runX0 = int(x0);
            runX1 = std::max(runX1, int(x1));
            continue;
        }
        flushRun();
        const QRect r(int(x0), top + 2, std::max(1, int(x1) - int(x0) - 1), h - 4);
        p.fillRect(r, i % 2 ? Theme::palette().stepLabelAlt : Theme::palette().stepLabel);
        if (r.width() < digitWidth + 4) continue;
        QString label = QStringLiteral("Step %1").arg(s.number);
        if (fm.horizontalAdvance(label) + 8 > r.width()) label = QString::number(s.number);
        if (fm.horizontalAdvance(label) + 4 <= r.width()) {
            p.setPen(Theme::palette().text);
            p.drawText(r, Qt::AlignCenter, label);
        }
    }
    flushRun();
}

void RulerPainter::paint(QPainter& p, const TimelineCoords& c, const TimelineState& s,
                         const std::vector<RulerTick>& ticks, const std::vector<int>& highlightColumns) const
{
    const int w = c.size.width();
    const int h = height();
    p.fillRect(QRect(0, 0, w, h), Theme::palette().header);
    p.setFont(m_font);
    const QFontMetrics fm(m_font);

    // Time ruler.
    p.save();
    p.setClipRect(QRect(c.trackLeft(), 0, c.trackWidth(), metrics::kRulerHeight));
    const int base = metrics::kRulerHeight - 1;
    for (const RulerTick& t : ticks) {
        const int x = int(c.x(t.time));
        p.setPen(Theme::palette().tick);
        if (t.major) {
            p.drawLine(x, base - 9, x, base);
            p.setPen(Theme::palette().text);
            p.drawText(x + 4, base - 10 + fm.ascent() - fm.height() / 2 + 2, t.label);
        } else {
            p.drawLine(x, base - 4, x, base);
        }
    }
    p.restore();

    // Label column: what the window shows.
    p.setPen(Theme::palette().text);
    const QRect info(10, 0, c.trackLeft() - 20, metrics::kRulerHeight);
    p.drawText(info, Qt::AlignVCenter | Qt::AlignLeft,
               QStringLiteral("Window  %1").arg(formatDuration(c.window.span())));

    if (hasSteps()) {
        p.save();
        p.setClipRect(QRect(c.trackLeft(), stepRulerTop(), c.trackWidth(), metrics::kStepRulerHeight));
        paintSteps(p, c);
        p.restore();
        p.setPen(Theme::palette().mutedText);
        p.setFont(m_smallFont);
        p.drawText(QRect(10, stepRulerTop(), c.trackLeft() - 20, metrics::kStepRulerHeight),
                   Qt::AlignVCenter | Qt::AlignLeft, QStringLiteral("Steps  (click to zoom)"));
    }

    // Highlight ticks.
    const int stripTop = matchStripTop();
    if (!highlightColumns.empty()) {
        p.setPen(Qt::NoPen);
        p.setBrush(Theme::palette().highlight);
        std::vector<QRect> rects;
        rects.reserve(highlightColumns.size());
        for (int col : highlightColumns)
            rects.emplace_back(c.trackLeft() + col, stripTop + 1, 1, metrics::kMatchStripHeight - 2);
        p.drawRects(rects.data(), int(rects.size()));
    }

    // Range selection and the cursor position, labelled in the ruler.
    if (s.hasRange) {
        const double x0 = c.x(s.rangeT0), x1 = c.x(s.rangeT1);
        const QRect band(int(x0), 0, std::max(1, int(x1 - x0)), metrics::kRulerHeight);
        p.fillRect(band, withAlpha(Theme::palette().selection, 60));
        const QString label = formatDuration(s.rangeT1 - s.rangeT0);
        const int lw = fm.horizontalAdvance(label) + 10;
        QRect lr(int((x0 + x1) / 2) - lw / 2, 3, lw, metrics::kRulerHeight - 6);
        p.fillRect(lr, Theme::palette().link);
        p.setPen(Theme::palette().onDarkFill);
        p.drawText(lr, Qt::AlignCenter, label);
    } else if (s.hoverX >= c.trackLeft()) {
        const TimeNs t = c.time(s.hoverX);
        const QString label = formatTimestamp(t - m_origin, 1.0 / c.pxPerNs());
        const int lw = fm.horizontalAdvance(label) + 10;
        QRect lr(std::min(s.hoverX + 2, w - lw), 3, lw, metrics::kRulerHeight - 6);
        p.fillRect(lr, Theme::palette().tooltipBackground);
        p.setPen(Theme::palette().onDarkFill);
        p.drawText(lr, Qt::AlignCenter, label);
    }

    p.setPen(Theme::palette().border);
    p.drawLine(0, h - 1, w, h - 1);
    p.drawLine(c.trackLeft() - 1, 0, c.trackLeft() - 1, h);
}

} // namespace ks::ui
