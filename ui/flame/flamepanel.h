#pragma once

#include "core/analysis/calltree/calltree.h"
#include "ui/util/metatypes.h"

#include <QString>
#include <QWidget>
#include <memory>
#include <string>
#include <vector>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QModelIndex;
class QSortFilterProxyModel;
class QTableView;

namespace ks::ui {

class CallTreeJob;
class FlameView;
class FrameLinksModel;
class SourcePanel;
class TraceDocument;

// The flame graph tab: the call tree of the trace, or of the timeline's selected range, as an
// icicle (FlameView) with the metric, merge by line, a search with the matching share, and the
// zoomed frame's path. A click on a frame marks its slices on the timeline (slicesSelected), lists
// its callers and callees (FrameLinksModel tables) and shows its source. The tree is built off the
// GUI thread when the tab is first shown after a trace or range changes; a live session's is
// rebuilt as its steps arrive (refreshGrowing(), at the pace of the session's analyses).
class FlamePanel : public QWidget {
    Q_OBJECT
public:
    explicit FlamePanel(QWidget* parent = nullptr);

    // growing: a live session's document, which grows until the session ends.
    void setDocument(std::shared_ptr<const TraceDocument> doc, bool growing = false);
    void setRange(qint64 t0, qint64 t1);
    void clearRange();
    // The live session's document grew (its analyses were adopted): rebuild the shown tree, keeping
    // it meanwhile; when hidden, on the next show.
    void refreshGrowing();

    FlameView* view() const { return m_view; }
    QTableView* callers() const { return m_callers; }
    QTableView* callees() const { return m_callees; }
    FrameLinksModel* callerModel() const { return m_callerModel; }
    FrameLinksModel* calleeModel() const { return m_calleeModel; }
    QString statusText() const;
    SourcePanel* source() const { return m_source; }
    // Shows a Python frame's file with the time of the calls made from each of its lines.
    void showSource(uint32_t frame);
    // Shows who calls the frame and what it calls (CallTree::linksOf), by the current metric.
    void showLinks(uint32_t frame);

signals:
    void slicesSelected(const QString& label, const std::vector<ks::SliceRef>& slices);

protected:
    void showEvent(QShowEvent* e) override;

private:
    void refresh();
    void showStatus();
    void treeChanged();
    void linkActivated(const QSortFilterProxyModel* proxy, const QModelIndex& index);

    std::shared_ptr<const TraceDocument> m_doc;
    bool m_growing = false;
    bool m_dirty = false;
    bool m_hasRange = false;
    qint64 m_t0 = 0, m_t1 = 0;
    QComboBox* m_metric = nullptr;
    QCheckBox* m_byLine = nullptr;
    QLineEdit* m_search = nullptr;
    QLabel* m_status = nullptr;
    FlameView* m_view = nullptr;
    FrameLinksModel* m_callerModel = nullptr;
    FrameLinksModel* m_calleeModel = nullptr;
    QSortFilterProxyModel* m_callerProxy = nullptr;
    QSortFilterProxyModel* m_calleeProxy = nullptr;
    QTableView* m_callers = nullptr;
    QTableView* m_callees = nullptr;
    SourcePanel* m_source = nullptr;
    CallTreeJob* m_lineJobs = nullptr; // the by-line tree behind the source panel's line times
    uint32_t m_linksFrame = UINT32_MAX;
    // The frame whose links and source are shown, found again in a live session's next tree.
    FrameKind m_shownKind = FrameKind::Root;
    std::string m_shownName;
    uint32_t m_sourceFrame = UINT32_MAX;
};

} // namespace ks::ui
