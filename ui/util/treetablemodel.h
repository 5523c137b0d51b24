#pragma once

#include "ui/util/tablemodel.h"

#include <QAbstractItemModel>

namespace ks::ui {

// TableModel's tree form: the same column descriptions and roles (columnCellData: display text,
// SortRole, alignment, tooltips, the first click's sort order), over rows that nest. A node is
// named by a quintptr id the derived model chooses; 0 is the invisible root. A
// QSortFilterProxyModel with TableModel::SortRole sorts every level. Derive from RowTreeModel<Row>.
class TreeTableModel : public QAbstractItemModel {
    Q_OBJECT
public:
    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const final;
    QModelIndex parent(const QModelIndex& child) const final;
    int rowCount(const QModelIndex& parent = {}) const final;
    int columnCount(const QModelIndex& parent = {}) const final;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const final;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const final;

    // The node an index stands for (0 for an invalid one).
    static quintptr nodeOf(const QModelIndex& index) { return index.isValid() ? index.internalId() : 0; }
    // The index of a node in column 0 (invalid for the root).
    QModelIndex indexOf(quintptr node) const;

protected:
    using QAbstractItemModel::QAbstractItemModel;

    // The tree: a node's children in order, its parent (0 for the top level) and its place among
    // its parent's children.
    virtual int childCount(quintptr node) const = 0;
    virtual quintptr child(quintptr node, int i) const = 0;
    virtual quintptr parentOf(quintptr node) const = 0;
    virtual int rowOf(quintptr node) const = 0;

    virtual int columns() const = 0;
    virtual const ColumnHead& head(int column) const = 0;
    // One of a node's cells (never the root's): role as in TableModel::cell.
    virtual QVariant cell(quintptr node, int column, int role) const = 0;
    virtual QVariant rowData(quintptr node, int role) const;
};

} // namespace ks::ui
