#pragma once

#include "ui/util/tablemodel.h"

#include <vector>

namespace ks::ui {

// A table is a column list plus a row source: derive, implement rowCountOf() and rowAt(), and
// setColumns() (between beginResetModel() and endResetModel() when the set changes with the data).
// Cells call the column's functions on *rowAt(row); a model with roles of its own overrides
// rowData(). For example:
//
//   class ThingModel : public RowTableModel<Thing> {
//       ThingModel() { setColumns({Column::text(u"Name"_s, u"The thing's name"_s,
//                                               [](const Thing& t) { return t.name; }),
//                                  Column::number(u"Size"_s, u"Bytes it holds"_s,
//                                                 [](const Thing& t) { return formatBytes(t.bytes); },
//                                                 [](const Thing& t) { return t.bytes; })}); }
//       int rowCountOf() const override { return int(m_things.size()); }
//       const Thing* rowAt(int r) const override { return &m_things[size_t(r)]; }
//   };
template <typename Row>
class RowTableModel : public TableModel {
public:
    using Column = TableColumn<Row>;

    const Column& column(int c) const { return m_columns[size_t(c)]; }

protected:
    using TableModel::TableModel;

    void setColumns(std::vector<Column> columns) { m_columns = std::move(columns); }
    // The number of rows, and row r for r in [0, rowCountOf()).
    virtual int rowCountOf() const = 0;
    virtual const Row* rowAt(int r) const = 0;

private:
    int rows() const final { return rowCountOf(); }
    int columns() const final { return int(m_columns.size()); }
    const ColumnHead& head(int c) const final { return m_columns[size_t(c)]; }
    QVariant cell(int r, int c, int role) const final
    {
        const Row* row = rowAt(r);
        return row ? columnCell(m_columns[size_t(c)], *row, role) : QVariant();
    }

    std::vector<Column> m_columns;
};

} // namespace ks::ui
