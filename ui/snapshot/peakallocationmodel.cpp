#include "ui/snapshot/peakallocationmodel.h"

#include "core/analysis/snapshot/snapshottimeline.h"
#include "ui/snapshot/snapshotdocument.h"
#include "ui/util/format.h"

using namespace Qt::StringLiterals;

namespace ks::ui {

PeakAllocationModel::PeakAllocationModel(QObject* parent) : RowTableModel(parent)
{
    using R = const PeakAllocationRow&;
    setColumns({
        Column::number(
            tr("Size"), tr("Bytes of the allocation (the size of its alloc entry)"),
            [](R r) { return formatBytes(double(r.size)); }, [](R r) { return qlonglong(r.size); })
            .withCellToolTip([](R r) { return tr("%1 bytes").arg(r.size); }),
        Column::text(
            tr("Address"), tr("The allocation's device address"),
            [](R r) { return QString(u"0x"_s + QString::number(quint64(r.addr), 16)); },
            [](R r) { return qlonglong(r.addr); }),
        Column::number(
            tr("Stream"), tr("The allocator's stream of the allocation"),
            [](R r) { return streamText(r.stream); }, [](R r) { return qlonglong(r.stream); }),
        Column::number(
            tr("Allocated at"),
            tr("The trace entry of its alloc; empty when it was allocated before the recorded history"),
            [](R r) { return r.begin < 0 ? QString() : QString::number(r.begin); },
            [](R r) { return r.begin; }),
        Column::text(tr("Top frame"),
                     tr("The first frame of its stack that memory_viz shows (interpreter, unwinder and "
                        "dispatcher frames hidden)"),
                     [](R r) { return r.topFrame; })
            .withCellToolTip([](R r) { return r.topFrame; }),
    });
}

void PeakAllocationModel::setDevice(std::shared_ptr<const SnapshotDocument> doc, size_t device)
{
    beginResetModel();
    m_rows.clear();
    if (doc && device < doc->deviceCount()) {
        const SnapshotTimeline& t = doc->timelines[device];
        for (uint32_t k : t.aliveAt(t.peakEntry)) {
            const SnapshotAllocation& a = t.allocations[k];
            PeakAllocationRow r;
            r.allocation = k;
            r.size = a.size;
            r.addr = a.addr;
            r.stream = doc->streamOf(device, k);
            r.begin = a.begin == kBeforeTrace ? -1 : qint64(a.begin);
            r.topFrame = QString::fromStdString(frameText(
                *doc->snapshot, a.stack == kNoStack ? UINT32_MAX : topFrame(*doc->snapshot, a.stack)));
            m_rows.push_back(std::move(r));
        }
    }
    endResetModel();
}

} // namespace ks::ui
