#include "ui/overview/idletablemodel.h"

#include "core/model/trace.h"
#include "ui/util/format.h"

namespace ks::ui {

IdleTableModel::IdleTableModel(QObject* parent) : RowTableModel(parent)
{
    using R = const IdleRow&;
    auto category = [](IdleCategory c, QString title, QString tip) {
        const size_t i = size_t(c);
        return Column::number(
            std::move(title), std::move(tip), [i](R r) { return formatDuration(r.idle.time[i]); },
            [i](R r) { return qlonglong(r.idle.time[i]); });
    };
    setColumns({
        Column::text(tr("Stream"), tr("The GPU stream (HTA's idle time breakdown, per stream)"),
                     [](R r) { return r.stream; })
            .withCellToolTip([](R r) { return r.fullName; }),
        Column::number(
            tr("Idle"),
            tr("Sum of the gaps between consecutive GPU work on this stream (HTA's idle time breakdown)"),
            [](R r) { return formatDuration(r.idle.total()); },
            [](R r) { return qlonglong(r.idle.total()); }),
        category(IdleCategory::HostWait, tr("Host wait"),
                 tr("Gaps where the launching call started after the previous work ended: the CPU fell "
                    "behind")),
        category(IdleCategory::KernelWait, tr("Kernel wait"),
                 tr("Gaps shorter than HTA's threshold between back-to-back work: the cost of launching")),
        category(IdleCategory::Other, tr("Other"),
                 tr("Any other gap, e.g. waiting for an event from another stream")),
    });
}

void IdleTableModel::setIdle(const Trace* trace, const std::vector<StreamIdle>& idle)
{
    beginResetModel();
    m_rows.clear();
    if (trace) {
        for (const StreamIdle& s : idle) {
            IdleRow r;
            r.idle = s;
            const QString track = QString::fromStdString(trace->trackLabel(s.track));
            // The timeline's group title: a stream's device, else its process id (Kineto's GPU
            // "process" is the device); the process as the trace names it only in the tooltip.
            const Process& p = trace->process(trace->track(s.track).process);
            const QString device = s.device >= 0     ? QString::number(s.device)
                                   : p.deviceId >= 0 ? QString::number(p.deviceId)
                                                     : QString::fromStdString(trace->keyText(p.pid));
            r.stream = QStringLiteral("GPU %1 · ").arg(device) + track;
            r.fullName = r.stream + QStringLiteral(" — ") + QString::fromStdString(trace->processLabel(p.id));
            m_rows.push_back(std::move(r));
        }
    }
    endResetModel();
}

} // namespace ks::ui
