#include "ui/ranks/rankheatmap.h"

#include "ui/util/format.h"
#include "ui/util/theme.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <algorithm>

using namespace Qt::StringLiterals;

namespace ks::ui {

namespace {

constexpr int kLeft = 56;   // rank labels
constexpr int kTop = 22;    // step labels
constexpr int kLegend = 34; // the colour scale below the grid

QColor mix(const QColor& a, const QColor& b, double t)
{
    return QColor::fromRgbF(float(a.redF() + (b.redF() - a.redF()) * t),
                            float(a.greenF() + (b.greenF() - a.greenF()) * t),
                            float(a.blueF() + (b.blueF() - a.blueF()) * t));
}

} // namespace

RankHeatmap::RankHeatmap(QWidget* parent) : QWidget(parent)
{
    setMouseTracking(true);
    connect(&Theme::instance(), &Theme::changed, this, qOverload<>(&QWidget::update));
}

void RankHeatmap::setMatrix(StepMatrix matrix, const QString& valueName)
{
    m_matrix = std::move(matrix);
    m_valueName = valueName;
    m_min = 0;
    m_max = 0;
    bool any = false;
    for (TimeNs v : m_matrix.values) {
        if (v < 0) continue;
        m_min = any ? std::min(m_min, v) : v;
        m_max = any ? std::max(m_max, v) : v;
        any = true;
    }
    m_columnMedian.assign(m_matrix.steps.size(), -1);
    for (size_t c = 0; c < m_matrix.steps.size(); ++c) {
        std::vector<TimeNs> col;
        for (size_t r = 0; r < m_matrix.ranks.size(); ++r)
            if (m_matrix.at(r, c) >= 0) col.push_back(m_matrix.at(r, c));
        if (col.empty()) continue;
        std::nth_element(col.begin(), col.begin() + ptrdiff_t(col.size() / 2), col.end());
        m_columnMedian[c] = col[col.size() / 2];
    }
    m_selectedRow = m_selectedColumn = -1;
    update();
}

QRect RankHeatmap::gridRect() const
{
    return QRect(kLeft, kTop, std::max(1, width() - kLeft - 8), std::max(1, height() - kTop - kLegend));
}

QRect RankHeatmap::cellRect(int row, int column) const
{
    const QRect g = gridRect();
    const int rows = std::max<int>(1, int(m_matrix.ranks.size())),
              cols = std::max<int>(1, int(m_matrix.steps.size()));
    const int x0 = g.left() + column * g.width() / cols, x1 = g.left() + (column + 1) * g.width() / cols;
    const int y0 = g.top() + row * g.height() / rows, y1 = g.top() + (row + 1) * g.height() / rows;
    return QRect(QPoint(x0, y0), QPoint(x1 - 1, y1 - 1));
}

bool RankHeatmap::cellAt(QPoint p, int& row, int& column) const
{
    const QRect g = gridRect();
    if (m_matrix.ranks.empty() || m_matrix.steps.empty() || !g.contains(p)) return false;
    row = std::clamp(int(int64_t(p.y() - g.top()) * int64_t(m_matrix.ranks.size()) / g.height()), 0,
                     int(m_matrix.ranks.size()) - 1);
    column = std::clamp(int(int64_t(p.x() - g.left()) * int64_t(m_matrix.steps.size()) / g.width()), 0,
                        int(m_matrix.steps.size()) - 1);
    return true;
}

QColor RankHeatmap::colorFor(TimeNs v) const
{
    const Palette& pal = Theme::palette();
    if (v < 0) return pal.heatMissing;
    const double t = m_max > m_min ? double(v - m_min) / double(m_max - m_min) : 0.0;
    return t < 0.5 ? mix(pal.heatLow, pal.heatMid, t * 2) : mix(pal.heatMid, pal.heatHigh, (t - 0.5) * 2);
}

void RankHeatmap::paintEvent(QPaintEvent*)
{
    const Palette& pal = Theme::palette();
    QPainter p(this);
    p.fillRect(rect(), pal.base);
    if (m_matrix.ranks.empty() || m_matrix.steps.empty()) {
        p.setPen(pal.hintText);
        p.drawText(rect(), Qt::AlignCenter, u"No steps in this job"_s);
        return;
    }
    const QRect g = gridRect();
    const int rows = int(m_matrix.ranks.size()), cols = int(m_matrix.steps.size());
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c)
            p.fillRect(cellRect(r, c), colorFor(m_matrix.at(size_t(r), size_t(c))));

    // Labels: every rank when rows are tall enough, else every k-th.
    const QFontMetrics fm(font());
    p.setPen(pal.mutedText);
    const int rowH = std::max(1, g.height() / rows);
    const int every = std::max(1, (fm.height() + rowH - 1) / rowH);
    for (int r = 0; r < rows; r += every) {
        const QRect cr = cellRect(r, 0);
        p.drawText(QRect(0, cr.top(), kLeft - 6, std::max(cr.height(), fm.height())),
                   Qt::AlignRight | Qt::AlignVCenter, QString::number(m_matrix.ranks[size_t(r)]));
    }
    const int colW = std::max(1, g.width() / cols);
    const int everyCol = std::max(1, (fm.horizontalAdvance(u"#0000"_s) + colW - 1) / colW);
    for (int c = 0; c < cols; c += everyCol) {
        const QRect cr = cellRect(0, c);
        p.drawText(QRect(cr.left(), 0, std::max(cr.width(), 40), kTop - 4), Qt::AlignLeft | Qt::AlignBottom,
                   u"#"_s + QString::number(m_matrix.steps[size_t(c)]));
    }
    p.save();
    p.translate(12, g.center().y());
    p.rotate(-90);
    p.drawText(QRect(-60, -10, 120, 20), Qt::AlignCenter, u"rank"_s);
    p.restore();

    auto outline = [&](int r, int c, const QColor& color) {
        if (r < 0 || c < 0 || r >= rows || c >= cols) return;
        p.setPen(QPen(color, 2));
        p.setBrush(Qt::NoBrush);
        p.drawRect(cellRect(r, c).adjusted(0, 0, -1, -1));
    };
    outline(m_hoverRow, m_hoverColumn, pal.text);
    outline(m_selectedRow, m_selectedColumn, pal.selection);

    // The scale.
    const QRect bar(g.left(), g.bottom() + 10, std::min(260, g.width()), 10);
    for (int x = 0; x < bar.width(); ++x) {
        const TimeNs v = m_min + TimeNs(double(m_max - m_min) * x / std::max(1, bar.width() - 1));
        p.fillRect(QRect(bar.left() + x, bar.top(), 1, bar.height()), colorFor(v));
    }
    p.setPen(pal.mutedText);
    p.drawText(QRect(bar.left(), bar.bottom() + 1, bar.width(), fm.height()), Qt::AlignLeft,
               formatDuration(m_min));
    p.drawText(QRect(bar.left(), bar.bottom() + 1, bar.width(), fm.height()), Qt::AlignRight,
               formatDuration(m_max));
    p.drawText(QRect(bar.right() + 10, bar.top() - 3, width() - bar.right() - 10, fm.height()), Qt::AlignLeft,
               m_valueName + u" per rank and step · click a cell to open that rank there"_s);
}

void RankHeatmap::mouseMoveEvent(QMouseEvent* e)
{
    int r = -1, c = -1;
    if (!cellAt(e->position().toPoint(), r, c)) r = c = -1;
    if (r != m_hoverRow || c != m_hoverColumn) {
        m_hoverRow = r;
        m_hoverColumn = c;
        update();
    }
}

void RankHeatmap::leaveEvent(QEvent*)
{
    m_hoverRow = m_hoverColumn = -1;
    update();
}

void RankHeatmap::mousePressEvent(QMouseEvent* e)
{
    int r = -1, c = -1;
    if (e->button() != Qt::LeftButton || !cellAt(e->position().toPoint(), r, c)) return;
    m_selectedRow = r;
    m_selectedColumn = c;
    update();
    emit cellClicked(r, c);
}

bool RankHeatmap::event(QEvent* e)
{
    if (e->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(e);
        int r = -1, c = -1;
        if (!cellAt(help->pos(), r, c)) {
            QToolTip::hideText();
            return true;
        }
        const TimeNs v = m_matrix.at(size_t(r), size_t(c));
        QString text = u"Rank %1, step #%2: "_s.arg(m_matrix.ranks[size_t(r)]).arg(m_matrix.steps[size_t(c)]);
        if (v < 0) {
            text += u"not captured on this rank"_s;
        } else {
            text += m_valueName + u" "_s + formatDuration(v);
            const TimeNs median = m_columnMedian[size_t(c)];
            if (median > 0)
                text += u" (%1%2 vs. the step's median)"_s.arg(v >= median ? u"+"_s : QString())
                            .arg(formatPercent(double(v - median) / double(median)));
        }
        QToolTip::showText(help->globalPos(), text, this);
        return true;
    }
    return QWidget::event(e);
}

} // namespace ks::ui
