#include "ui/panels/kerneltablemodel.h"

#include "ui/document/tracedocument.h"
#include "ui/util/format.h"

#include <QStringList>

using namespace Qt::StringLiterals;

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
        return u"memcpy"_s;
    case EventKind::Memset:
        return u"memset"_s;
    default:
        return u"kernel"_s;
    }
}

QString withVariants(const std::string& v, int variants)
{
    if (v.empty()) return {};
    QString s = QString::fromStdString(v);
    if (variants > 0) s += u"  +%1"_s.arg(variants);
    return s;
}

QString eligibleText(const KernelRow& k)
{
    if (k.attributedLaunches == 0) return {};
    if (k.tcEligibleLaunches == k.attributedLaunches) return u"Yes"_s;
    if (k.tcEligibleLaunches == 0) return u"No"_s;
    return formatPercent(double(k.tcEligibleLaunches) / double(k.attributedLaunches)) + u" of launches"_s;
}

} // namespace

KernelTableModel::KernelTableModel(QObject* parent) : RowTableModel(parent)
{
    using C = Column;
    using K = const KernelRow&;
    auto duration = [](TimeNs KernelRow::*field) {
        return C::Cell([field](K k) { return formatDuration(k.*field); });
    };
    auto raw = [](TimeNs KernelRow::*field) { return C::Cell([field](K k) { return qlonglong(k.*field); }); };
    // In ColumnId order.
    setColumns({
        C::text(u"Name"_s, u"Kernel, memcpy or memset name"_s, [this](K k) { return name(k); })
            .withCellToolTip([this](K k) { return name(k); }),
        C::text(u"Kind"_s, u"kernel, memcpy or memset"_s, [](K k) { return kindText(k.kind); }),
        C::number(
            u"Count"_s, u"Number of launches"_s, [](K k) { return formatCount(k.count); },
            [](K k) { return qulonglong(k.count); }),
        C::number(u"Total"_s, u"Sum of durations"_s, duration(&KernelRow::total), raw(&KernelRow::total)),
        C::number(
            u"GPU time"_s, u"Share of all GPU work time"_s, [](K k) { return formatPercent(k.share); },
            [](K k) { return k.share; }),
        C::number(
            u"Mean"_s, u"Mean duration"_s, [](K k) { return formatDuration(TimeNs(k.mean + 0.5)); },
            [](K k) { return k.mean; }),
        C::number(u"Min"_s, u"Shortest launch"_s, duration(&KernelRow::min), raw(&KernelRow::min)),
        C::number(u"Max"_s, u"Longest launch"_s, duration(&KernelRow::max), raw(&KernelRow::max)),
        C::text(
            u"Grid"_s, u"Most frequent grid; +N = other distinct grids"_s,
            [](K k) { return withVariants(k.grid, k.gridVariants); },
            [](K k) { return QString::fromStdString(k.grid); }),
        C::text(
            u"Block"_s, u"Most frequent block; +N = other distinct blocks"_s,
            [](K k) { return withVariants(k.block, k.blockVariants); },
            [](K k) { return QString::fromStdString(k.block); }),
        C::number(
            u"Regs"_s, u"Registers per thread"_s,
            [](K k) { return k.registersPerThread >= 0 ? QString::number(k.registersPerThread) : QString(); },
            [](K k) { return qlonglong(k.registersPerThread); }),
        C::number(
            u"Shared mem"_s, u"Shared memory per block (static + dynamic)"_s,
            [](K k) { return k.sharedMemory >= 0 ? formatBytes(double(k.sharedMemory)) : QString(); },
            [](K k) { return qlonglong(k.sharedMemory); }),
        C::number(
            u"Blocks/SM"_s,
            u"Mean blocks per SM: blocks of this kernel / SMs of the GPU, the duration-weighted mean over "
            "its launches (TensorBoard's definition). Below 1, some SMs had no block."_s,
            [](K k) { return k.blocksPerSm >= 0 ? QString::number(k.blocksPerSm, 'f', 2) : QString(); },
            [](K k) { return k.blocksPerSm; }),
        C::number(
            u"Est. occupancy"_s,
            u"Mean estimated achieved occupancy: the trace's \"est. achieved occupancy %\", the "
            "duration-weighted mean over its launches (TensorBoard's definition)"_s,
            [](K k) { return k.occupancy >= 0 ? QString::number(k.occupancy, 'f', 1) + u'%' : QString(); },
            [](K k) { return k.occupancy; }),
        C::text(u"Tensor Cores"_s,
                u"Whether this kernel uses Tensor Cores, judged from its name as TensorBoard does "
                "(hmma, 16816, xmma_gemm, …)"_s,
                [](K k) {
                    return k.kind != EventKind::Kernel ? QString() : k.tensorCores ? u"Yes"_s : u"No"_s;
                }),
        C::text(
            u"TC eligible"_s,
            u"Whether the ops that launched it can use Tensor Cores (TensorBoard's list of convolution, "
            "matmul and RNN-cell ops, or any op launching a Tensor Core kernel); a share when only some "
            "launches came from such ops"_s,
            [](K k) { return eligibleText(k); },
            [](K k) {
                return k.attributedLaunches ? double(k.tcEligibleLaunches) / double(k.attributedLaunches)
                                            : -1.0;
            }),
        C::text(
            u"Launched by"_s, u"CPU ops that launched it, with launch counts"_s,
            [this](K k) { return launchersText(k, 2); }, [this](K k) { return launchersText(k, 1); })
            .withCellToolTip([this](K k) { return launchersText(k, 20); }),
    });
}

void KernelTableModel::setDocument(std::shared_ptr<const TraceDocument> doc)
{
    beginResetModel();
    m_doc = std::move(doc);
    m_names.clear();
    endResetModel();
}

const KernelRow* KernelTableModel::kernel(int row) const
{
    if (!m_doc || row < 0 || row >= int(m_doc->kernels.rows.size())) return nullptr;
    return &m_doc->kernels.rows[size_t(row)];
}

int KernelTableModel::rowCountOf() const
{
    return m_doc ? int(m_doc->kernels.rows.size()) : 0;
}

QString KernelTableModel::name(const KernelRow& k) const
{
    const size_t row = size_t(&k - m_doc->kernels.rows.data());
    return m_names.at(row, m_doc->kernels.rows.size(), m_doc->trace->str(k.name));
}

QString KernelTableModel::launchersText(const KernelRow& k, int limit) const
{
    QStringList parts;
    for (const auto& [name, n] : k.launchers) {
        if (int(parts.size()) >= limit) {
            parts << u"…"_s;
            break;
        }
        parts << u"%1 (%2)"_s.arg(qstr(m_doc->trace->str(name))).arg(n);
    }
    return parts.join(limit > 3 ? u"\n"_s : u", "_s);
}

QVariant KernelTableModel::rowData(int row, int role) const
{
    const KernelRow* k = kernel(row);
    if (!k) return {};
    if (role == KernelIndexRole) return row;
    if (role == FilterTextRole)
        return QString(name(*k) + u'\n' + qstr(m_doc->trace->str(k->name)) + u'\n' + launchersText(*k, 1000));
    return {};
}

} // namespace ks::ui
