#pragma once

#include "ui/util/rowtablemodel.h"

#include <QString>
#include <cstdint>
#include <memory>
#include <vector>

namespace ks::ui {

struct SnapshotDocument;

struct PeakAllocationRow {
    uint32_t allocation = 0;
    int64_t size = 0;
    int64_t addr = 0;
    int64_t stream = 0;
    qint64 begin = -1; // entry of its alloc; -1 before the recorded history
    QString topFrame;  // the first frame memory_viz shows
};

// The allocations alive at a device's peak, largest first (SnapshotTimeline::aliveAt of the peak
// entry: what `kinetoscope snapshot --json` counts as alive_at_peak and sums to peak_bytes).
class PeakAllocationModel : public RowTableModel<PeakAllocationRow> {
    Q_OBJECT
public:
    explicit PeakAllocationModel(QObject* parent = nullptr);
    void setDevice(std::shared_ptr<const SnapshotDocument> doc, size_t device);
    const PeakAllocationRow* row(int r) const { return rowAt(r); }

protected:
    int rowCountOf() const override { return int(m_rows.size()); }
    const PeakAllocationRow* rowAt(int r) const override
    {
        return r >= 0 && size_t(r) < m_rows.size() ? &m_rows[size_t(r)] : nullptr;
    }

private:
    std::vector<PeakAllocationRow> m_rows;
};

} // namespace ks::ui
