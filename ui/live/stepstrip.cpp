#include "ui/live/stepstrip.h"

#include "ui/util/format.h"
#include "ui/util/theme.h"

#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <algorithm>

namespace ks::ui {

namespace {

constexpr int kMinBar = 3;
constexpr int kMaxBar = 16;

double ms(const live::StepArrival& s)
{
    return double(s.end - s.start) / 1e6;
}

} // namespace

StepStrip::StepStrip(QWidget* parent) : QWidget(parent)
{
    setMouseTracking(true);
    setAttribute(Qt::WA_OpaquePaintEvent);
    setToolTip(QString());
    repaintOnThemeChange(this);
}

void StepStrip::addSteps(const std::vector<live::StepArrival>& steps)
{
    if (steps.empty()) return;
    for (const live::StepArrival& s : steps) {
        m_steps.push_back(s);
        if (std::find(m_pids.begin(), m_pids.end(), s.pid) == m_pids.end()) m_pids.push_back(s.pid);
    }
    update();
}

void StepStrip::clear()
{
    m_steps.clear();
    m_pids.clear();
    update();
}

StepStrip::Layout StepStrip::layout() const
{
    Layout l;
    l.plot = rect().adjusted(8, 22, -8, -6);
    const int n = int(m_steps.size());
    if (n == 0 || l.plot.width() <= 0) return l;
    l.barWidth = std::clamp(l.plot.width() / std::max(1, n), kMinBar, kMaxBar);
    const int fit = std::max(1, l.plot.width() / l.barWidth);
    l.first = std::max(0, n - fit);
    std::vector<double> d;
    for (int i = l.first; i < n; ++i)
        d.push_back(ms(m_steps[size_t(i)]));
    std::sort(d.begin(), d.end());
    const double median = d[d.size() / 2];
    // Outliers (a slow first step) must not flatten every other bar.
    l.scaleMs = std::max(1e-3, std::min(d.back(), 3.0 * median) * 1.1);
    return l;
}

void StepStrip::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    const Palette& pal = Theme::palette();
    p.fillRect(rect(), pal.base);
    p.setPen(pal.separator);
    p.drawRect(rect().adjusted(0, 0, -1, -1));
    QFont f = font();
    f.setPixelSize(11);
    p.setFont(f);
    const int n = int(m_steps.size());
    if (n == 0) {
        p.setPen(pal.hintText);
        p.drawText(rect(), Qt::AlignCenter, QStringLiteral("Training steps appear here as they finish"));
        return;
    }
    const Layout l = layout();
    std::vector<double> shown;
    for (int i = l.first; i < n; ++i)
        shown.push_back(ms(m_steps[size_t(i)]));
    std::vector<double> sorted = shown;
    std::sort(sorted.begin(), sorted.end());
    const double median = sorted[sorted.size() / 2];
    const int gap = l.barWidth >= 5 ? 1 : 0;
    for (int i = l.first; i < n; ++i) {
        const live::StepArrival& s = m_steps[size_t(i)];
        const double v = ms(s);
        const bool clipped = v > l.scaleMs;
        const int h = std::max(1, int(std::min(v, l.scaleMs) / l.scaleMs * l.plot.height()));
        const int x = l.plot.left() + (i - l.first) * l.barWidth;
        const size_t pi = size_t(std::find(m_pids.begin(), m_pids.end(), s.pid) - m_pids.begin());
        // One colour per process, so interleaved ranks stay apart.
        QColor c = pal.series[pi % pal.series.size()];
        if (i == n - 1) c = c.darker(125);
        p.fillRect(QRect(x, l.plot.bottom() - h + 1, l.barWidth - gap, h), c);
        if (clipped) p.fillRect(QRect(x, l.plot.top() - 3, l.barWidth - gap, 2), pal.error);
    }
    const int my = l.plot.bottom() - int(median / l.scaleMs * l.plot.height());
    p.setPen(QPen(withAlpha(pal.text, 120), 1, Qt::DashLine));
    p.drawLine(l.plot.left(), my, l.plot.right(), my);
    p.setPen(pal.text);
    const live::StepArrival& last = m_steps.back();
    p.drawText(QRect(8, 3, width() - 16, 16), Qt::AlignLeft | Qt::AlignVCenter,
               QStringLiteral("%1 steps · last #%2: %3 · median %4")
                   .arg(n)
                   .arg(last.number)
                   .arg(formatDuration(last.end - last.start), formatDuration(TimeNs(median * 1e6))));
}

int StepStrip::stepAt(const QPoint& pos) const
{
    const Layout l = layout();
    if (m_steps.empty() || !l.plot.adjusted(0, -4, 0, 4).contains(pos)) return -1;
    const int i = l.first + (pos.x() - l.plot.left()) / l.barWidth;
    return i < int(m_steps.size()) ? i : -1;
}

void StepStrip::mouseMoveEvent(QMouseEvent* e)
{
    const int i = stepAt(e->position().toPoint());
    if (i < 0) {
        QToolTip::hideText();
        return;
    }
    const live::StepArrival& s = m_steps[size_t(i)];
    QString text = QStringLiteral("<b>step %1</b><br>%2").arg(s.number).arg(formatDuration(s.end - s.start));
    if (m_pids.size() > 1) text += QStringLiteral("<br>pid %1").arg(s.pid);
    text += QStringLiteral("<br>click to show it on the timeline");
    QToolTip::showText(e->globalPosition().toPoint(), text, this);
}

void StepStrip::mousePressEvent(QMouseEvent* e)
{
    const int i = stepAt(e->position().toPoint());
    if (i < 0 || e->button() != Qt::LeftButton) return;
    emit stepActivated(m_steps[size_t(i)].start, m_steps[size_t(i)].end);
}

} // namespace ks::ui
