#pragma once

#include "core/analysis/memory/memorytimeline.h"

#include <QList>
#include <QWidget>
#include <memory>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QStackedWidget;
class QTableView;

namespace ks {

class AllocationFilterProxy;
class AllocationTableModel;
class MemoryChartView;

// The memory page: a device selector, the stacked category chart and, under it, the table of
// rebuilt allocations (sortable, filterable by category and text, and by the timeline's selection).
// A trace without memory events shows why instead of an empty chart.
//
// For the main window: feed it setTrace() (or a timeline built elsewhere), drive it from the
// timeline with setVisibleRange() / setSelection(), and listen to opSelected (a chart click) and
// opsSelected (a table row: its allocating and freeing ops).
class MemoryView : public QWidget {
    Q_OBJECT
public:
    explicit MemoryView(QWidget* parent = nullptr);
    ~MemoryView() override;

    // Builds the memory timeline of trace (synchronously; about 0.3 s per million events). The
    // trace must outlive the view or be replaced.
    void setTrace(const Trace* trace);
    void setTimeline(std::shared_ptr<const MemoryTimeline> timeline);
    const MemoryTimeline* timeline() const { return m_timeline.get(); }

    bool hasMemory() const;
    // The explanation shown instead of the chart, empty while a chart is shown.
    QString explanation() const;

    // The device's chart and table are filled when the page is first shown (or one of these is
    // asked for): sorting half a million allocations takes the GUI thread for a while, and a trace
    // that just loaded should not wait for a page nobody looks at (issue 30, item 11).
    MemoryChartView* chartView() { return showPendingDevice(), m_chart; }
    QTableView* tableView() { return showPendingDevice(), m_table; }
    AllocationTableModel* allocationModel() { return showPendingDevice(), m_model; }
    AllocationFilterProxy* allocationProxy() { return showPendingDevice(), m_proxy; }
    QComboBox* deviceSelector() const { return m_devices; }
    // Whether the chart and table still wait for the page to be shown.
    bool devicePending() const { return m_devicePending; }

public slots:
    // Device by name ("cuda:0"); unknown names are ignored.
    void setDevice(const QString& name);
    void setVisibleRange(qint64 start, qint64 end);
    void setSelection(qint64 start, qint64 end);
    void clearSelection();

signals:
    void opSelected(ks::SliceRef op);
    void opsSelected(const QList<ks::SliceRef>& ops);

protected:
    void showEvent(QShowEvent* event) override;

private:
    void showDevice(int index);
    void showPendingDevice();
    void showExplanation(const QString& text);
    void emitRowOps(const QModelIndex& proxyIndex);

    std::shared_ptr<const MemoryTimeline> m_timeline;
    QStackedWidget* m_stack = nullptr;
    QLabel* m_explanation = nullptr;
    QComboBox* m_devices = nullptr;
    QComboBox* m_category = nullptr;
    QLineEdit* m_filter = nullptr;
    QCheckBox* m_selectionOnly = nullptr;
    QLabel* m_balance = nullptr;
    MemoryChartView* m_chart = nullptr;
    QTableView* m_table = nullptr;
    AllocationTableModel* m_model = nullptr;
    AllocationFilterProxy* m_proxy = nullptr;
    bool m_hasSelection = false;
    bool m_devicePending = false;
    qint64 m_selStart = 0;
    qint64 m_selEnd = 0;
};

} // namespace ks
