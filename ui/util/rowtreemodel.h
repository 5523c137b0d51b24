#pragma once

#include "ui/util/tablecolumn.h"
#include "ui/util/treetablemodel.h"

#include <vector>

namespace ks::ui {

// RowTableModel's tree form: a column list (TableColumn<Row>, the same as a flat table's) plus a
// tree of rows. Derive, implement the tree (TreeTableModel's childCount/child/parentOf/rowOf) and
// rowAt(node) for every node but the root 0; cells call the column's functions on *rowAt(node).
template <typename Row>
class RowTreeModel : public TreeTableModel {
public:
    using Column = TableColumn<Row>;

    const Column& column(int c) const { return m_columns[size_t(c)]; }

protected:
    using TreeTableModel::TreeTableModel;

    void setColumns(std::vector<Column> columns) { m_columns = std::move(columns); }
    virtual const Row* rowAt(quintptr node) const = 0;

private:
    int columns() const final { return int(m_columns.size()); }
    const ColumnHead& head(int c) const final { return m_columns[size_t(c)]; }
    QVariant cell(quintptr node, int c, int role) const final
    {
        const Row* row = rowAt(node);
        return row ? columnCell(m_columns[size_t(c)], *row, role) : QVariant();
    }

    std::vector<Column> m_columns;
};

} // namespace ks::ui
