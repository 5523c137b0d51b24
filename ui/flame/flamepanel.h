#pragma once

#include "ui/util/metatypes.h"

#include <QString>
#include <QWidget>
#include <memory>
#include <vector>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QTreeWidget;

namespace ks::ui {

class FlameView;
class SourcePanel;
class TraceDocument;

// The flame graph tab: the call tree of the trace, or of the timeline's selected range, as an
// icicle (FlameView) with the metric, merge by line, a search with the matching share, and the
// zoomed frame's path. A click on a frame marks its slices on the timeline (slicesSelected).
// The tree is built when the tab is first shown after a trace or range changes.
class FlamePanel : public QWidget {
    Q_OBJECT
public:
    explicit FlamePanel(QWidget* parent = nullptr);

    void setDocument(std::shared_ptr<const TraceDocument> doc);
    void setRange(qint64 t0, qint64 t1);
    void clearRange();

    FlameView* view() const { return m_view; }
    QTreeWidget* callers() const { return m_callers; }
    QTreeWidget* callees() const { return m_callees; }
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

    std::shared_ptr<const TraceDocument> m_doc;
    bool m_dirty = false;
    bool m_hasRange = false;
    qint64 m_t0 = 0, m_t1 = 0;
    QComboBox* m_metric = nullptr;
    QCheckBox* m_byLine = nullptr;
    QLineEdit* m_search = nullptr;
    QLabel* m_status = nullptr;
    FlameView* m_view = nullptr;
    QTreeWidget* m_callers = nullptr;
    QTreeWidget* m_callees = nullptr;
    SourcePanel* m_source = nullptr;
    uint32_t m_linksFrame = UINT32_MAX;
};

} // namespace ks::ui
