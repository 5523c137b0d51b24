#pragma once

#include "core/analysis/overview/kernelsummary.h"
#include "ui/util/displaynames.h"
#include "ui/util/rowtablemodel.h"

namespace ks::ui {

// TraceLens's ops_summary: each kernel-launching op with its kernel time, for the Overview.
class OpSummaryModel : public RowTableModel<OpsSummaryRow> {
    Q_OBJECT
public:
    explicit OpSummaryModel(QObject* parent = nullptr);
    void setRows(std::vector<OpsSummaryRow> rows);
    const OpsSummaryRow* row(int r) const { return rowAt(r); }

protected:
    int rowCountOf() const override { return int(m_rows.size()); }
    const OpsSummaryRow* rowAt(int r) const override
    {
        return r >= 0 && size_t(r) < m_rows.size() ? &m_rows[size_t(r)] : nullptr;
    }

private:
    std::vector<OpsSummaryRow> m_rows;
};

// TraceLens's kernel_summary: kernels by launching op, for the Overview.
class KernelSummaryModel : public RowTableModel<KernelSummaryRow> {
    Q_OBJECT
public:
    explicit KernelSummaryModel(QObject* parent = nullptr);
    void setRows(std::vector<KernelSummaryRow> rows);
    const KernelSummaryRow* row(int r) const { return rowAt(r); }
    // The kernel's name as shown (demangled), worked out once per row.
    const QString& shownName(const KernelSummaryRow& r) const;

protected:
    int rowCountOf() const override { return int(m_rows.size()); }
    const KernelSummaryRow* rowAt(int r) const override
    {
        return r >= 0 && size_t(r) < m_rows.size() ? &m_rows[size_t(r)] : nullptr;
    }

private:
    std::vector<KernelSummaryRow> m_rows;
    mutable DisplayNames m_names;
};

} // namespace ks::ui
