#pragma once

#include <QString>
#include <QVariant>
#include <functional>
#include <utility>

namespace ks::ui {

// What a table's header and its views need to know about a column, independent of the row type.
struct ColumnHead {
    QString title;
    // What the column means, shown as the header's tooltip. Every column has one: the short titles
    // ("Regs", "Self CPU %") are not self-explaining.
    QString toolTip;
    Qt::Alignment alignment = Qt::AlignLeft | Qt::AlignVCenter;
    // The order of the first click on the header (Qt::InitialSortOrderRole, which QHeaderView
    // reads): numbers largest first, since profiler users look for the biggest costs; text A to Z.
    Qt::SortOrder firstSortOrder = Qt::AscendingOrder;
};

// One column of a RowTableModel<Row>, described once: the model derives data() and headerData()
// from it. Cells are functions of a row; `sortKey` gives the raw value the proxy sorts by (so
// "1.2 ms" sorts as 1'200'000 ns, not as text), `display` the formatted text.
template <typename Row>
struct TableColumn : ColumnHead {
    using Cell = std::function<QVariant(const Row&)>;

    Cell display;
    Cell sortKey;     // empty: sorts by display
    Cell cellToolTip; // empty: the model's row tooltip, if any
    Cell decoration;  // empty: none

    // Left-aligned, ascending on the first click.
    static TableColumn text(QString title, QString toolTip, Cell display, Cell sortKey = {})
    {
        TableColumn c;
        c.title = std::move(title);
        c.toolTip = std::move(toolTip);
        c.display = std::move(display);
        c.sortKey = std::move(sortKey);
        return c;
    }
    // Right-aligned, largest first on the first click.
    static TableColumn number(QString title, QString toolTip, Cell display, Cell sortKey)
    {
        TableColumn c = text(std::move(title), std::move(toolTip), std::move(display), std::move(sortKey));
        c.alignment = Qt::AlignRight | Qt::AlignVCenter;
        c.firstSortOrder = Qt::DescendingOrder;
        return c;
    }

    TableColumn withCellToolTip(Cell tip) &&
    {
        cellToolTip = std::move(tip);
        return std::move(*this);
    }
    TableColumn withDecoration(Cell d) &&
    {
        decoration = std::move(d);
        return std::move(*this);
    }
    TableColumn withFirstSortOrder(Qt::SortOrder order) &&
    {
        firstSortOrder = order;
        return std::move(*this);
    }
};

} // namespace ks::ui
