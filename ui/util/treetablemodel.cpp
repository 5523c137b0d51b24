#include "ui/util/treetablemodel.h"

namespace ks::ui {

QModelIndex TreeTableModel::index(int row, int column, const QModelIndex& parent) const
{
    const quintptr p = nodeOf(parent);
    if (row < 0 || column < 0 || column >= columns() || row >= childCount(p)) return {};
    return createIndex(row, column, child(p, row));
}

QModelIndex TreeTableModel::parent(const QModelIndex& index) const
{
    if (!index.isValid()) return {};
    return indexOf(parentOf(index.internalId()));
}

QModelIndex TreeTableModel::indexOf(quintptr node) const
{
    if (node == 0) return {};
    return createIndex(rowOf(node), 0, node);
}

int TreeTableModel::rowCount(const QModelIndex& parent) const
{
    if (parent.isValid() && parent.column() != 0) return 0;
    return childCount(nodeOf(parent));
}

int TreeTableModel::columnCount(const QModelIndex&) const
{
    return columns();
}

QVariant TreeTableModel::rowData(quintptr, int) const
{
    return {};
}

QVariant TreeTableModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.column() >= columns()) return {};
    const quintptr node = index.internalId();
    const int column = index.column();
    return columnCellData(
        head(column), role, [&](int r) { return cell(node, column, r); },
        [&](int r) { return rowData(node, r); });
}

QVariant TreeTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= columns()) return {};
    return columnHeaderData(head(section), role);
}

} // namespace ks::ui
