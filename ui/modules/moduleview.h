#pragma once

#include "core/analysis/calltree/calltree.h"
#include "core/analysis/calltree/moduletree.h"
#include "ui/util/metatypes.h"

#include <QString>
#include <QStringList>
#include <QWidget>
#include <functional>
#include <memory>
#include <vector>

class QCheckBox;
class QLabel;
class QModelIndex;
class QSortFilterProxyModel;
class QTreeView;

namespace ks::ui {

class CallTreeJob;
class ModuleTreeModel;
class TraceDocument;

// TensorBoard's Module view (docs/flame.md, "Module view"): the nn.Module instances as called, each
// below the module that called it, with calls, host and device time, self and per call, for the
// whole trace or the timeline's range, in all or per step; sortable by any column (ModuleTreeModel
// on the table-model base, through a sorting proxy). A click marks the module's ranges on the
// timeline (slicesSelected). Traces without nn.Module ranges (recorded without with_stack, or
// torch 1.x) say so. The trees are built off the GUI thread (CallTreeJob) when the tab is shown
// after a trace or range changes, and again as a live session's steps arrive (refreshGrowing()).
class ModuleView : public QWidget {
    Q_OBJECT
public:
    enum Column { Name, Calls, Host, SelfHost, Device, SelfDevice, HostPerCall, ColumnCount };

    explicit ModuleView(QWidget* parent = nullptr);

    // growing: a live session's document, which grows until the session ends.
    void setDocument(std::shared_ptr<const TraceDocument> doc, bool growing = false);
    // The timeline's range selection: modules of the ranges that overlap it, their time cut to it.
    void setRange(qint64 t0, qint64 t1);
    void clearRange();
    // The live session's document grew: rebuild, keeping the shown tree (and what is expanded)
    // until the new one arrives; nothing while a build runs (the session asks again shortly).
    void refreshGrowing();
    // Times per step: divided by the ProfilerSteps that start in the shown range (TensorBoard shows
    // one step or the average).
    void setPerStep(bool perStep);
    // Steps the per-step times are divided by (1 when there are none).
    int stepCount() const { return m_steps; }
    QTreeView* tree() const { return m_view; }
    // The sorted model the tree shows, and the module tree behind it (null until built).
    QSortFilterProxyModel* proxy() const { return m_proxy; }
    ModuleTreeModel* model() const { return m_model; }
    const ModuleTree* modules() const;
    bool isBuilding() const;
    QString statusText() const;

signals:
    void slicesSelected(const QString& label, const std::vector<ks::SliceRef>& slices);
    // A build finished and its modules are shown.
    void built();

protected:
    void showEvent(QShowEvent* e) override;

private:
    void build(bool keepShown = false);
    void countSteps();
    void showStatus();
    void moduleClicked(const QModelIndex& index);
    QStringList expandedPaths() const;
    void expandPaths(const QStringList& paths);
    // Visits the rows top-down with their paths (names joined by kPathSeparator); descends into
    // a row where visit returns true.
    void walkPaths(const std::function<bool(const QModelIndex&, const QString&)>& visit) const;

    std::shared_ptr<const TraceDocument> m_doc;
    bool m_growing = false;
    bool m_dirty = false;
    bool m_hasRange = false;
    qint64 m_t0 = 0, m_t1 = 0;
    int m_steps = 1;
    QCheckBox* m_perStep = nullptr;
    CallTreeJob* m_jobs = nullptr;
    ModuleTreeModel* m_model = nullptr;
    QSortFilterProxyModel* m_proxy = nullptr;
    QLabel* m_status = nullptr;
    QTreeView* m_view = nullptr;
};

} // namespace ks::ui
