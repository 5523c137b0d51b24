#pragma once

#include "core/analysis/calltree/calltree.h"
#include "core/analysis/calltree/moduletree.h"
#include "ui/util/rowtreemodel.h"

#include <memory>
#include <vector>

namespace ks::ui {

// The Modules tab's tree (ModuleTree) on the table-model base: a row per module instance below the
// module that called it, with calls, host and device time, self and per call, optionally per step
// (every figure divided by the steps, calls too, so per-call time stays per call).
class ModuleTreeModel : public RowTreeModel<ModuleTree::Node> {
    Q_OBJECT
public:
    enum ColumnId { Name, Calls, Host, SelfHost, Device, SelfDevice, HostPerCall, ColumnCount };

    explicit ModuleTreeModel(QObject* parent = nullptr);

    // The module tree points into its call tree: both are kept.
    void setTree(std::shared_ptr<const CallTree> calls, std::shared_ptr<const ModuleTree> modules);
    void clear();
    // Divides every figure by steps (1: totals).
    void setSteps(int steps);

    const ModuleTree* modules() const { return m_modules.get(); }
    const CallTree* calls() const { return m_calls.get(); }
    // The module tree's node of an index (0 for none).
    static uint32_t moduleOf(const QModelIndex& index) { return uint32_t(nodeOf(index)); }

protected:
    int childCount(quintptr node) const override;
    quintptr child(quintptr node, int i) const override;
    quintptr parentOf(quintptr node) const override;
    int rowOf(quintptr node) const override;
    const ModuleTree::Node* rowAt(quintptr node) const override;

private:
    std::shared_ptr<const CallTree> m_calls;
    std::shared_ptr<const ModuleTree> m_modules;
    std::vector<int> m_rowOf; // per module node: its place among its parent's children
    int m_steps = 1;
};

} // namespace ks::ui
