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

QVariant columnCellData(const ColumnHead& head, int role, const std::function<QVariant(int)>& cell,
                        const std::function<QVariant(int)>& rowData)
{
    switch (role) {
    case Qt::DisplayRole:
    case Qt::DecorationRole:
        return cell(role);
    case TableModel::SortRole: {
        QVariant v = cell(TableModel::SortRole);
        return v.isValid() ? v : cell(Qt::DisplayRole);
    }
    case Qt::ToolTipRole: {
        QVariant v = cell(Qt::ToolTipRole);
        return v.isValid() ? v : rowData(role);
    }
    case Qt::TextAlignmentRole:
        return int(head.alignment);
    default:
        return rowData(role);
    }
}

QVariant columnHeaderData(const ColumnHead& h, int role)
{
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

QVariant TableModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rows() || index.column() >= columns()) return {};
    const int row = index.row();
    const int column = index.column();
    return columnCellData(
        head(column), role, [&](int r) { return cell(row, column, r); },
        [&](int r) { return rowData(row, r); });
}

QVariant TableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= columns()) return {};
    return columnHeaderData(head(section), role);
}

} // namespace ks::ui
