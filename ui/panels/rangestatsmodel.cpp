#include "panels/rangestatsmodel.h"

#include "document/tracedocument.h"
#include "util/format.h"

namespace ks::ui {

RangeStatsModel::RangeStatsModel(QObject* parent) : QAbstractTableModel(parent) {}

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

int RangeStatsModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() || !m_doc ? 0 : int(m_stats.rows.size());
}

int RangeStatsModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant RangeStatsModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || !m_doc || index.row() >= int(m_stats.rows.size()) ||
        index.column() >= ColumnCount)
        return {};
    const RangeRow& r = m_stats.rows[size_t(index.row())];
    const std::string_view name = m_doc->trace->str(r.name);
    const QString qname = QString::fromUtf8(name.data(), qsizetype(name.size()));
    const double avg = r.count ? double(r.total) / double(r.count) : 0;
    if (role == Qt::TextAlignmentRole)
        return index.column() <= Kind ? int(Qt::AlignLeft | Qt::AlignVCenter)
                                      : int(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ToolTipRole && index.column() == Name) return qname;
    if (role == SortRole) {
        switch (index.column()) {
        case Name:
            return qname;
        case Kind:
            return QString::fromLatin1(eventKindName(r.kind));
        case Count:
            return qulonglong(r.count);
        case Total:
            return qlonglong(r.total);
        case Self:
            return qlonglong(r.self);
        case Average:
            return avg;
        }
    }
    if (role != Qt::DisplayRole) return {};
    switch (index.column()) {
    case Name:
        return qname;
    case Kind:
        return QString::fromLatin1(eventKindName(r.kind));
    case Count:
        return formatCount(r.count);
    case Total:
        return formatDuration(r.total);
    case Self:
        return formatDuration(r.self);
    case Average:
        return formatDuration(TimeNs(avg + 0.5));
    }
    return {};
}

QVariant RangeStatsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole || section < 0 || section >= ColumnCount)
        return {};
    static const char* const names[ColumnCount] = {"Name",      "Kind",      "Count",
                                                   "Wall time", "Self time", "Average"};
    return QString::fromLatin1(names[section]);
}

} // namespace ks::ui
