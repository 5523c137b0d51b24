#include "ui/panels/kernelfiltermodel.h"

#include "ui/panels/kerneltablemodel.h"

namespace ks::ui {

KernelFilterModel::KernelFilterModel(QObject* parent) : QSortFilterProxyModel(parent)
{
    setSortRole(KernelTableModel::SortRole);
    setSortCaseSensitivity(Qt::CaseInsensitive);
}

void KernelFilterModel::setFilterText(const QString& text)
{
    if (text == m_text) return;
    m_text = text;
    invalidateFilter();
}

bool KernelFilterModel::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const
{
    if (m_text.isEmpty()) return true;
    const QModelIndex idx = sourceModel()->index(sourceRow, 0, sourceParent);
    return idx.data(KernelTableModel::FilterTextRole).toString().contains(m_text, Qt::CaseInsensitive);
}

} // namespace ks::ui
