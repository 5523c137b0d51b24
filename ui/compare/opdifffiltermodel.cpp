#include "ui/compare/opdifffiltermodel.h"

#include "ui/compare/opdiffmodel.h"

namespace ks::ui {

OpDiffFilterModel::OpDiffFilterModel(QObject* parent) : QSortFilterProxyModel(parent)
{
    setSortRole(TableModel::SortRole);
}

void OpDiffFilterModel::setCategory(int category, bool byTime)
{
    m_category = category;
    m_byTime = byTime;
    invalidateFilter();
}

void OpDiffFilterModel::setText(const QString& text)
{
    m_text = text;
    invalidateFilter();
}

bool OpDiffFilterModel::filterAcceptsRow(int sourceRow, const QModelIndex&) const
{
    const auto* m = qobject_cast<const OpDiffModel*>(sourceModel());
    const OpDiffRow* r = m ? m->row(sourceRow) : nullptr;
    if (!r) return false;
    if (m_category >= 0 && int(m_byTime ? r->byDuration : r->byCount) != m_category) return false;
    return m_text.isEmpty() || QString::fromStdString(r->name).contains(m_text, Qt::CaseInsensitive);
}

} // namespace ks::ui
