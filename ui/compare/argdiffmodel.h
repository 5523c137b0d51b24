#pragma once

#include "core/analysis/compare/argdiff.h"
#include "ui/util/rowtablemodel.h"

namespace ks::ui {

// The arguments that differ between matched events of the two runs: per event name and argument,
// the pairs compared, how many differ and a few A → B values.
class ArgDiffModel : public RowTableModel<ArgChange> {
    Q_OBJECT
public:
    enum Columns { Name, Kind, Argument, Pairs, Changed, Values };
    explicit ArgDiffModel(QObject* parent = nullptr);
    void setRows(std::vector<ArgChange> rows);
    const ArgChange* row(int r) const { return rowAt(r); }

protected:
    int rowCountOf() const override { return int(m_rows.size()); }
    const ArgChange* rowAt(int r) const override
    {
        return r >= 0 && size_t(r) < m_rows.size() ? &m_rows[size_t(r)] : nullptr;
    }

private:
    std::vector<ArgChange> m_rows;
};

} // namespace ks::ui
