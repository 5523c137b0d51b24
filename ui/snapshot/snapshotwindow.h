#pragma once

#include "core/analysis/snapshot/snapshotops.h"
#include "ui/snapshot/snapshotdocument.h"
#include "ui/util/jobtracker.h"

#include <QMainWindow>
#include <atomic>
#include <memory>

class QComboBox;
class QLabel;
class QPlainTextEdit;
class QProgressBar;
class QSortFilterProxyModel;
class QSpinBox;
class QStackedWidget;
class QTableView;
class QTabWidget;
class QTimer;

namespace ks::ui {
struct TraceDocument;
}

namespace ks::ui {

class PeakAllocationModel;
class SegmentView;
class SnapshotChart;

// A window for a CUDA memory snapshot (torch.cuda.memory._dump_snapshot): the file is read off
// the GUI thread with progress and Cancel, then per device the active-memory timeline, the stack
// of the allocation under the mouse, the allocator's segments at a chosen entry, and the
// allocations alive at the peak. A document kind of its own: never mixed into a trace's views.
class SnapshotWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit SnapshotWindow(QWidget* parent = nullptr);
    ~SnapshotWindow() override;

    void openSnapshot(const QString& path);
    bool isLoading() const { return m_jobs.isRunning(); }
    // Adds the file to File > Open Recent once it has loaded.
    void setRecentTracking(bool track) { m_trackRecent = track; }

    std::shared_ptr<const SnapshotDocument> document() const { return m_doc; }
    size_t device() const { return m_device; }
    void setDevice(size_t device);
    // The allocator state at an entry (UINT32_MAX: at the snapshot).
    void showStateAt(uint32_t entry);

    SnapshotChart* chart() const { return m_chart; }
    SegmentView* segmentView() const { return m_segments; }
    PeakAllocationModel* peakModel() const { return m_peakModel; }
    QString stackText() const;
    // The allocation's details in the side panel (what hovering its band shows).
    void showAllocation(uint32_t allocation);
    // Looks for a trace of the same run open in a MainWindow (their times overlap the device's);
    // its CPU ops are then marked under the timeline and named in an allocation's details. Run
    // when the snapshot loads, on a device change, when such a trace loads and when this window is
    // activated.
    void matchTraces();
    QString matchedTrace() const { return m_traceName; }
    QString summaryText() const;

signals:
    void snapshotLoaded();
    void loadFailed(const QString& error);

protected:
    void changeEvent(QEvent* e) override;

private:
    void loaded(SnapshotOpenResult result);
    void updateSummary();

    JobTracker m_jobs{this};
    QString m_path;
    bool m_trackRecent = false;
    std::shared_ptr<std::atomic<uint64_t>> m_bytesRead;
    uint64_t m_fileBytes = 0;
    std::shared_ptr<const SnapshotDocument> m_doc;
    size_t m_device = 0;
    std::shared_ptr<const TraceDocument> m_trace; // the matched trace, kept while its ops are shown
    SnapshotOpIndex m_ops;
    QString m_traceName;

    QStackedWidget* m_stack;
    QLabel* m_status;
    QProgressBar* m_progress;
    QTimer* m_progressTimer;
    QComboBox* m_deviceBox;
    QLabel* m_summary;
    SnapshotChart* m_chart;
    QPlainTextEdit* m_stackPanel;
    QTabWidget* m_tabs;
    SegmentView* m_segments;
    QSpinBox* m_entryBox;
    QSpinBox* m_detail;
    PeakAllocationModel* m_peakModel;
    QSortFilterProxyModel* m_peakProxy;
    QTableView* m_peakTable;
};

} // namespace ks::ui
