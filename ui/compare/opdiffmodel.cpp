#include "ui/compare/opdiffmodel.h"

#include <QLocale>
#include <cmath>

namespace ks::ui {

namespace {

// µs with one decimal; below a microsecond in ns, where one decimal would read 0.0 (Kineto's sync
// events last tens of ns).
QString us(double v)
{
    if (v != 0 && std::fabs(v) < 1) return QStringLiteral("%1 ns").arg(std::llround(v * 1000.0));
    return QLocale().toString(v, 'f', 1);
}

QString signedUs(double v)
{
    if (std::fabs(v) < 0.0005) return us(0); // no "-0 ns" for sums that differ in the last bits
    return (v > 0 ? QStringLiteral("+") : QString()) + us(v);
}

QString kindOf(const OpDiffRow& r)
{
    if (r.device) return r.annotation ? QStringLiteral("GPU annotation") : QStringLiteral("kernel");
    return r.annotation ? QStringLiteral("annotation") : QStringLiteral("op");
}

} // namespace

OpDiffModel::OpDiffModel(QObject* parent) : RowTableModel<OpDiffRow>(parent)
{
    using C = Column;
    auto count = [](auto get) { return [get](const OpDiffRow& r) { return QVariant(qlonglong(get(r))); }; };
    setColumns({
        C::text(tr("Name"), tr("Op, annotation or kernel name (torch's key_averages key)"),
                [](const OpDiffRow& r) { return QString::fromStdString(r.name); }),
        C::text(tr("Kind"), tr("op (CPU), annotation (record_function), kernel (GPU work)"),
                [](const OpDiffRow& r) { return kindOf(r); }),
        C::number(tr("Calls A"), tr("Calls in A"), count([](const OpDiffRow& r) { return r.a.count; }),
                  count([](const OpDiffRow& r) { return r.a.count; })),
        C::number(tr("Calls B"), tr("Calls in B"), count([](const OpDiffRow& r) { return r.b.count; }),
                  count([](const OpDiffRow& r) { return r.b.count; })),
        C::number(
            tr("ΔCalls"), tr("Calls in B minus calls in A"),
            [](const OpDiffRow& r) {
                const int64_t d = r.countDelta();
                return QVariant((d > 0 ? QStringLiteral("+") : QString()) + QString::number(d));
            },
            [](const OpDiffRow& r) { return QVariant(qlonglong(std::llabs(r.countDelta()))); }),
        C::number(
            tr("Total A (µs)"), tr("A: CPU total for ops, device total for kernels"),
            [](const OpDiffRow& r) { return QVariant(us(r.durationA())); },
            [](const OpDiffRow& r) { return QVariant(r.durationA()); }),
        C::number(
            tr("Total B (µs)"), tr("B: CPU total for ops, device total for kernels"),
            [](const OpDiffRow& r) { return QVariant(us(r.durationB())); },
            [](const OpDiffRow& r) { return QVariant(r.durationB()); }),
        C::number(
            tr("ΔTotal (µs)"), tr("B minus A (HTA's diff_duration); sorts by its size"),
            [](const OpDiffRow& r) { return QVariant(signedUs(r.delta())); },
            [](const OpDiffRow& r) { return QVariant(std::fabs(r.delta())); }),
        C::number(
            tr("Self A (µs)"), tr("A: self CPU time for ops, self device time for kernels"),
            [](const OpDiffRow& r) { return QVariant(us(r.selfA())); },
            [](const OpDiffRow& r) { return QVariant(r.selfA()); }),
        C::number(
            tr("Self B (µs)"), tr("B: self CPU time for ops, self device time for kernels"),
            [](const OpDiffRow& r) { return QVariant(us(r.selfB())); },
            [](const OpDiffRow& r) { return QVariant(r.selfB()); }),
        C::text(tr("By count"), tr("HTA ops_diff: added, deleted, increased, decreased, unchanged calls"),
                [](const OpDiffRow& r) { return QString::fromLatin1(diffCategoryName(r.byCount)); }),
        C::text(tr("By time"), tr("The same categories on the total time, with the noise threshold"),
                [](const OpDiffRow& r) { return QString::fromLatin1(diffCategoryName(r.byDuration)); }),
    });
}

void OpDiffModel::setRows(std::vector<OpDiffRow> rows)
{
    beginResetModel();
    m_rows = std::move(rows);
    endResetModel();
}

} // namespace ks::ui
