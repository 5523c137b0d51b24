#include "ui/memory/allocationfilterproxy.h"

#include "ui/memory/allocationtablemodel.h"

#include <limits>

namespace ks {

AllocationFilterProxy::AllocationFilterProxy(QObject* parent) : QSortFilterProxyModel(parent)
{
    setSortRole(AllocationTableModel::SortRole);
}

void AllocationFilterProxy::setSourceModel(QAbstractItemModel* model)
{
    m_allocations = qobject_cast<const AllocationTableModel*>(model);
    QSortFilterProxyModel::setSourceModel(model);
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
    m_needle = text.toLower().toStdString();
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

bool AllocationFilterProxy::filterAcceptsRow(int sourceRow, const QModelIndex&) const
{
    const MemoryAllocation* a = m_allocations ? m_allocations->allocation(sourceRow) : nullptr;
    if (!a) return false;
    if (m_category >= 0 && int(a->category) != m_category) return false;
    if (m_window) {
        const TimeNs freed = a->freeTs == kNoTime ? std::numeric_limits<TimeNs>::max() : a->freeTs;
        if (a->allocTs > m_end || freed < m_start) return false;
    }
    return m_needle.empty() || m_allocations->matches(sourceRow, m_needle);
}

bool AllocationFilterProxy::lessThan(const QModelIndex& left, const QModelIndex& right) const
{
    if (m_allocations) return m_allocations->lessThan(left.row(), right.row(), left.column());
    return QSortFilterProxyModel::lessThan(left, right);
}

} // namespace ks
