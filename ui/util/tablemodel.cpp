#include "ui/util/tablemodel.h"

namespace ks::ui {

int TableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : rows();
}

int TableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : columns();
}

QVariant TableModel::rowData(int, int) const
{
    return {};
}

QVariant TableModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rows() || index.column() >= columns()) return {};
    const int row = index.row();
    const int column = index.column();
    switch (role) {
    case Qt::DisplayRole:
    case Qt::DecorationRole:
        return cell(row, column, role);
    case SortRole: {
        QVariant v = cell(row, column, SortRole);
        return v.isValid() ? v : cell(row, column, Qt::DisplayRole);
    }
    case Qt::ToolTipRole: {
        QVariant v = cell(row, column, Qt::ToolTipRole);
        return v.isValid() ? v : rowData(row, role);
    }
    case Qt::TextAlignmentRole:
        return int(head(column).alignment);
    default:
        return rowData(row, role);
    }
}

QVariant TableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= columns()) return {};
    const ColumnHead& h = head(section);
    switch (role) {
    case Qt::DisplayRole:
        return h.title;
    case Qt::ToolTipRole:
        return h.toolTip;
    case Qt::InitialSortOrderRole:
        return int(h.firstSortOrder);
    default:
        return {};
    }
}

} // namespace ks::ui
