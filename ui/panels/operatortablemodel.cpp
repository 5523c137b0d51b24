#include "panels/operatortablemodel.h"

#include "analysis/pyformat.h"

#include <cmath>

namespace ks::ui {

namespace {

QString q(const std::string& s)
{
    return QString::fromStdString(s);
}

const char* flopsUnit(int k)
{
    static const char* units[] = {"FLOPs", "KFLOPs", "MFLOPs", "GFLOPs", "TFLOPs", "PFLOPs"};
    return units[std::clamp(k, 0, 5)];
}

} // namespace

OperatorTableModel::OperatorTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void OperatorTableModel::setReport(std::shared_ptr<const SummaryReport> report)
{
    beginResetModel();
    m_report = std::move(report);
    m_columns.clear();
    m_selfCpuTotal = m_selfDeviceTotal = 0;
    m_flopsScale = 0;
    if (m_report) {
        const auto& rows = m_report->averages.rows();
        const TableOptions& t = m_report->table;
        bool hasDeviceTime = false, hasDeviceMem = false, hasShapes = false;
        int64_t minFlops = 0;
        for (const KeyAverage& r : rows) {
            // torch's percentages divide by the sum over every event, listed or not.
            m_selfCpuTotal += r.selfCpuTimeTotal;
            if (r.deviceType && !r.userAnnotation) m_selfDeviceTotal += r.selfDeviceTimeTotal;
            hasDeviceTime |= r.selfDeviceTimeTotal > 0;
            hasDeviceMem |= r.selfDeviceMemoryUsage > 0;
            hasShapes |= !r.inputShapes.empty();
            if (r.flops > 0 && (minFlops == 0 || r.flops < minFlops)) minFlops = r.flops;
        }
        using C = Col;
        m_columns = {C::Name};
        if (hasShapes) m_columns.push_back(C::InputShapes);
        m_columns.insert(m_columns.end(),
                         {C::SelfCpuPct, C::SelfCpu, C::CpuTotalPct, C::CpuTotal, C::CpuAvg});
        if (hasDeviceTime)
            m_columns.insert(m_columns.end(),
                             {C::SelfDevice, C::SelfDevicePct, C::DeviceTotal, C::DeviceAvg});
        if (t.profileMemory) {
            m_columns.insert(m_columns.end(), {C::CpuMem, C::SelfCpuMem});
            if (t.useDevice && hasDeviceMem)
                m_columns.insert(m_columns.end(), {C::DeviceMem, C::SelfDeviceMem});
        }
        m_columns.push_back(C::Calls);
        if (t.withFlops && minFlops > 0) {
            m_columns.push_back(C::Flops);
            m_flopsScale = int(std::max(0.0, std::min(std::log10(double(minFlops)) / 3.0, 5.0)));
        }
    }
    endResetModel();
}

const KeyAverage* OperatorTableModel::row(int r) const
{
    if (!m_report || r < 0 || r >= int(m_report->averages.rows().size())) return nullptr;
    return &m_report->averages.rows()[size_t(r)];
}

int OperatorTableModel::columnOf(Col c) const
{
    for (size_t i = 0; i < m_columns.size(); ++i)
        if (m_columns[i] == c) return int(i);
    return -1;
}

SortKey OperatorTableModel::sortKeyOf(int column) const
{
    if (column < 0 || column >= int(m_columns.size())) return SortKey::None;
    switch (m_columns[size_t(column)]) {
    case Col::SelfCpu:
    case Col::SelfCpuPct:
        return SortKey::SelfCpuTimeTotal;
    case Col::CpuTotal:
    case Col::CpuTotalPct:
        return SortKey::CpuTimeTotal;
    case Col::CpuAvg:
        return SortKey::CpuTime;
    case Col::SelfDevice:
    case Col::SelfDevicePct:
        return SortKey::SelfDeviceTimeTotal;
    case Col::DeviceTotal:
        return SortKey::DeviceTimeTotal;
    case Col::DeviceAvg:
        return SortKey::DeviceTime;
    case Col::CpuMem:
        return SortKey::CpuMemoryUsage;
    case Col::SelfCpuMem:
        return SortKey::SelfCpuMemoryUsage;
    case Col::DeviceMem:
        return SortKey::DeviceMemoryUsage;
    case Col::SelfDeviceMem:
        return SortKey::SelfDeviceMemoryUsage;
    case Col::Calls:
        return SortKey::Count;
    case Col::Flops:
        return SortKey::Flops;
    default:
        return SortKey::None;
    }
}

int OperatorTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() || !m_report ? 0 : int(m_report->averages.rows().size());
}

int OperatorTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_columns.size());
}

QString OperatorTableModel::text(const KeyAverage& r, Col c) const
{
    using namespace pyformat;
    const MemoryUnits mu = m_report->table.memoryUnits;
    switch (c) {
    case Col::Name:
        return q(r.key);
    case Col::InputShapes:
        return q(r.inputShapes);
    case Col::SelfCpuPct:
        return q(percent(r.selfCpuTimeTotal, m_selfCpuTotal));
    case Col::SelfCpu:
        return q(time(r.selfCpuTimeTotal));
    case Col::CpuTotalPct:
        return q(percent(r.cpuTimeTotal, m_selfCpuTotal));
    case Col::CpuTotal:
        return q(time(r.cpuTimeTotal));
    case Col::CpuAvg:
        return q(time(r.cpuTime()));
    case Col::SelfDevice:
        return q(time(r.selfDeviceTimeTotal));
    case Col::SelfDevicePct:
        return q(percent(r.selfDeviceTimeTotal, m_selfDeviceTotal));
    case Col::DeviceTotal:
        return q(time(r.deviceTimeTotal));
    case Col::DeviceAvg:
        return q(time(r.deviceTime()));
    case Col::CpuMem:
        return q(memory(r.cpuMemoryUsage, mu));
    case Col::SelfCpuMem:
        return q(memory(r.selfCpuMemoryUsage, mu));
    case Col::DeviceMem:
        return q(memory(r.deviceMemoryUsage, mu));
    case Col::SelfDeviceMem:
        return q(memory(r.selfDeviceMemoryUsage, mu));
    case Col::Calls:
        return QString::number(r.count);
    case Col::Flops:
        return r.flops > 0 ? q(fixed8(double(r.flops) * std::pow(10.0, -3.0 * m_flopsScale))).trimmed()
                           : QStringLiteral("--");
    }
    return {};
}

QVariant OperatorTableModel::sortValue(const KeyAverage& r, Col c) const
{
    switch (c) {
    case Col::Name:
        return q(r.key);
    case Col::InputShapes:
        return q(r.inputShapes);
    case Col::SelfCpuPct:
    case Col::SelfCpu:
        return r.selfCpuTimeTotal;
    case Col::CpuTotalPct:
    case Col::CpuTotal:
        return r.cpuTimeTotal;
    case Col::CpuAvg:
        return r.cpuTime();
    case Col::SelfDevice:
    case Col::SelfDevicePct:
        return r.selfDeviceTimeTotal;
    case Col::DeviceTotal:
        return r.deviceTimeTotal;
    case Col::DeviceAvg:
        return r.deviceTime();
    case Col::CpuMem:
        return qlonglong(r.cpuMemoryUsage);
    case Col::SelfCpuMem:
        return qlonglong(r.selfCpuMemoryUsage);
    case Col::DeviceMem:
        return qlonglong(r.deviceMemoryUsage);
    case Col::SelfDeviceMem:
        return qlonglong(r.selfDeviceMemoryUsage);
    case Col::Calls:
        return qlonglong(r.count);
    case Col::Flops:
        return qlonglong(r.flops);
    }
    return {};
}

QVariant OperatorTableModel::data(const QModelIndex& index, int role) const
{
    const KeyAverage* r = index.isValid() ? row(index.row()) : nullptr;
    if (!r || index.column() >= int(m_columns.size())) return {};
    const Col c = m_columns[size_t(index.column())];
    switch (role) {
    case Qt::DisplayRole:
        return text(*r, c);
    case Qt::ToolTipRole:
        if (c == Col::Name || c == Col::InputShapes) return text(*r, c);
        return {};
    case Qt::TextAlignmentRole:
        return c == Col::Name || c == Col::InputShapes ? QVariant(int(Qt::AlignLeft | Qt::AlignVCenter))
                                                       : QVariant(int(Qt::AlignRight | Qt::AlignVCenter));
    case SortRole:
        return sortValue(*r, c);
    case RowIndexRole:
        return index.row();
    case TopLevelRole:
        return r->topLevel;
    default:
        return {};
    }
}

QVariant OperatorTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole || section < 0 ||
        section >= int(m_columns.size()))
        return QAbstractTableModel::headerData(section, orientation, role);
    const QString dev = m_report ? q(m_report->table.deviceName) : QStringLiteral("CUDA");
    switch (m_columns[size_t(section)]) {
    case Col::Name:
        return QStringLiteral("Name");
    case Col::InputShapes:
        return QStringLiteral("Input Shapes");
    case Col::SelfCpuPct:
        return QStringLiteral("Self CPU %");
    case Col::SelfCpu:
        return QStringLiteral("Self CPU");
    case Col::CpuTotalPct:
        return QStringLiteral("CPU total %");
    case Col::CpuTotal:
        return QStringLiteral("CPU total");
    case Col::CpuAvg:
        return QStringLiteral("CPU time avg");
    case Col::SelfDevice:
        return QStringLiteral("Self %1").arg(dev);
    case Col::SelfDevicePct:
        return QStringLiteral("Self %1 %").arg(dev);
    case Col::DeviceTotal:
        return QStringLiteral("%1 total").arg(dev);
    case Col::DeviceAvg:
        return QStringLiteral("%1 time avg").arg(dev);
    case Col::CpuMem:
        return QStringLiteral("CPU Mem");
    case Col::SelfCpuMem:
        return QStringLiteral("Self CPU Mem");
    case Col::DeviceMem:
        return QStringLiteral("%1 Mem").arg(dev);
    case Col::SelfDeviceMem:
        return QStringLiteral("Self %1 Mem").arg(dev);
    case Col::Calls:
        return QStringLiteral("# of Calls");
    case Col::Flops:
        return QStringLiteral("Total %1").arg(QString::fromLatin1(flopsUnit(m_flopsScale)));
    }
    return {};
}

} // namespace ks::ui
