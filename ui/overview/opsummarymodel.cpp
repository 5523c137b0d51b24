#include "ui/overview/opsummarymodel.h"

#include "ui/util/format.h"

#include <QStringList>

namespace ks::ui {

namespace {

QString qs(const std::string& s)
{
    return QString::fromStdString(s);
}

QString us(double v)
{
    return formatDuration(int64_t(v * 1000 + 0.5));
}

} // namespace

OpSummaryModel::OpSummaryModel(QObject* parent) : RowTableModel(parent)
{
    using R = OpsSummaryRow;
    setColumns({
        Column::text(tr("Op"), tr("The CPU op that launched GPU work (TraceLens's ops_summary)"),
                     [](const R& r) { return qs(r.name); }),
        Column::number(
            tr("Kernel time"),
            tr("Sum over its calls of the busy time of the kernels each call launched itself"),
            [](const R& r) { return us(r.directUs); }, [](const R& r) { return r.directUs; }),
        Column::number(
            tr("%"), tr("Share of all ops' kernel time"),
            [](const R& r) { return formatPercent(r.percent / 100); }, [](const R& r) { return r.percent; }),
        Column::number(
            tr("Calls"), tr("Calls that launched GPU work"), [](const R& r) { return formatCount(r.count); },
            [](const R& r) { return qulonglong(r.count); }),
        Column::text(tr("Category"), tr("TraceLens's op category (GEMM, SDPA, elementwise, ...)"),
                     [](const R& r) {
                         QStringList c;
                         for (const std::string& s : r.categories)
                             c << qs(s);
                         return c.join(QStringLiteral(", "));
                     }),
    });
}

void OpSummaryModel::setRows(std::vector<OpsSummaryRow> rows)
{
    beginResetModel();
    m_rows = std::move(rows);
    endResetModel();
}

KernelSummaryModel::KernelSummaryModel(QObject* parent) : RowTableModel(parent)
{
    using R = KernelSummaryRow;
    setColumns({
        Column::text(tr("Kernel"), tr("GPU kernel name"), [this](const R& r) { return shownName(r); })
            .withCellToolTip([this](const R& r) { return shownName(r); }),
        Column::number(
            tr("Total"), tr("Sum of its durations under this op"), [](const R& r) { return us(r.sumUs); },
            [](const R& r) { return r.sumUs; }),
        Column::number(
            tr("%"), tr("Share of all kernel time"),
            [](const R& r) { return formatPercent(r.percentOfKernels / 100); },
            [](const R& r) { return r.percentOfKernels; }),
        Column::number(
            tr("Count"), tr("Launches"), [](const R& r) { return formatCount(r.count); },
            [](const R& r) { return qulonglong(r.count); }),
        Column::number(
            tr("Mean"), tr("Mean duration"), [](const R& r) { return us(r.meanUs); },
            [](const R& r) { return r.meanUs; }),
        Column::text(tr("Launched by"), tr("The CPU op it ran under (else its runtime call)"),
                     [](const R& r) { return qs(r.parentOp); }),
        Column::text(tr("Category"), tr("The launching op's category"),
                     [](const R& r) { return qs(r.category); }),
    });
}

void KernelSummaryModel::setRows(std::vector<KernelSummaryRow> rows)
{
    beginResetModel();
    m_rows = std::move(rows);
    m_names.clear();
    endResetModel();
}

const QString& KernelSummaryModel::shownName(const KernelSummaryRow& r) const
{
    return m_names.at(size_t(&r - m_rows.data()), m_rows.size(), r.kernelName);
}

} // namespace ks::ui
