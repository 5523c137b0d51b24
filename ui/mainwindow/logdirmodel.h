#pragma once

#include "io/logdir.h"

#include <QAbstractTableModel>
#include <vector>

namespace ks::ui {

// Trace files of a TensorBoard log directory: run, worker, span, size.
class LogdirModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Run, Worker, Span, Size, ColumnCount };
    enum Role { PathRole = Qt::UserRole };

    explicit LogdirModel(QObject* parent = nullptr);
    void setEntries(std::vector<LogdirEntry> entries);
    const std::vector<LogdirEntry>& entries() const { return m_entries; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    // "2021-06-08 09:18:09" for a span stamp in ns or ms since the epoch, else the stamp itself.
    static QString spanText(const std::string& span);

private:
    std::vector<LogdirEntry> m_entries;
};

} // namespace ks::ui
