#pragma once

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
    QString summaryText() const;

signals:
    void snapshotLoaded();
    void loadFailed(const QString& error);

private:
    void loaded(SnapshotOpenResult result);
    void showAllocation(uint32_t allocation);
    void updateSummary();

    JobTracker m_jobs{this};
    QString m_path;
    bool m_trackRecent = false;
    std::shared_ptr<std::atomic<uint64_t>> m_bytesRead;
    uint64_t m_fileBytes = 0;
    std::shared_ptr<const SnapshotDocument> m_doc;
    size_t m_device = 0;

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
