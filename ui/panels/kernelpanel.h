#pragma once

#include <QWidget>
#include <memory>

class QLabel;
class QLineEdit;
class QTableView;
class QToolButton;

namespace ks {
struct KernelRow;
}

namespace ks::ui {

class TraceDocument;
class KernelTableModel;
class KernelFilterModel;

// The kernel table with a filter and next/previous occurrence buttons.
class KernelPanel : public QWidget {
    Q_OBJECT
public:
    explicit KernelPanel(QWidget* parent = nullptr);

    void setDocument(std::shared_ptr<const TraceDocument> doc);
    void setOccurrenceStatus(int index, int total);
    void setFilterText(const QString& text);

    KernelTableModel* model() const { return m_model; }
    KernelFilterModel* proxy() const { return m_proxy; }
    QTableView* table() const { return m_table; }

signals:
    // A row was selected (index into TraceDocument::kernels.rows), or -1 when cleared.
    void kernelSelected(int kernelIndex);
    void nextOccurrence();
    void previousOccurrence();

private:
    void updateSummary();

    std::shared_ptr<const TraceDocument> m_doc;
    KernelTableModel* m_model;
    KernelFilterModel* m_proxy;
    QLineEdit* m_filter;
    QLabel* m_summary;
    QLabel* m_occurrence;
    QToolButton* m_prev;
    QToolButton* m_next;
    QTableView* m_table;
};

} // namespace ks::ui
