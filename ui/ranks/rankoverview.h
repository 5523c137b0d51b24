#pragma once

#include "core/analysis/ranks/jobsummary.h"

#include <QWidget>
#include <memory>

class QComboBox;
class QLabel;
class QTabWidget;
class QTableView;

namespace ks::ui {

class RankHeatmap;
class RankTableModel;
class CollectiveTableModel;
class StragglerTableModel;

// A distributed job at a glance: the rank × step heatmap of step time (or of one breakdown
// category), each rank's HTA overlap, HTA's stragglers and the collectives table. Asking for a rank
// at a step (a heatmap click, a double-click in the rank table) emits openRank.
class RankOverview : public QWidget {
    Q_OBJECT
public:
    explicit RankOverview(QWidget* parent = nullptr);

    void setJob(std::shared_ptr<const JobSummary> job, const QString& source);
    std::shared_ptr<const JobSummary> job() const { return m_job; }
    // -1: step time; else a StepCategory.
    void setCategory(int category);

    RankHeatmap* heatmap() const { return m_heatmap; }
    RankTableModel* rankModel() const { return m_rankModel; }
    CollectiveTableModel* collectiveModel() const { return m_collectiveModel; }
    StragglerTableModel* stragglerModel() const { return m_stragglerModel; }
    // The Stragglers tab's one-line verdict, as analyze-job prints it.
    QString stragglerSummary() const;
    QTabWidget* tabs() const { return m_tabs; }

signals:
    // The rank's trace, and the step to show (-1: none in particular).
    void openRank(const QString& path, qint64 rank, qint64 step);

private:
    void cellClicked(int row, int column);

    std::shared_ptr<const JobSummary> m_job;
    int m_category = -1;
    QLabel* m_title;
    QLabel* m_problems;
    QComboBox* m_categoryBox;
    RankHeatmap* m_heatmap;
    QTabWidget* m_tabs;
    RankTableModel* m_rankModel;
    CollectiveTableModel* m_collectiveModel;
    StragglerTableModel* m_stragglerModel;
    QLabel* m_stragglerSummary;
    QTableView* m_rankTable;
    QTableView* m_collectiveTable;
};

} // namespace ks::ui
