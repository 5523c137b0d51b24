#pragma once

#include "core/analysis/compare/stepdiff.h"
#include "ui/util/rowtablemodel.h"

namespace ks::ui {

// One line of the step comparison: step time or one breakdown category, per side and the change.
struct StepCompareRow {
    QString name;
    Stats a, b;
};

// The Overview's step breakdown of both runs side by side: mean, median and std per side (µs)
// and the change of the mean.
class StepCompareModel : public RowTableModel<StepCompareRow> {
    Q_OBJECT
public:
    explicit StepCompareModel(QObject* parent = nullptr);
    void setSteps(const StepDiff& steps);

protected:
    int rowCountOf() const override { return int(m_rows.size()); }
    const StepCompareRow* rowAt(int r) const override
    {
        return r >= 0 && size_t(r) < m_rows.size() ? &m_rows[size_t(r)] : nullptr;
    }

private:
    std::vector<StepCompareRow> m_rows;
};

} // namespace ks::ui
