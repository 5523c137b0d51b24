#pragma once

#include "ui/panels/rangestatsmodel.h"
#include "ui/util/jobtracker.h"
#include "ui/util/metatypes.h"

#include <QWidget>
#include <memory>

class QLabel;
class QTableView;
class QSortFilterProxyModel;

namespace ks::ui {

class TraceDocument;

// Aggregates the slices of a selected time range and track set, computed in the background.
class RangePanel : public QWidget {
    Q_OBJECT
public:
    explicit RangePanel(QWidget* parent = nullptr);

    void setDocument(std::shared_ptr<const TraceDocument> doc);
    void setRange(qint64 t0, qint64 t1, const std::vector<ks::TrackId>& tracks);
    void clear();
    RangeStatsModel* model() const { return m_model; }

signals:
    void computed();

private:
    std::shared_ptr<const TraceDocument> m_doc;
    JobTracker m_jobs{this};
    QLabel* m_title;
    QTableView* m_table;
    RangeStatsModel* m_model;
    QSortFilterProxyModel* m_proxy;
};

} // namespace ks::ui
