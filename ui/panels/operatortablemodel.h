#pragma once

#include "core/analysis/summary/summaryreport.h"
#include "ui/util/rowtablemodel.h"

#include <memory>
#include <vector>

namespace ks::ui {

// torch's key_averages table as a Qt model: the columns torch would print for this trace, cells in
// torch's own number formats, SortRole holding the raw value (so any column sorts numerically).
class OperatorTableModel : public RowTableModel<KeyAverage> {
    Q_OBJECT
public:
    enum class Col {
        Name,
        InputShapes,
        SelfCpuPct,
        SelfCpu,
        CpuTotalPct,
        CpuTotal,
        CpuAvg,
        SelfDevice,
        SelfDevicePct,
        DeviceTotal,
        DeviceAvg,
        CpuMem,
        SelfCpuMem,
        DeviceMem,
        SelfDeviceMem,
        Calls,
        Flops,
    };
    enum Role { RowIndexRole = FirstModelRole, TopLevelRole };

    explicit OperatorTableModel(QObject* parent = nullptr);

    // Takes a computed summary; the column set follows its table flags.
    void setReport(std::shared_ptr<const SummaryReport> report);
    const SummaryReport* report() const { return m_report.get(); }
    const KeyAverage* row(int r) const;
    Col columnKind(int column) const { return m_kinds[size_t(column)]; }
    int columnOf(Col c) const;
    // torch's table() sort key for a column, SortKey::None when torch has none for it.
    SortKey sortKeyOf(int column) const;

protected:
    int rowCountOf() const override;
    const KeyAverage* rowAt(int r) const override { return row(r); }
    QVariant rowData(int row, int role) const override;

private:
    Column describe(Col c) const;

    std::shared_ptr<const SummaryReport> m_report;
    std::vector<Col> m_kinds; // what each shown column is
    double m_selfCpuTotal = 0;
    double m_selfDeviceTotal = 0;
    int m_flopsScale = 0; // FLOPs unit exponent (thousands) from the smallest positive value
};

} // namespace ks::ui
