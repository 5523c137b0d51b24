#pragma once

#include <QSortFilterProxyModel>

namespace ks {

// Sorting and filtering of an AllocationTableModel: by category, by text (address, op names,
// category) and by being alive during a time window (the timeline's selection).
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

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;

private:
    int m_category = -1;
    QString m_text;
    bool m_window = false;
    qint64 m_start = 0;
    qint64 m_end = 0;
};

} // namespace ks
