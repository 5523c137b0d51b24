#include "memory/allocationfilterproxy.h"

#include "memory/allocationtablemodel.h"

namespace ks {

AllocationFilterProxy::AllocationFilterProxy(QObject* parent) : QSortFilterProxyModel(parent)
{
    setSortRole(AllocationTableModel::SortRole);
}

void AllocationFilterProxy::setCategory(int category)
{
    if (category == m_category) return;
    m_category = category;
    invalidateFilter();
}

void AllocationFilterProxy::setText(const QString& text)
{
    if (text == m_text) return;
    m_text = text;
    invalidateFilter();
}

void AllocationFilterProxy::setAliveWithin(qint64 start, qint64 end)
{
    if (end < start) std::swap(start, end);
    m_window = true;
    m_start = start;
    m_end = end;
    invalidateFilter();
}

void AllocationFilterProxy::clearAliveWithin()
{
    if (!m_window) return;
    m_window = false;
    invalidateFilter();
}

bool AllocationFilterProxy::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const
{
    const QAbstractItemModel* m = sourceModel();
    if (!m) return false;
    const QModelIndex first = m->index(sourceRow, 0, sourceParent);
    if (m_category >= 0 && m->data(first, AllocationTableModel::CategoryRole).toInt() != m_category)
        return false;
    if (m_window) {
        const qint64 a = m->data(first, AllocationTableModel::AllocTimeRole).toLongLong();
        const qint64 f = m->data(first, AllocationTableModel::FreeTimeRole).toLongLong();
        if (a > m_end || f < m_start) return false;
    }
    if (!m_text.isEmpty()) {
        for (int c : {AllocationTableModel::Address, AllocationTableModel::Category,
                      AllocationTableModel::AllocatedBy, AllocationTableModel::FreedBy})
            if (m->data(m->index(sourceRow, c, sourceParent))
                    .toString()
                    .contains(m_text, Qt::CaseInsensitive))
                return true;
        return false;
    }
    return true;
}

} // namespace ks
