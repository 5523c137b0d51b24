#include "ui/util/tablewidgets.h"

#include <QHeaderView>
#include <QPointer>
#include <QTableView>
#include <QTimer>
#include <QToolButton>
#include <algorithm>

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
    table->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    table->horizontalHeader()->setStretchLastSection(true);
    fitColumnsOnReset(table);
    return table;
}

void fitColumnsToContents(QTableView* table, int maxWidth)
{
    QAbstractItemModel* model = table->model();
    if (!model) return;
    QHeaderView* h = table->horizontalHeader();
    const int columns = model->columnCount();
    for (int c = 0; c < columns; ++c) {
        if (table->isColumnHidden(c)) continue;
        // sizeHintForColumn measures the rows in view (and a sample around them), so this stays
        // cheap on tables of a million rows.
        const QAbstractItemView* view = table; // sizeHintForColumn is public there
        const int want = std::max(view->sizeHintForColumn(c), h->sectionSizeHint(c));
        table->setColumnWidth(c, std::min(want, maxWidth));
    }
}

void fitColumnsOnReset(QTableView* table, int maxWidth)
{
    QAbstractItemModel* model = table->model();
    if (!model) return;
    auto* timer = new QTimer(table);
    timer->setSingleShot(true);
    timer->setInterval(0);
    QObject::connect(timer, &QTimer::timeout, table,
                     [table, maxWidth] { fitColumnsToContents(table, maxWidth); });
    auto schedule = [timer] { timer->start(); };
    QObject::connect(model, &QAbstractItemModel::modelReset, timer, schedule);
    // Rows arriving in an empty table (a filter proxy fills itself by inserting).
    QObject::connect(model, &QAbstractItemModel::rowsInserted, timer,
                     [timer, model](const QModelIndex& parent, int first, int last) {
                         if (!parent.isValid() && first == 0 && last + 1 == model->rowCount()) timer->start();
                     });
    QObject::connect(model, &QAbstractItemModel::columnsInserted, timer, schedule);
    QObject::connect(model, &QAbstractItemModel::columnsRemoved, timer, schedule);
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
