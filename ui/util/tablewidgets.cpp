#include "ui/util/tablewidgets.h"

#include <QHeaderView>
#include <QTableView>
#include <QToolButton>

namespace ks::ui {

QTableView* newStatsTable(QAbstractItemModel* model, QWidget* parent)
{
    auto* table = new QTableView(parent);
    table->setModel(model);
    table->setSortingEnabled(true);
    table->setSelectionBehavior(QAbstractItemView::SelectRows);
    table->setAlternatingRowColors(true);
    table->setWordWrap(false);
    table->setTextElideMode(Qt::ElideMiddle);
    table->verticalHeader()->hide();
    table->verticalHeader()->setDefaultSectionSize(20);
    return table;
}

QToolButton* newOccurrenceButton(bool next, QWidget* parent)
{
    auto* b = new QToolButton(parent);
    b->setText(next ? QStringLiteral("Next ▶") : QStringLiteral("◀ Previous"));
    b->setToolTip(next ? QStringLiteral("Next occurrence in the timeline")
                       : QStringLiteral("Previous occurrence in the timeline"));
    return b;
}

} // namespace ks::ui
