#include "ui/compare/argdiffmodel.h"

namespace ks::ui {

namespace {

QString values(const ArgChange& c, int width)
{
    auto clip = [width](const std::string& s) {
        const QString q = QString::fromStdString(s);
        return width > 0 && q.size() > width ? q.left(width - 1) + QStringLiteral("…") : q;
    };
    QStringList parts;
    for (const auto& [a, b] : c.examples)
        parts << clip(a) + QStringLiteral(" → ") + clip(b);
    QString text = parts.join(width > 0 ? QStringLiteral("; ") : QStringLiteral("\n"));
    if (c.changed > c.examples.size() && c.examples.size() > 1) text += QStringLiteral("; …");
    return text;
}

} // namespace

ArgDiffModel::ArgDiffModel(QObject* parent) : RowTableModel<ArgChange>(parent)
{
    using C = Column;
    auto count = [](size_t ArgChange::*field) {
        return [field](const ArgChange& r) { return QVariant(qulonglong(r.*field)); };
    };
    std::vector<C> columns{
        C::text(tr("Name"), tr("The events' name"),
                [](const ArgChange& r) { return QString::fromStdString(r.name); }),
        C::text(tr("Kind"), tr("The events' kind (cpu_op, kernel, cuda_sync, ...)"),
                [](const ArgChange& r) { return QString::fromLatin1(eventKindName(r.kind)); }),
        C::text(tr("Argument"), tr("The argument that differs"),
                [](const ArgChange& r) { return QString::fromStdString(r.key); }),
        C::number(tr("Pairs"), tr("Events of this name matched in A and B (the k-th against the k-th)"),
                  count(&ArgChange::pairs), count(&ArgChange::pairs)),
        C::number(tr("Changed"), tr("Matched pairs whose value of the argument differs"),
                  count(&ArgChange::changed), count(&ArgChange::changed)),
        C::text(tr("A → B"), tr("A few of the changes; (absent) where a side has no such argument"),
                [](const ArgChange& r) { return values(r, 60); }),
    };
    columns.back().cellToolTip = [](const ArgChange& r) { return QVariant(values(r, 0)); };
    setColumns(std::move(columns));
}

void ArgDiffModel::setRows(std::vector<ArgChange> rows)
{
    beginResetModel();
    m_rows = std::move(rows);
    endResetModel();
}

} // namespace ks::ui
