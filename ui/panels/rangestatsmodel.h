#pragma once

#include "analysis/rangestats.h"

#include <QAbstractTableModel>
#include <memory>

namespace ks::ui {

class TraceDocument;

// Aggregate of a selected time range: per slice name count, total, self and average time.
class RangeStatsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Name, Kind, Count, Total, Self, Average, ColumnCount };
    enum Role { SortRole = Qt::UserRole };

    explicit RangeStatsModel(QObject* parent = nullptr);

    void setStats(std::shared_ptr<const TraceDocument> doc, RangeStats stats);
    void clear();
    const RangeStats& stats() const { return m_stats; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const TraceDocument> m_doc;
    RangeStats m_stats;
};

} // namespace ks::ui
