#include "ui/util/tablecontextmenu.h"

#include <QApplication>
#include <QClipboard>
#include <QFontMetrics>
#include <QMenu>
#include <QTableView>

namespace ks::ui {

namespace {

// What a table's menu offers, kept on the table as a child object.
class RowMenuConfig : public QObject {
public:
    RowMenuConfig(QTableView* table, int nameColumn, RowActions extra)
        : QObject(table), nameColumn(nameColumn), extra(std::move(extra))
    {
        setObjectName(QStringLiteral("rowMenuConfig"));
    }
    int nameColumn;
    RowActions extra;
};

RowMenuConfig* configOf(const QTableView* table)
{
    return table->findChild<RowMenuConfig*>(QStringLiteral("rowMenuConfig"), Qt::FindDirectChildrenOnly);
}

} // namespace

void installRowContextMenu(QTableView* table, int nameColumn, RowActions extra)
{
    delete configOf(table);
    new RowMenuConfig(table, nameColumn, std::move(extra));
    table->setContextMenuPolicy(Qt::CustomContextMenu);
    QObject::disconnect(table, &QWidget::customContextMenuRequested, nullptr, nullptr);
    QObject::connect(table, &QWidget::customContextMenuRequested, table, [table](const QPoint& pos) {
        QMenu* menu = rowContextMenu(table, table->indexAt(pos), table);
        if (!menu) return;
        menu->setAttribute(Qt::WA_DeleteOnClose);
        menu->popup(table->viewport()->mapToGlobal(pos));
    });
}

QMenu* rowContextMenu(QTableView* table, const QModelIndex& index, QWidget* parent)
{
    const RowMenuConfig* config = configOf(table);
    if (!config || !index.isValid()) return nullptr;
    const QAbstractItemModel* model = index.model();
    const int row = index.row();
    const QString name = model->index(row, config->nameColumn, index.parent()).data().toString();
    QStringList cells;
    for (int c = 0; c < model->columnCount(index.parent()); ++c)
        if (!table->isColumnHidden(c)) cells << model->index(row, c, index.parent()).data().toString();

    auto* menu = new QMenu(parent);
    menu->setObjectName(QStringLiteral("rowContextMenu"));
    if (!name.isEmpty()) {
        QString title = QFontMetrics(menu->font()).elidedText(name, Qt::ElideMiddle, 360);
        menu->addSection(title.replace(QLatin1Char('&'), QStringLiteral("&&")));
    }
    menu->addAction(QStringLiteral("&Copy Name"), menu, [name] { QApplication::clipboard()->setText(name); })
        ->setObjectName(QStringLiteral("copyName"));
    menu->addAction(QStringLiteral("Copy &Row"), menu,
                    [cells] { QApplication::clipboard()->setText(cells.join(QLatin1Char('\t'))); })
        ->setObjectName(QStringLiteral("copyRow"));
    if (config->extra && !name.isEmpty()) {
        menu->addSeparator();
        config->extra(menu, name);
    }
    return menu;
}

} // namespace ks::ui
