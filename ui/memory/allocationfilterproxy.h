#pragma once

#include <QSortFilterProxyModel>
#include <string>

namespace ks {

class AllocationTableModel;

// Sorting and filtering of an AllocationTableModel (other source models show no rows): by category,
// by text (address, op names, category) and by being alive during a time window (the timeline's
// selection).
class AllocationFilterProxy : public QSortFilterProxyModel {
    Q_OBJECT
public:
    explicit AllocationFilterProxy(QObject* parent = nullptr);

    // -1 shows every category.
    void setCategory(int category);
    int category() const { return m_category; }
    void setText(const QString& text);
    // Keeps allocations alive at some moment of [start, end] (trace ns).
    void setAliveWithin(qint64 start, qint64 end);
    void clearAliveWithin();

    void setSourceModel(QAbstractItemModel* model) override;

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;
    bool lessThan(const QModelIndex& left, const QModelIndex& right) const override;

private:
    // Filtering and sorting read the rows directly instead of through QVariants: half a million rows
    // through data() take seconds.
    const AllocationTableModel* m_allocations = nullptr;
    int m_category = -1;
    QString m_text;
    std::string m_needle; // m_text in lower-case UTF-8
    bool m_window = false;
    qint64 m_start = 0;
    qint64 m_end = 0;
};

} // namespace ks
