#pragma once

#include "core/analysis/compare/opdiff.h"
#include "ui/util/rowtablemodel.h"

#include <memory>

namespace ks::ui {

// The op and kernel rows of a comparison: calls, total and self time per side, the deltas and HTA's
// categories by count and by time.
class OpDiffModel : public RowTableModel<OpDiffRow> {
    Q_OBJECT
public:
    enum Columns {
        Name,
        Kind,
        CallsA,
        CallsB,
        CallsDelta,
        TotalA,
        TotalB,
        TotalDelta,
        SelfA,
        SelfB,
        ByCount,
        ByTime
    };
    explicit OpDiffModel(QObject* parent = nullptr);
    void setRows(std::vector<OpDiffRow> rows);
    const OpDiffRow* row(int r) const { return rowAt(r); }

protected:
    int rowCountOf() const override { return int(m_rows.size()); }
    const OpDiffRow* rowAt(int r) const override
    {
        return r >= 0 && size_t(r) < m_rows.size() ? &m_rows[size_t(r)] : nullptr;
    }

private:
    std::vector<OpDiffRow> m_rows;
};

} // namespace ks::ui
