#pragma once

#include "core/analysis/timeline/rangestats.h"
#include "ui/util/rowtablemodel.h"

#include <memory>

namespace ks::ui {

class TraceDocument;

// Aggregate of a selected time range: per slice name count, total, self and average time.
class RangeStatsModel : public RowTableModel<RangeRow> {
    Q_OBJECT
public:
    enum ColumnId { Name, Kind, Count, Total, Self, Average, ColumnCount };

    explicit RangeStatsModel(QObject* parent = nullptr);

    void setStats(std::shared_ptr<const TraceDocument> doc, RangeStats stats);
    void clear();
    const RangeStats& stats() const { return m_stats; }

protected:
    int rowCountOf() const override;
    const RangeRow* rowAt(int r) const override { return &m_stats.rows[size_t(r)]; }

private:
    QString name(const RangeRow& r) const;

    std::shared_ptr<const TraceDocument> m_doc;
    RangeStats m_stats;
};

} // namespace ks::ui
