#pragma once

#include "core/io/logdir.h"
#include "ui/util/rowtablemodel.h"

#include <vector>

namespace ks::ui {

// Trace files of a TensorBoard log directory: run, worker, span, size.
class LogdirModel : public RowTableModel<LogdirEntry> {
    Q_OBJECT
public:
    enum ColumnId { Run, Worker, Span, Size, ColumnCount };
    enum Role { PathRole = FirstModelRole };

    explicit LogdirModel(QObject* parent = nullptr);
    void setEntries(std::vector<LogdirEntry> entries);
    const std::vector<LogdirEntry>& entries() const { return m_entries; }

    // "2021-06-08 09:18:09" for a span stamp in ns or ms since the epoch, else the stamp itself.
    static QString spanText(const std::string& span);

protected:
    int rowCountOf() const override { return int(m_entries.size()); }
    const LogdirEntry* rowAt(int r) const override { return &m_entries[size_t(r)]; }
    QVariant rowData(int row, int role) const override;

private:
    std::vector<LogdirEntry> m_entries;
};

} // namespace ks::ui
