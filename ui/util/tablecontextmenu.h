#pragma once

#include <QString>
#include <functional>

class QMenu;
class QModelIndex;
class QTableView;
class QWidget;

namespace ks::ui {

// Adds the caller's actions for a row (its name is the text of the table's name column).
using RowActions = std::function<void(QMenu* menu, const QString& name)>;

// Right-click on a row of `table`: Copy Name, Copy Row (the cells as shown, tab-separated), then
// `extra`'s actions (find in the timeline, show in another table, ...). Installing again replaces.
void installRowContextMenu(QTableView* table, int nameColumn, RowActions extra = {});

// The menu for the row of `index`, as a right-click there opens it; null without an installed
// menu or a valid index. The caller owns it.
QMenu* rowContextMenu(QTableView* table, const QModelIndex& index, QWidget* parent);

} // namespace ks::ui
