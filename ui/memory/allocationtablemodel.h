#pragma once

#include "core/analysis/memory/memorytimeline.h"
#include "ui/util/rowtablemodel.h"

#include <string_view>

namespace ks {

// The rebuilt allocations of one device as a table: one row per block, from allocation to free.
// Display text is formatted on demand; SortRole gives raw numbers so sorting is by value.
class AllocationTableModel : public ui::RowTableModel<MemoryAllocation> {
    Q_OBJECT
public:
    enum ColumnId {
        Address,
        Size,
        Category,
        AllocatedAt,
        AllocatedBy,
        FreedAt,
        FreedBy,
        Lifetime,
        Rule,
        ColumnCount
    };
    enum Role {
        CategoryRole = FirstModelRole, // int: MemoryCategory
        AllocationRole,                // int: index into the device's allocations
        AllocTimeRole,                 // qint64 trace ns; minimum for pre-existing blocks
        FreeTimeRole,                  // qint64 trace ns; maximum while alive
        AllocOpRole,                   // QVariant<SliceRef>
        FreeOpRole,
    };

    explicit AllocationTableModel(QObject* parent = nullptr);

    // Shows device's allocations (null: none). The timeline must outlive the model or be reset first.
    void setDevice(const MemoryTimeline* timeline, const MemoryDeviceTimeline* device);
    const MemoryDeviceTimeline* device() const { return m_device; }
    const MemoryAllocation* allocation(int row) const;
    // Orders two rows by a column's raw value (bytes, times, op names), without building QVariants:
    // sorting half a million rows through data() takes seconds.
    bool lessThan(int rowA, int rowB, int column) const;
    // Whether a row's address, category or op names contain needle, which must be lower case.
    bool matches(int row, std::string_view lowerNeedle) const;

protected:
    int rowCountOf() const override;
    const MemoryAllocation* rowAt(int r) const override { return allocation(r); }
    QVariant rowData(int row, int role) const override;

private:
    QString opName(SliceRef op) const;
    std::string_view opView(SliceRef op) const;
    QString timeText(TimeNs t, bool before) const;

    const MemoryTimeline* m_timeline = nullptr;
    const MemoryDeviceTimeline* m_device = nullptr;
    TimeNs m_origin = 0;
};

} // namespace ks
