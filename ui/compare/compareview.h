#pragma once

#include "core/analysis/compare/runcompare.h"
#include "ui/util/jobtracker.h"

#include <QWidget>
#include <memory>

class QComboBox;
class QLabel;
class QLineEdit;
class QTableView;

namespace ks::ui {

class DiffOverlay;
class OpDiffFilterModel;
class OpDiffModel;
class StepCompareModel;
class TimelineView;
class TraceDocument;

// Two runs compared: their timelines stacked (A above B), aligned at a chosen step pair with zoom
// and pan linked, ops that the step trees do not match outlined (removed in A, inserted in B,
// slower on both); the op/kernel diff table (sortable, filtered by category; a row selects its
// events on both timelines) and the step breakdown of both sides with deltas. The comparison runs
// off the GUI thread (core/analysis/compare, docs/compare.md).
class CompareView : public QWidget {
    Q_OBJECT
public:
    // The report and, found off the GUI thread too, the kernels of the aligned steps whose rows
    // got slower (the op trees hold CPU ops only).
    struct Result {
        CompareReport report;
        std::vector<SliceRef> slowerKernelsA, slowerKernelsB;
    };

    explicit CompareView(QWidget* parent = nullptr);
    ~CompareView() override;

    // Compares a against b (the same document twice compares two of its steps).
    void setDocuments(std::shared_ptr<const TraceDocument> a, std::shared_ptr<const TraceDocument> b);
    // Aligns another step pair (step numbers); -1: the first step of each side.
    void alignSteps(int64_t stepA, int64_t stepB);

    const CompareReport* report() const { return m_result ? &m_result->report : nullptr; }
    TimelineView* timelineA() const { return m_viewA; }
    TimelineView* timelineB() const { return m_viewB; }
    QTableView* opTable() const { return m_opTable; }
    OpDiffFilterModel* opFilter() const { return m_opFilter; }
    size_t marksA() const;
    size_t marksB() const;

signals:
    void compared(); // a comparison finished and is shown

private:
    void recompute(int64_t stepA, int64_t stepB);
    void present(std::shared_ptr<const Result> result);
    void fillStepChoices();
    void linkWindows(bool fromA);
    void selectOpRow(const QModelIndex& proxyIndex);

    std::shared_ptr<const TraceDocument> m_a, m_b;
    std::shared_ptr<const Result> m_result;
    JobTracker m_jobs{this};
    TimeNs m_offset = 0; // B's time minus A's at the aligned steps' starts
    bool m_linking = false;

    QLabel* m_title = nullptr;
    QLabel* m_labelA = nullptr;
    QLabel* m_labelB = nullptr;
    QLabel* m_summary = nullptr;
    QComboBox* m_stepA = nullptr;
    QComboBox* m_stepB = nullptr;
    TimelineView* m_viewA = nullptr;
    TimelineView* m_viewB = nullptr;
    DiffOverlay* m_overlayA = nullptr;
    DiffOverlay* m_overlayB = nullptr;
    OpDiffModel* m_ops = nullptr;
    OpDiffFilterModel* m_opFilter = nullptr;
    QTableView* m_opTable = nullptr;
    QComboBox* m_category = nullptr;
    QLineEdit* m_filterText = nullptr;
    StepCompareModel* m_steps = nullptr;
    QTableView* m_stepTable = nullptr;
};

} // namespace ks::ui
