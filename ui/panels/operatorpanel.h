#pragma once

#include "ui/util/jobtracker.h"

#include <QWidget>
#include <memory>

class QCheckBox;
class QLabel;
class QLineEdit;
class QTableView;
class QToolButton;

namespace ks {
struct KeyAverage;
struct SummaryReport;
} // namespace ks

namespace ks::ui {

class TraceDocument;
class OperatorTableModel;
class OperatorFilterModel;

// torch's key_averages() table: every column torch prints for the trace, sortable on any column,
// filterable by name, with group-by-input-shape and top-level-only toggles, copy/export as torch's
// text table or CSV, and next/previous occurrence of the selected op in the timeline. The summary
// is computed off the GUI thread.
class OperatorPanel : public QWidget {
    Q_OBJECT
public:
    explicit OperatorPanel(QWidget* parent = nullptr);
    ~OperatorPanel() override;

    void setDocument(std::shared_ptr<const TraceDocument> doc);
    void setOccurrenceStatus(int index, int total);
    void setGroupByInputShape(bool on);
    void setTopLevelOnly(bool on);
    void setFilterText(const QString& text);

    OperatorTableModel* model() const { return m_model; }
    OperatorFilterModel* proxy() const { return m_proxy; }
    QTableView* table() const { return m_table; }
    bool computing() const { return m_computing; }

    // torch's text table for the current rows, in the current sort (all rows, as table() prints).
    QString tableText() const;
    // The visible rows as CSV (raw numbers: µs and bytes), in view order.
    QString csvText() const;
    bool exportTo(const QString& path, QString* error);

signals:
    // The selected row (null when cleared); the report stays valid until the next summaryReady.
    void operatorSelected(const ks::KeyAverage* row, bool groupedByInputShape);
    void nextOccurrence();
    void previousOccurrence();
    void summaryReady();

private:
    void recompute();
    void updateSummaryLine();

    std::shared_ptr<const TraceDocument> m_doc;
    std::shared_ptr<const SummaryReport> m_report;
    JobTracker m_jobs;
    bool m_computing = false;
    OperatorTableModel* m_model;
    OperatorFilterModel* m_proxy;
    QLineEdit* m_filter;
    QCheckBox* m_byShape;
    QCheckBox* m_topLevel;
    QToolButton* m_copy;
    QToolButton* m_export;
    QLabel* m_summary;
    QLabel* m_occurrence;
    QToolButton* m_prev;
    QToolButton* m_next;
    QTableView* m_table;
};

} // namespace ks::ui
