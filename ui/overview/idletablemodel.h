#pragma once

#include "core/analysis/overview/idletime.h"
#include "ui/util/rowtablemodel.h"

#include <QString>
#include <vector>

namespace ks {
class Trace;
}

namespace ks::ui {

// HTA's idle time breakdown per GPU stream, for the Overview: a table (not wrapped text) so that a
// narrow column elides a stream's name to one line and keeps its numbers aligned and sortable.
struct IdleRow {
    StreamIdle idle;
    QString stream;   // "GPU 0 · Stream 7"
    QString fullName; // with the device's name: the cell's tooltip
};

class IdleTableModel : public RowTableModel<IdleRow> {
    Q_OBJECT
public:
    explicit IdleTableModel(QObject* parent = nullptr);
    void setIdle(const Trace* trace, const std::vector<StreamIdle>& idle);
    const IdleRow* row(int r) const { return rowAt(r); }

protected:
    int rowCountOf() const override { return int(m_rows.size()); }
    const IdleRow* rowAt(int r) const override
    {
        return r >= 0 && size_t(r) < m_rows.size() ? &m_rows[size_t(r)] : nullptr;
    }

private:
    std::vector<IdleRow> m_rows;
};

} // namespace ks::ui
