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

} // namespace ks::ui
