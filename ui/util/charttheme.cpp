#include "ui/util/charttheme.h"

#include "ui/util/theme.h"

#include <QAbstractAxis>
#include <QChart>
#include <QChartView>
#include <QLegend>

namespace ks::ui {

namespace {

void applyTheme(QChartView* view)
{
    QChart* c = view->chart();
    if (!c) return;
    const Palette& pal = Theme::palette();
    c->setBackgroundBrush(pal.base);
    c->setTitleBrush(pal.text);
    c->legend()->setLabelColor(pal.text);
    const QList<QAbstractAxis*> axes = c->axes();
    for (QAbstractAxis* axis : axes) {
        axis->setLabelsColor(pal.text);
        axis->setTitleBrush(pal.text);
        axis->setLinePenColor(pal.border);
        axis->setGridLineColor(pal.separator);
    }
    view->setBackgroundBrush(pal.base);
}

} // namespace

void followThemeInChart(QChartView* view)
{
    applyTheme(view);
    QObject::connect(&Theme::instance(), &Theme::changed, view, [view] { applyTheme(view); });
}

} // namespace ks::ui
