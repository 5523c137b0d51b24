#pragma once

#include <QAbstractTableModel>
#include <memory>

namespace ks {
struct KernelRow;
}

namespace ks::ui {

class TraceDocument;

// The kernel table: one row per GPU kernel / memcpy / memset name. Display text is formatted;
// SortRole holds the raw number (or text) to sort by; KernelIndexRole the row's index in
// TraceDocument::kernels.rows.
class KernelTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
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
        Occupancy,
        LaunchedBy,
        ColumnCount
    };
    enum Role { SortRole = Qt::UserRole, KernelIndexRole, FilterTextRole };

    explicit KernelTableModel(QObject* parent = nullptr);

    void setDocument(std::shared_ptr<const TraceDocument> doc);
    const KernelRow* kernel(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QString launchersText(const KernelRow& k, int limit) const;

    std::shared_ptr<const TraceDocument> m_doc;
};

} // namespace ks::ui
