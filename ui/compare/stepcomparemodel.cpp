#include "ui/compare/stepcomparemodel.h"

#include <QLocale>
#include <cmath>

namespace ks::ui {

namespace {

// ms with three decimals; below a microsecond in ns, where three decimals of a ms would read 0.000.
QString ms(double us)
{
    if (!std::isfinite(us)) return QStringLiteral("–");
    if (us != 0 && std::fabs(us) < 1) return QStringLiteral("%1 ns").arg(std::llround(us * 1000.0));
    return QLocale().toString(us / 1000.0, 'f', 3);
}

QVariant key(double v)
{
    return std::isfinite(v) ? QVariant(v) : QVariant(-1.0);
}

} // namespace

StepCompareModel::StepCompareModel(QObject* parent) : RowTableModel<StepCompareRow>(parent)
{
    using C = Column;
    auto stat = [](QString title, QString tip, bool sideB, double Stats::*field) {
        return C::number(
            std::move(title), std::move(tip),
            [sideB, field](const StepCompareRow& r) { return QVariant(ms((sideB ? r.b : r.a).*field)); },
            [sideB, field](const StepCompareRow& r) { return key((sideB ? r.b : r.a).*field); });
    };
    setColumns({
        C::text(tr("Step time"),
                tr("The whole step, then tb_plugin's categories (each moment charged to one)"),
                [](const StepCompareRow& r) { return r.name; }),
        stat(tr("Mean A (ms)"), tr("Mean over A's compared steps"), false, &Stats::mean),
        stat(tr("Mean B (ms)"), tr("Mean over B's compared steps"), true, &Stats::mean),
        C::number(
            tr("Δ Mean (ms)"), tr("B's mean minus A's, and its share of A's"),
            [](const StepCompareRow& r) {
                const double d = r.b.mean - r.a.mean;
                if (!std::isfinite(d)) return QVariant(QStringLiteral("–"));
                QString s = (d > 0 ? QStringLiteral("+") : QString()) + ms(d);
                if (r.a.mean > 0)
                    s += QStringLiteral(" (%1%2%)")
                             .arg(d > 0 ? QStringLiteral("+") : QString())
                             .arg(100.0 * d / r.a.mean, 0, 'f', 0);
                return QVariant(s);
            },
            [](const StepCompareRow& r) { return key(std::fabs(r.b.mean - r.a.mean)); }),
        stat(tr("Median A"), tr("Median over A's steps (ms)"), false, &Stats::median),
        stat(tr("Median B"), tr("Median over B's steps (ms)"), true, &Stats::median),
        stat(tr("Std A"), tr("Sample standard deviation over A's steps (ms); – below two steps"), false,
             &Stats::std),
        stat(tr("Std B"), tr("Sample standard deviation over B's steps (ms); – below two steps"), true,
             &Stats::std),
    });
}

void StepCompareModel::setSteps(const StepDiff& steps)
{
    beginResetModel();
    m_rows.clear();
    m_rows.push_back({tr("step"), steps.totalA, steps.totalB});
    for (size_t c = 0; c < kStepCategoryCount; ++c) {
        if (!(steps.categoryA[c].sum > 0) && !(steps.categoryB[c].sum > 0)) continue;
        m_rows.push_back(
            {QString::fromLatin1(stepCategoryName(StepCategory(c))), steps.categoryA[c], steps.categoryB[c]});
    }
    endResetModel();
}

} // namespace ks::ui
