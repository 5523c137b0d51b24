#include "memory/allocationtablemodel.h"

#include "memory/memoryformat.h"

#include <QColor>
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <limits>
#include <tuple>

namespace ks {

AllocationTableModel::AllocationTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void AllocationTableModel::setDevice(const MemoryTimeline* timeline, const MemoryDeviceTimeline* device)
{
    beginResetModel();
    m_timeline = timeline;
    m_device = timeline ? device : nullptr;
    m_origin = timeline && timeline->trace() ? timeline->trace()->startTime() : 0;
    endResetModel();
}

const MemoryAllocation* AllocationTableModel::allocation(int row) const
{
    if (!m_device || row < 0 || size_t(row) >= m_device->allocations.size()) return nullptr;
    return &m_device->allocations[size_t(row)];
}

int AllocationTableModel::rowCount(const QModelIndex& parent) const
{
    if (parent.isValid() || !m_device) return 0;
    return int(std::min<size_t>(m_device->allocations.size(), size_t(std::numeric_limits<int>::max())));
}

int AllocationTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QString AllocationTableModel::opName(SliceRef op) const
{
    if (!op.valid() || !m_timeline || !m_timeline->trace()) return QString();
    return QString::fromUtf8(m_timeline->trace()->sliceName(op));
}

std::string_view AllocationTableModel::opView(SliceRef op) const
{
    if (!op.valid() || !m_timeline || !m_timeline->trace()) return {};
    return m_timeline->trace()->sliceName(op);
}

bool AllocationTableModel::lessThan(int rowA, int rowB, int column) const
{
    const MemoryAllocation* a = allocation(rowA);
    const MemoryAllocation* b = allocation(rowB);
    if (!a || !b) return a < b;
    // Alive blocks sort after every free time, pre-existing ones before every allocation time.
    auto freeKey = [](const MemoryAllocation* x) {
        return x->freeTs == kNoTime ? std::numeric_limits<TimeNs>::max() : x->freeTs;
    };
    auto lifetime = [](const MemoryAllocation* x) {
        return x->allocTs != kNoTime && x->freeTs != kNoTime ? x->freeTs - x->allocTs : TimeNs(-1);
    };
    switch (column) {
    case Address:
        return std::tuple(a->flags & MemoryAllocation::kBaseline, a->addr) <
               std::tuple(b->flags & MemoryAllocation::kBaseline, b->addr);
    case Size:
        return a->bytes < b->bytes;
    case Category:
        return a->category < b->category;
    case AllocatedAt:
        return a->allocTs < b->allocTs;
    case AllocatedBy:
        return opView(a->allocOp) < opView(b->allocOp);
    case FreedAt:
        return freeKey(a) < freeKey(b);
    case FreedBy:
        return opView(a->freeOp) < opView(b->freeOp);
    case Lifetime:
        return lifetime(a) < lifetime(b);
    case Rule:
        return memoryRuleId(a->rule) < memoryRuleId(b->rule);
    }
    return rowA < rowB;
}

bool AllocationTableModel::matches(int row, std::string_view needle) const
{
    const MemoryAllocation* a = allocation(row);
    if (!a) return false;
    auto contains = [needle](std::string_view hay) {
        return std::search(hay.begin(), hay.end(), needle.begin(), needle.end(), [](char x, char y) {
                   return std::tolower(static_cast<unsigned char>(x)) == y;
               }) != hay.end();
    };
    char addr[32];
    std::snprintf(addr, sizeof addr, "0x%llx", static_cast<unsigned long long>(a->addr));
    return contains(addr) || contains(memoryCategoryName(a->category)) || contains(opView(a->allocOp)) ||
           contains(opView(a->freeOp));
}

QString AllocationTableModel::timeText(TimeNs t, bool before) const
{
    if (t == kNoTime) return before ? tr("before the trace") : tr("alive at end");
    return formatMillis(t - m_origin);
}

QVariant AllocationTableModel::data(const QModelIndex& index, int role) const
{
    const MemoryAllocation* a = index.isValid() ? allocation(index.row()) : nullptr;
    if (!a || index.column() < 0 || index.column() >= ColumnCount) return {};
    const bool known = a->allocTs != kNoTime && a->freeTs != kNoTime;
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case Address:
            if (a->flags & MemoryAllocation::kBaseline) return tr("(untouched baseline)");
            if (a->flags & MemoryAllocation::kPairedBySize) return tr("(no address)");
            return QStringLiteral("0x%1").arg(a->addr, 0, 16);
        case Size:
            return formatBytes(a->bytes);
        case Category:
            return QString::fromLatin1(memoryCategoryName(a->category));
        case AllocatedAt:
            return timeText(a->allocTs, true);
        case AllocatedBy:
            return opName(a->allocOp);
        case FreedAt:
            return timeText(a->freeTs, false);
        case FreedBy:
            return opName(a->freeOp);
        case Lifetime:
            return known ? formatDuration(a->freeTs - a->allocTs) : QString();
        case Rule:
            return QString::fromLatin1(memoryRuleId(a->rule));
        }
        break;
    case Qt::ToolTipRole:
        if (index.column() == Rule || index.column() == Category)
            return QString::fromLatin1(memoryRuleSummary(a->rule));
        if (index.column() == Size && (a->flags & MemoryAllocation::kSizeMismatch))
            return tr("freed as %1").arg(formatBytes(a->freedBytes));
        break;
    case Qt::DecorationRole:
        if (index.column() == Category) return QColor::fromRgb(memoryCategoryColor(a->category));
        break;
    case Qt::TextAlignmentRole:
        if (index.column() == Size || index.column() == AllocatedAt || index.column() == FreedAt ||
            index.column() == Lifetime)
            return QVariant(Qt::AlignRight | Qt::AlignVCenter);
        break;
    case SortRole:
        switch (index.column()) {
        case Address:
            return QVariant::fromValue<qulonglong>(a->addr);
        case Size:
            return QVariant::fromValue<qlonglong>(a->bytes);
        case Category:
            return int(a->category);
        case AllocatedAt:
            return QVariant::fromValue<qlonglong>(a->allocTs);
        case FreedAt:
            return QVariant::fromValue<qlonglong>(a->freeTs == kNoTime ? std::numeric_limits<qlonglong>::max()
                                                                       : a->freeTs);
        case Lifetime:
            return QVariant::fromValue<qlonglong>(known ? a->freeTs - a->allocTs : -1);
        case Rule:
            return int(a->rule);
        default:
            return data(index, Qt::DisplayRole);
        }
    case CategoryRole:
        return int(a->category);
    case AllocationRole:
        return index.row();
    case AllocTimeRole:
        return QVariant::fromValue<qlonglong>(a->allocTs);
    case FreeTimeRole:
        return QVariant::fromValue<qlonglong>(a->freeTs == kNoTime ? std::numeric_limits<qlonglong>::max()
                                                                   : a->freeTs);
    case AllocOpRole:
        return QVariant::fromValue(a->allocOp);
    case FreeOpRole:
        return QVariant::fromValue(a->freeOp);
    }
    return {};
}

QVariant AllocationTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
    case Address:
        return tr("Address");
    case Size:
        return tr("Bytes");
    case Category:
        return tr("Category");
    case AllocatedAt:
        return tr("Allocated at");
    case AllocatedBy:
        return tr("Allocated by");
    case FreedAt:
        return tr("Freed at");
    case FreedBy:
        return tr("Freed by");
    case Lifetime:
        return tr("Lifetime");
    case Rule:
        return tr("Rule");
    }
    return {};
}

} // namespace ks
