#pragma once

#include "core/analysis/compare/opdiff.h"
#include "ui/util/rowtablemodel.h"

#include <QSortFilterProxyModel>
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

// Sorts on raw values and keeps the rows of one category (by count or by time), or all.
class OpDiffFilterModel : public QSortFilterProxyModel {
    Q_OBJECT
public:
    explicit OpDiffFilterModel(QObject* parent = nullptr);
    // category -1: every row.
    void setCategory(int category, bool byTime);
    void setText(const QString& text);

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;

private:
    int m_category = -1;
    bool m_byTime = true;
    QString m_text;
};

} // namespace ks::ui
