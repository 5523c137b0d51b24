#include "panels/kerneltablemodel.h"

#include "document/tracedocument.h"
#include "util/format.h"

#include <QStringList>

namespace ks::ui {

namespace {

QString qstr(std::string_view s)
{
    return QString::fromUtf8(s.data(), qsizetype(s.size()));
}

QString kindText(EventKind k)
{
    switch (k) {
    case EventKind::Memcpy:
        return QStringLiteral("memcpy");
    case EventKind::Memset:
        return QStringLiteral("memset");
    default:
        return QStringLiteral("kernel");
    }
}

QString withVariants(const std::string& v, int variants)
{
    if (v.empty()) return {};
    QString s = QString::fromStdString(v);
    if (variants > 0) s += QStringLiteral("  +%1").arg(variants);
    return s;
}

} // namespace

KernelTableModel::KernelTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void KernelTableModel::setDocument(std::shared_ptr<const TraceDocument> doc)
{
    beginResetModel();
    m_doc = std::move(doc);
    endResetModel();
}

const KernelRow* KernelTableModel::kernel(int row) const
{
    if (!m_doc || row < 0 || row >= int(m_doc->kernels.rows.size())) return nullptr;
    return &m_doc->kernels.rows[size_t(row)];
}

int KernelTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() || !m_doc ? 0 : int(m_doc->kernels.rows.size());
}

int KernelTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QString KernelTableModel::launchersText(const KernelRow& k, int limit) const
{
    QStringList parts;
    for (const auto& [name, n] : k.launchers) {
        if (int(parts.size()) >= limit) {
            parts << QStringLiteral("…");
            break;
        }
        parts << QStringLiteral("%1 (%2)").arg(qstr(m_doc->trace->str(name))).arg(n);
    }
    return parts.join(limit > 3 ? QStringLiteral("\n") : QStringLiteral(", "));
}

QVariant KernelTableModel::data(const QModelIndex& index, int role) const
{
    const KernelRow* k = index.isValid() ? kernel(index.row()) : nullptr;
    if (!k || index.column() < 0 || index.column() >= ColumnCount) return {};
    const Trace& t = *m_doc->trace;
    const int col = index.column();
    if (role == KernelIndexRole) return index.row();
    if (role == FilterTextRole) return qstr(t.str(k->name)) + QLatin1Char('\n') + launchersText(*k, 1000);
    if (role == Qt::TextAlignmentRole) {
        if (col == Name || col == Kind || col == LaunchedBy || col == Grid || col == Block)
            return int(Qt::AlignLeft | Qt::AlignVCenter);
        return int(Qt::AlignRight | Qt::AlignVCenter);
    }
    if (role == Qt::ToolTipRole) {
        if (col == Name) return qstr(t.str(k->name));
        if (col == LaunchedBy) return launchersText(*k, 20);
        return {};
    }
    if (role == SortRole) {
        switch (col) {
        case Name:
            return qstr(t.str(k->name));
        case Kind:
            return kindText(k->kind);
        case Count:
            return qulonglong(k->count);
        case Total:
            return qlonglong(k->total);
        case Share:
            return k->share;
        case Mean:
            return k->mean;
        case Min:
            return qlonglong(k->min);
        case Max:
            return qlonglong(k->max);
        case Grid:
            return QString::fromStdString(k->grid);
        case Block:
            return QString::fromStdString(k->block);
        case Registers:
            return qlonglong(k->registersPerThread);
        case SharedMemory:
            return qlonglong(k->sharedMemory);
        case Occupancy:
            return k->occupancy;
        case LaunchedBy:
            return launchersText(*k, 1);
        default:
            return {};
        }
    }
    if (role != Qt::DisplayRole) return {};
    switch (col) {
    case Name:
        return qstr(t.str(k->name));
    case Kind:
        return kindText(k->kind);
    case Count:
        return formatCount(k->count);
    case Total:
        return formatDuration(k->total);
    case Share:
        return formatPercent(k->share);
    case Mean:
        return formatDuration(TimeNs(k->mean + 0.5));
    case Min:
        return formatDuration(k->min);
    case Max:
        return formatDuration(k->max);
    case Grid:
        return withVariants(k->grid, k->gridVariants);
    case Block:
        return withVariants(k->block, k->blockVariants);
    case Registers:
        return k->registersPerThread >= 0 ? QString::number(k->registersPerThread) : QString();
    case SharedMemory:
        return k->sharedMemory >= 0 ? formatBytes(double(k->sharedMemory)) : QString();
    case Occupancy:
        return k->occupancy >= 0 ? QString::number(k->occupancy, 'f', 1) + QLatin1Char('%') : QString();
    case LaunchedBy:
        return launchersText(*k, 2);
    default:
        return {};
    }
}

QVariant KernelTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount) return {};
    static const char* const names[ColumnCount] = {
        "Name", "Kind", "Count", "Total", "GPU time",   "Mean",           "Min",
        "Max",  "Grid", "Block", "Regs",  "Shared mem", "Est. occupancy", "Launched by"};
    static const char* const tips[ColumnCount] = {"Kernel, memcpy or memset name",
                                                  "kernel, memcpy or memset",
                                                  "Number of launches",
                                                  "Sum of durations",
                                                  "Share of all GPU work time",
                                                  "Mean duration",
                                                  "Shortest launch",
                                                  "Longest launch",
                                                  "Most frequent grid; +N = other distinct grids",
                                                  "Most frequent block; +N = other distinct blocks",
                                                  "Registers per thread",
                                                  "Shared memory per block (static + dynamic)",
                                                  "Mean of the trace's \"est. achieved occupancy %\"",
                                                  "CPU ops that launched it, with launch counts"};
    if (role == Qt::DisplayRole) return QString::fromUtf8(names[section]);
    if (role == Qt::ToolTipRole) return QString::fromUtf8(tips[section]);
    return {};
}

} // namespace ks::ui
