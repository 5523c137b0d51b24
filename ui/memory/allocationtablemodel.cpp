#include "ui/memory/allocationtablemodel.h"

#include "ui/util/format.h"

#include <QColor>
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <limits>
#include <tuple>

using namespace Qt::StringLiterals;

namespace ks {

namespace {

// Alive blocks sort after every free time.
qlonglong freeKey(const MemoryAllocation& a)
{
    return a.freeTs == kNoTime ? std::numeric_limits<qlonglong>::max() : a.freeTs;
}

// -1 when the block was allocated before the trace or is still alive.
qlonglong lifetime(const MemoryAllocation& a)
{
    return a.allocTs != kNoTime && a.freeTs != kNoTime ? a.freeTs - a.allocTs : -1;
}

QString ruleSummary(const MemoryAllocation& a)
{
    return QString::fromLatin1(memoryRuleSummary(a.rule));
}

} // namespace

AllocationTableModel::AllocationTableModel(QObject* parent) : RowTableModel(parent)
{
    using C = Column;
    using A = const MemoryAllocation&;
    // In ColumnId order. The proxy sorts with lessThan(); sortKey serves other views.
    setColumns({
        C::text(
            tr("Address"), tr("Device address of the block"),
            [](A a) {
                if (a.flags & MemoryAllocation::kBaseline) return tr("(untouched baseline)");
                if (a.flags & MemoryAllocation::kPairedBySize) return tr("(no address)");
                return u"0x%1"_s.arg(a.addr, 0, 16);
            },
            [](A a) { return qulonglong(a.addr); }),
        C::number(
            tr("Bytes"), tr("Size of the block"), [](A a) { return ui::formatBytes(double(a.bytes)); },
            [](A a) { return qlonglong(a.bytes); })
            .withCellToolTip([](A a) {
                return a.flags & MemoryAllocation::kSizeMismatch
                           ? QVariant(tr("freed as %1").arg(ui::formatBytes(double(a.freedBytes))))
                           : QVariant();
            }),
        C::text(
            tr("Category"), tr("What the block holds, as the rule in the Rule column decided"),
            [](A a) { return QString::fromLatin1(memoryCategoryName(a.category)); },
            [](A a) { return int(a.category); })
            .withCellToolTip(ruleSummary)
            .withDecoration([](A a) { return QColor::fromRgb(memoryCategoryColor(a.category)); }),
        // Times on the trace axis read chronologically on the first click, unlike costs.
        C::number(
            tr("Allocated at"), tr("When the block was allocated, from the trace start"),
            [this](A a) { return timeText(a.allocTs, true); }, [](A a) { return qlonglong(a.allocTs); })
            .withFirstSortOrder(Qt::AscendingOrder),
        C::text(tr("Allocated by"), tr("The op that was running when the block was allocated"),
                [this](A a) { return opName(a.allocOp); }),
        C::number(
            tr("Freed at"), tr("When the block was freed, from the trace start"),
            [this](A a) { return timeText(a.freeTs, false); }, freeKey)
            .withFirstSortOrder(Qt::AscendingOrder),
        C::text(tr("Freed by"), tr("The op that was running when the block was freed"),
                [this](A a) { return opName(a.freeOp); }),
        C::number(
            tr("Lifetime"), tr("Time from allocation to free"),
            [](A a) { return lifetime(a) >= 0 ? ui::formatDuration(lifetime(a)) : QString(); }, lifetime),
        C::text(
            tr("Rule"), tr("The classification rule that chose the category"),
            [](A a) { return QString::fromLatin1(memoryRuleId(a.rule)); }, [](A a) { return int(a.rule); })
            .withCellToolTip(ruleSummary),
    });
}

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

int AllocationTableModel::rowCountOf() const
{
    if (!m_device) return 0;
    return int(std::min<size_t>(m_device->allocations.size(), size_t(std::numeric_limits<int>::max())));
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
    // Pre-existing blocks sort before every allocation time (kNoTime is the minimum).
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
        return freeKey(*a) < freeKey(*b);
    case FreedBy:
        return opView(a->freeOp) < opView(b->freeOp);
    case Lifetime:
        return lifetime(*a) < lifetime(*b);
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
    return ui::formatMillis(t - m_origin);
}

QVariant AllocationTableModel::rowData(int row, int role) const
{
    const MemoryAllocation* a = allocation(row);
    if (!a) return {};
    switch (role) {
    case CategoryRole:
        return int(a->category);
    case AllocationRole:
        return row;
    case AllocTimeRole:
        return QVariant::fromValue<qlonglong>(a->allocTs);
    case FreeTimeRole:
        return QVariant::fromValue<qlonglong>(freeKey(*a));
    case AllocOpRole:
        return QVariant::fromValue(a->allocOp);
    case FreeOpRole:
        return QVariant::fromValue(a->freeOp);
    }
    return {};
}

} // namespace ks
