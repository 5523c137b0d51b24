#include "ui/util/charttheme.h"

#include "ui/util/theme.h"

#include <QAbstractAxis>
#include <QChart>
#include <QChartView>
#include <QLegend>
#include <QLineSeries>
#include <QScatterSeries>

namespace ks::ui {

namespace {

void apply(QChartView* view)
{
    QChart* c = view->chart();
    if (!c) return;
    const Palette& p = Theme::palette();
    c->setBackgroundBrush(p.base);
    c->setBackgroundPen(QPen(p.border));
    c->setTitleBrush(p.text);
    c->legend()->setLabelColor(p.text);
    view->setBackgroundBrush(p.header);
    for (QAbstractAxis* a : c->axes()) {
        a->setLabelsColor(p.text);
        a->setTitleBrush(p.text);
        a->setLinePenColor(p.border);
        a->setGridLineColor(p.grid);
        a->setMinorGridLineColor(p.separator);
    }
    // Lines drawn "in ink" (the roofline's roof).
    for (QAbstractSeries* s : c->series())
        if (auto* line = qobject_cast<QLineSeries*>(s); line && !qobject_cast<QScatterSeries*>(s)) {
            QPen pen = line->pen();
            pen.setColor(p.text);
            line->setPen(pen);
        }
}

} // namespace

void followThemeInChart(QChartView* view)
{
    apply(view);
    QObject::connect(&Theme::instance(), &Theme::changed, view, [view] { apply(view); });
}

} // namespace ks::ui
