#include "ui/panels/rangestatsmodel.h"

#include "ui/document/tracedocument.h"
#include "ui/util/format.h"

using namespace Qt::StringLiterals;

namespace ks::ui {

namespace {

double average(const RangeRow& r)
{
    return r.count ? double(r.total) / double(r.count) : 0;
}

} // namespace

RangeStatsModel::RangeStatsModel(QObject* parent) : RowTableModel(parent)
{
    using C = Column;
    using R = const RangeRow&;
    // In ColumnId order.
    setColumns({
        C::text(u"Name"_s, u"Slice name"_s, [this](R r) { return name(r); }).withCellToolTip([this](R r) {
            return name(r);
        }),
        C::text(u"Kind"_s, u"The trace's event category: cpu_op, kernel, memcpy, python_function, …"_s,
                [](R r) { return QString::fromLatin1(eventKindName(r.kind)); }),
        C::number(
            u"Count"_s, u"Slices of this name in the range"_s, [](R r) { return formatCount(r.count); },
            [](R r) { return qulonglong(r.count); }),
        C::number(
            u"Wall time"_s, u"Time inside the range covered by these slices"_s,
            [](R r) { return formatDuration(r.total); }, [](R r) { return qlonglong(r.total); }),
        C::number(
            u"Self time"_s, u"Wall time inside the range not covered by child slices"_s,
            [](R r) { return formatDuration(r.self); }, [](R r) { return qlonglong(r.self); }),
        C::number(
            u"Average"_s, u"Wall time per slice"_s,
            [](R r) { return formatDuration(TimeNs(average(r) + 0.5)); }, [](R r) { return average(r); }),
    });
}

void RangeStatsModel::setStats(std::shared_ptr<const TraceDocument> doc, RangeStats stats)
{
    beginResetModel();
    m_doc = std::move(doc);
    m_stats = std::move(stats);
    endResetModel();
}

void RangeStatsModel::clear()
{
    beginResetModel();
    m_stats = RangeStats{};
    endResetModel();
}

int RangeStatsModel::rowCountOf() const
{
    return m_doc ? int(m_stats.rows.size()) : 0;
}

QString RangeStatsModel::name(const RangeRow& r) const
{
    const std::string_view n = m_doc->trace->str(r.name);
    return QString::fromUtf8(n.data(), qsizetype(n.size()));
}

} // namespace ks::ui
