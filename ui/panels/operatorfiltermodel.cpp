#include "ui/panels/operatorfiltermodel.h"

#include "ui/panels/operatortablemodel.h"

namespace ks::ui {

OperatorFilterModel::OperatorFilterModel(QObject* parent) : QSortFilterProxyModel(parent)
{
    setSortRole(OperatorTableModel::SortRole);
}

void OperatorFilterModel::setFilterText(const QString& text)
{
    m_text = text.trimmed();
    invalidateFilter();
}

void OperatorFilterModel::setTopLevelOnly(bool on)
{
    m_topLevelOnly = on;
    invalidateFilter();
}

bool OperatorFilterModel::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const
{
    const QModelIndex name = sourceModel()->index(sourceRow, 0, sourceParent);
    if (m_topLevelOnly && !name.data(OperatorTableModel::TopLevelRole).toBool()) return false;
    if (m_text.isEmpty()) return true;
    return name.data(Qt::DisplayRole).toString().contains(m_text, Qt::CaseInsensitive);
}

} // namespace ks::ui
