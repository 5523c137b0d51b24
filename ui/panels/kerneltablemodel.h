#pragma once

#include "ui/util/displaynames.h"
#include "ui/util/rowtablemodel.h"

#include <memory>

namespace ks {
struct KernelRow;
}

namespace ks::ui {

class TraceDocument;

// The kernel table: one row per GPU kernel / memcpy / memset name. Display text is formatted;
// SortRole holds the raw number (or text) to sort by; KernelIndexRole the row's index in
// TraceDocument::kernels.rows.
class KernelTableModel : public RowTableModel<KernelRow> {
    Q_OBJECT
public:
    enum ColumnId {
        Name,
        Kind,
        Count,
        Total,
        Share,
        Mean,
        Min,
        Max,
        Grid,
        Block,
        Registers,
        SharedMemory,
        BlocksPerSm,
        Occupancy,
        TensorCores,
        TensorCoresEligible,
        LaunchedBy,
        ColumnCount
    };
    enum Role { KernelIndexRole = FirstModelRole, FilterTextRole };

    explicit KernelTableModel(QObject* parent = nullptr);

    void setDocument(std::shared_ptr<const TraceDocument> doc);
    const KernelRow* kernel(int row) const;

protected:
    int rowCountOf() const override;
    const KernelRow* rowAt(int r) const override { return kernel(r); }
    QVariant rowData(int row, int role) const override;

private:
    QString name(const KernelRow& k) const;
    QString launchersText(const KernelRow& k, int limit) const;

    std::shared_ptr<const TraceDocument> m_doc;
    mutable DisplayNames m_names;
};

} // namespace ks::ui
