#pragma once

#include "core/analysis/calltree/calltree.h"
#include "core/analysis/calltree/moduletree.h"
#include "ui/util/metatypes.h"

#include <QString>
#include <QWidget>
#include <memory>
#include <vector>

class QCheckBox;
class QLabel;
class QTreeWidget;
class QTreeWidgetItem;

namespace ks::ui {

class TraceDocument;

// TensorBoard's Module view (docs/flame.md, "Module view"): the nn.Module instances as called, each
// below the module that called it, with calls, host and device time, self and per call, for the
// whole trace or the timeline's range, in all or per step; sortable by any column. A click marks the module's
// ranges on the timeline (slicesSelected). Traces without nn.Module ranges (recorded without with_stack, or
// torch 1.x) say so.
class ModuleView : public QWidget {
    Q_OBJECT
public:
    enum Column { Name, Calls, Host, SelfHost, Device, SelfDevice, HostPerCall, ColumnCount };

    explicit ModuleView(QWidget* parent = nullptr);

    void setDocument(std::shared_ptr<const TraceDocument> doc);
    // The timeline's range selection: modules of the ranges that overlap it, their time cut to it.
    void setRange(qint64 t0, qint64 t1);
    void clearRange();
    // Times per step: divided by the ProfilerSteps that start in the shown range (TensorBoard shows
    // one step or the average).
    void setPerStep(bool perStep);
    // Steps the per-step times are divided by (1 when there are none).
    int stepCount() const { return m_steps; }
    QTreeWidget* tree() const { return m_view; }
    const ModuleTree* modules() const { return m_modules.get(); }

signals:
    void slicesSelected(const QString& label, const std::vector<ks::SliceRef>& slices);

protected:
    void showEvent(QShowEvent* e) override;

private:
    void build();
    void addChildren(QTreeWidgetItem* parent, uint32_t node);

    std::shared_ptr<const TraceDocument> m_doc;
    bool m_dirty = false;
    bool m_hasRange = false;
    qint64 m_t0 = 0, m_t1 = 0;
    int m_steps = 1;
    QCheckBox* m_perStep = nullptr;
    std::unique_ptr<CallTree> m_calls;
    std::unique_ptr<ModuleTree> m_modules;
    QLabel* m_status = nullptr;
    QTreeWidget* m_view = nullptr;
};

} // namespace ks::ui
