#pragma once

#include "core/analysis/calltree/calltree.h"
#include "ui/util/rowtablemodel.h"

#include <memory>
#include <vector>

namespace ks::ui {

// The callers or the callees of a flame-graph frame (CallTree::linksOf): one row per frame with its
// calls and its value by the chosen metric, on the table-model base (sortable through a proxy by
// TableModel::SortRole).
class FrameLinksModel : public RowTableModel<CallTree::FrameSum> {
    Q_OBJECT
public:
    enum ColumnId { Name, Calls, Value, ColumnCount };

    // callers: the first column is titled "Callers", else "Callees".
    FrameLinksModel(bool callers, QObject* parent = nullptr);

    // rows name frames of tree, which is kept with them.
    void setRows(std::shared_ptr<const CallTree> tree, std::vector<CallTree::FrameSum> rows,
                 CallTree::Metric metric);
    void clear();
    // The frame's name (the root as caller: "(root)").
    QString frameName(const CallTree::FrameSum& s) const;
    const CallTree::FrameSum& row(int r) const { return m_rows[size_t(r)]; }

protected:
    int rowCountOf() const override { return int(m_rows.size()); }
    const CallTree::FrameSum* rowAt(int r) const override { return &m_rows[size_t(r)]; }

private:
    int64_t value(const CallTree::FrameSum& s) const;

    std::shared_ptr<const CallTree> m_tree;
    std::vector<CallTree::FrameSum> m_rows;
    CallTree::Metric m_metric = CallTree::Metric::Cpu;
};

} // namespace ks::ui
