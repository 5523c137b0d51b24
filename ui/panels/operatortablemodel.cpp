#include "ui/panels/operatortablemodel.h"

#include "core/analysis/summary/pyformat.h"

#include <QLatin1StringView>
#include <cmath>

using namespace Qt::StringLiterals;

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

OperatorTableModel::OperatorTableModel(QObject* parent) : RowTableModel(parent) {}

void OperatorTableModel::setReport(std::shared_ptr<const SummaryReport> report)
{
    beginResetModel();
    m_report = std::move(report);
    m_kinds.clear();
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
        m_kinds = {C::Name};
        if (hasShapes) m_kinds.push_back(C::InputShapes);
        m_kinds.insert(m_kinds.end(), {C::SelfCpuPct, C::SelfCpu, C::CpuTotalPct, C::CpuTotal, C::CpuAvg});
        if (hasDeviceTime)
            m_kinds.insert(m_kinds.end(), {C::SelfDevice, C::SelfDevicePct, C::DeviceTotal, C::DeviceAvg});
        if (t.profileMemory) {
            m_kinds.insert(m_kinds.end(), {C::CpuMem, C::SelfCpuMem});
            if (t.useDevice && hasDeviceMem) m_kinds.insert(m_kinds.end(), {C::DeviceMem, C::SelfDeviceMem});
        }
        m_kinds.push_back(C::Calls);
        if (t.withFlops && minFlops > 0) {
            m_kinds.push_back(C::Flops);
            m_flopsScale = int(std::max(0.0, std::min(std::log10(double(minFlops)) / 3.0, 5.0)));
        }
    }
    std::vector<Column> columns;
    for (Col c : m_kinds)
        columns.push_back(describe(c));
    setColumns(std::move(columns));
    endResetModel();
}

const KeyAverage* OperatorTableModel::row(int r) const
{
    if (!m_report || r < 0 || r >= int(m_report->averages.rows().size())) return nullptr;
    return &m_report->averages.rows()[size_t(r)];
}

int OperatorTableModel::columnOf(Col c) const
{
    for (size_t i = 0; i < m_kinds.size(); ++i)
        if (m_kinds[i] == c) return int(i);
    return -1;
}

SortKey OperatorTableModel::sortKeyOf(int column) const
{
    if (column < 0 || column >= int(m_kinds.size())) return SortKey::None;
    switch (m_kinds[size_t(column)]) {
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

int OperatorTableModel::rowCountOf() const
{
    return m_report ? int(m_report->averages.rows().size()) : 0;
}

OperatorTableModel::Column OperatorTableModel::describe(Col c) const
{
    using R = const KeyAverage&;
    using C = Column;
    const pyformat::MemoryUnits mu = m_report->table.memoryUnits;
    const QString dev = q(m_report->table.deviceName);
    // A torch time column: torch's text, the raw value (us) to sort by.
    auto time = [](QString title, QString tip, auto value) {
        return C::number(
            std::move(title), std::move(tip), [value](R r) { return q(pyformat::time(value(r))); },
            [value](R r) { return value(r); });
    };
    auto percent = [](QString title, QString tip, auto value, double total) {
        return C::number(
            std::move(title), std::move(tip),
            [value, total](R r) { return q(pyformat::percent(value(r), total)); },
            [value](R r) { return value(r); });
    };
    auto memory = [mu](QString title, QString tip, int64_t KeyAverage::*field) {
        return C::number(
            std::move(title), std::move(tip), [mu, field](R r) { return q(pyformat::memory(r.*field, mu)); },
            [field](R r) { return qlonglong(r.*field); });
    };
    switch (c) {
    case Col::Name:
        return C::text(u"Name"_s, u"Operator or event name (key_averages key)"_s,
                       [](R r) { return q(r.key); })
            .withCellToolTip([](R r) { return q(r.key); });
    case Col::InputShapes:
        return C::text(u"Input Shapes"_s, u"Shapes of the op's inputs (grouped by input shape)"_s,
                       [](R r) { return q(r.inputShapes); })
            .withCellToolTip([](R r) { return q(r.inputShapes); });
    case Col::SelfCpuPct:
        return percent(
            u"Self CPU %"_s, u"Self CPU time as a share of all events' self CPU time"_s,
            [](R r) { return r.selfCpuTimeTotal; }, m_selfCpuTotal);
    case Col::SelfCpu:
        return time(u"Self CPU"_s, u"CPU time in the op itself, not in the ops it called"_s,
                    [](R r) { return r.selfCpuTimeTotal; });
    case Col::CpuTotalPct:
        return percent(
            u"CPU total %"_s,
            u"CPU total time as a percentage of all events' self CPU time (torch's base). Rows can add "
            "up to more than 100%: an op's total includes the ops it called, which have rows of their "
            "own."_s,
            [](R r) { return r.cpuTimeTotal; }, m_selfCpuTotal);
    case Col::CpuTotal:
        return time(u"CPU total"_s, u"CPU time including the ops it called"_s,
                    [](R r) { return r.cpuTimeTotal; });
    case Col::CpuAvg:
        return time(u"CPU time avg"_s, u"CPU total time per call"_s, [](R r) { return r.cpuTime(); });
    case Col::SelfDevice:
        return time(u"Self %1"_s.arg(dev), u"Device time of the work the op itself launched"_s,
                    [](R r) { return r.selfDeviceTimeTotal; });
    case Col::SelfDevicePct:
        return percent(
            u"Self %1 %"_s.arg(dev),
            u"Self %1 time as a percentage of the self %1 time of all device events (kernels, memcpy, "
            "memset), as torch's table computes it.\n"
            "The column adds up to more than 100% and one row can exceed 100%: every kernel counts in "
            "its own row and again in the row of the op that launched it, and a device annotation (a "
            "record_function or ProfilerStep range the profiler also puts on the GPU timeline) counts "
            "the whole span it covers, so each covered kernel, and the gaps between them, again.\n"
            "The Overview tab gives shares of the real GPU time (GPU timeline breakdown, kernels by "
            "launching op)."_s.arg(dev),
            [](R r) { return r.selfDeviceTimeTotal; }, m_selfDeviceTotal);
    case Col::DeviceTotal:
        return time(u"%1 total"_s.arg(dev), u"Device time including the work of the ops it called"_s,
                    [](R r) { return r.deviceTimeTotal; });
    case Col::DeviceAvg:
        return time(u"%1 time avg"_s.arg(dev), u"Device total time per call"_s,
                    [](R r) { return r.deviceTime(); });
    case Col::CpuMem:
        return memory(u"CPU Mem"_s, u"CPU memory allocated, including by the ops it called"_s,
                      &KeyAverage::cpuMemoryUsage);
    case Col::SelfCpuMem:
        return memory(u"Self CPU Mem"_s, u"CPU memory allocated by the op itself"_s,
                      &KeyAverage::selfCpuMemoryUsage);
    case Col::DeviceMem:
        return memory(u"%1 Mem"_s.arg(dev), u"Device memory allocated, including by the ops it called"_s,
                      &KeyAverage::deviceMemoryUsage);
    case Col::SelfDeviceMem:
        return memory(u"Self %1 Mem"_s.arg(dev), u"Device memory allocated by the op itself"_s,
                      &KeyAverage::selfDeviceMemoryUsage);
    case Col::Calls:
        return C::number(
            u"# of Calls"_s, u"Number of calls"_s, [](R r) { return QString::number(r.count); },
            [](R r) { return qlonglong(r.count); });
    case Col::Flops: {
        const int scale = m_flopsScale;
        return C::number(
            u"Total %1"_s.arg(QLatin1StringView(flopsUnit(scale))),
            u"Floating-point operations torch estimated for the op's calls (with_flops)"_s,
            [scale](R r) {
                return r.flops > 0
                           ? q(pyformat::fixed8(double(r.flops) * std::pow(10.0, -3.0 * scale))).trimmed()
                           : u"--"_s;
            },
            [](R r) { return qlonglong(r.flops); });
    }
    }
    return {};
}

QVariant OperatorTableModel::rowData(int row, int role) const
{
    if (role == RowIndexRole) return row;
    if (role == TopLevelRole) return rowAt(row)->topLevel;
    return {};
}

} // namespace ks::ui
