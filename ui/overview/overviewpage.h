#pragma once

#include "core/analysis/overview/overviewreport.h"
#include "ui/util/jobtracker.h"

#include <QWidget>
#include <memory>
#include <vector>

class QLabel;
class QListWidget;
class QScrollArea;
class QSplitter;
class QTabWidget;
class QSortFilterProxyModel;
class QTableView;

namespace ks::ui {

class TraceDocument;
class StepBreakdownChart;
class RooflineChart;
class OpSummaryModel;
class KernelSummaryModel;
class IdleTableModel;

// The first page of the Analysis panel: where the step time goes and why, for the whole trace or
// the range selected on the timeline. Computed off the GUI thread (JobTracker); every mark asks the
// main window to show its events or time range.
class OverviewPage : public QWidget {
    Q_OBJECT
public:
    explicit OverviewPage(QWidget* parent = nullptr);

    // growing: a live session's document, whose trace and link index change while jobs run.
    void setDocument(std::shared_ptr<const TraceDocument> doc, bool growing = false);
    // Re-scopes to a time range (the timeline's range selection), or back to the whole trace.
    void setScope(qint64 from, qint64 to);
    void clearScope();
    // The document grew (a live session): recomputed in the background, keeping the scope; at
    // most one computation runs, and growth while it runs is picked up by the next call.
    void refresh();

    bool isComputing() const { return m_jobs.isRunning(); }
    const OverviewReport* report() const { return m_report.get(); }
    StepBreakdownChart* stepChart() const { return m_steps; }
    QListWidget* findingsList() const { return m_findings; }
    RooflineChart* roofline() const { return m_roofline; }
    OpSummaryModel* opModel() const { return m_ops; }
    KernelSummaryModel* kernelModel() const { return m_kernelRows; }
    IdleTableModel* idleModel() const { return m_idle; }
    QTabWidget* tables() const { return m_tables; }
    QScrollArea* scrollArea() const { return m_scroll; }
    // Whether the tables are below the charts (a tall page) or beside them (a short one).
    bool isStacked() const;

    static constexpr int kChartMinHeight = 200;
    // The page height from which the tables go below the charts.
    static constexpr int kStackedMinHeight = 520;
    // Slices named `name` (of the given kind, any when Other) within the page's scope, in start order.
    std::vector<SliceRef> slicesNamed(const QString& name, bool gpuWork) const;

signals:
    void eventsRequested(const QString& label, const std::vector<ks::SliceRef>& events);
    void rangeRequested(qint64 from, qint64 to);
    void computed();

protected:
    void resizeEvent(QResizeEvent* e) override;

private:
    void adaptLayout();
    // Shares a top row of this width between the charts (and the findings, when stacked).
    void shareTop(int width);
    void recompute();
    void show(std::shared_ptr<const OverviewReport> report);
    QString summaryHtml(const OverviewReport& r) const;
    QString gpuHtml(const OverviewReport& r) const;

    std::shared_ptr<const TraceDocument> m_doc;
    std::shared_ptr<const OverviewReport> m_report;
    OverviewScope m_scope;
    // Set once the document grows (live): its link index is then replaced on the GUI thread while
    // a job could be reading it, so jobs build their own.
    bool m_growing = false;
    QString m_devicePeak; // Preferences' text the shown report was computed with
    JobTracker m_jobs{this};
    QScrollArea* m_scroll;
    QWidget* m_content;
    QSplitter* m_rows;
    QSplitter* m_top;         // the charts (and the findings, when stacked)
    QWidget* m_findingsBox;   // title + list: in m_top when stacked, else the first table tab
    bool m_rowsSized = false; // m_rows shared out at a real size since the last turn
    QTabWidget* m_tables;
    QLabel* m_summary;
    StepBreakdownChart* m_steps;
    IdleTableModel* m_idle;
    QSortFilterProxyModel* m_idleProxy;
    QListWidget* m_findings;
    RooflineChart* m_roofline;
    OpSummaryModel* m_ops;
    KernelSummaryModel* m_kernelRows;
    QSortFilterProxyModel* m_opsProxy;
    QSortFilterProxyModel* m_kernelsProxy;
};

} // namespace ks::ui
