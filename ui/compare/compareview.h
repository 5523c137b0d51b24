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

class ArgDiffModel;
class DetailsPanel;
class DiffOverlay;
class OpDiffFilterModel;
class OpDiffModel;
class StepCompareModel;
class TimelineView;
class TraceDocument;

// Two runs compared: their timelines stacked (A above B), aligned at a chosen step pair with zoom
// and pan linked, ops that the step trees do not match outlined (removed in A, inserted in B,
// slower on both); the op/kernel diff table (sortable, filtered by category; a row selects its
// events on both timelines), the step breakdown of both sides with deltas, the arguments that
// changed between matched events, and a details panel for the slice selected on either timeline. The
// comparison runs off the GUI thread (core/analysis/compare, docs/compare.md).
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
    ArgDiffModel* argModel() const { return m_args; }
    // The selected slice of either timeline, with its arguments (the main window's details panel).
    DetailsPanel* details() const { return m_details; }
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
    void showDetails(bool sideB, SliceRef slice);

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
    ArgDiffModel* m_args = nullptr;
    QTableView* m_argTable = nullptr;
    DetailsPanel* m_details = nullptr;
    bool m_detailsB = false; // the details panel shows a slice of B
};

} // namespace ks::ui
