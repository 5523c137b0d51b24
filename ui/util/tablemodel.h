#pragma once

#include "ui/util/tablecolumn.h"

#include <QAbstractTableModel>
#include <functional>

namespace ks::ui {

// The item-model roles of one cell, answered from its column (ColumnHead) and two functions of the
// role: the cell's own value (Qt::DisplayRole, SortRole, Qt::ToolTipRole, Qt::DecorationRole) and
// the row's (any other role, and the tooltip of a cell without one). Shared by TableModel (flat
// tables) and TreeTableModel (trees), so both answer alike.
QVariant columnCellData(const ColumnHead& head, int role, const std::function<QVariant(int)>& cell,
                        const std::function<QVariant(int)>& rowData);
// A header's roles: title, tooltip and the first click's sort order.
QVariant columnHeaderData(const ColumnHead& head, int role);

// The one implementation of data() and headerData() behind every flat table in the UI. A table
// describes its columns (ColumnHead plus cells) and its rows; this class answers the item-model
// roles from that: display text, SortRole (raw values), alignment, cell and header tooltips, and
// Qt::InitialSortOrderRole, so the first click on a header sorts the way the column says. Derive
// from RowTableModel<Row> rather than from this class directly (RowTreeModel<Row> for trees).
class TableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Role {
        SortRole = Qt::UserRole, // the raw value a QSortFilterProxyModel sorts by
        FirstModelRole,          // a derived model's own roles start here
    };

    int rowCount(const QModelIndex& parent = {}) const final;
    int columnCount(const QModelIndex& parent = {}) const final;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const final;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const final;

protected:
    using QAbstractTableModel::QAbstractTableModel;

    virtual int rows() const = 0;
    virtual int columns() const = 0;
    // column is in [0, columns()).
    virtual const ColumnHead& head(int column) const = 0;
    // One of the column's cells: role is Qt::DisplayRole, SortRole, Qt::ToolTipRole or
    // Qt::DecorationRole. row and column are in range.
    virtual QVariant cell(int row, int column, int role) const = 0;
    // Roles that belong to the row rather than to a column (a derived model's own roles, a row
    // tooltip for columns without one).
    virtual QVariant rowData(int row, int role) const;
};

// The cell of `row` in `col` for one of the roles TableModel::cell is asked for (the same for a
// flat table's RowTableModel and a tree's RowTreeModel): null where the column has no function
// for that role.
template <typename Row>
QVariant columnCell(const TableColumn<Row>& col, const Row& row, int role)
{
    const typename TableColumn<Row>::Cell* f = role == Qt::DisplayRole        ? &col.display
                                               : role == TableModel::SortRole ? &col.sortKey
                                               : role == Qt::ToolTipRole      ? &col.cellToolTip
                                               : role == Qt::DecorationRole   ? &col.decoration
                                                                              : nullptr;
    return f && *f ? (*f)(row) : QVariant();
}

} // namespace ks::ui
