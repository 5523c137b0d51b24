#pragma once

#include "core/analysis/critical/criticalpath.h"
#include "ui/util/jobtracker.h"
#include "ui/util/metatypes.h"

#include <QString>
#include <QWidget>
#include <memory>
#include <vector>

class QComboBox;
class QLabel;
class QTableWidget;

namespace ks::ui {

class TraceDocument;

// The critical path of one step (HTA's definitions, docs/critical-path.md): its length and what
// bounds it, its biggest contributors (a click selects the slice on the timeline) and the what-ifs.
// Each new path is offered to the timeline as a highlight of exactly its slices.
class CriticalPathPanel : public QWidget {
    Q_OBJECT
public:
    explicit CriticalPathPanel(QWidget* parent = nullptr);

    void setDocument(std::shared_ptr<const TraceDocument> doc);
    // The result shown, or null while none is.
    const CriticalPathResult* result() const { return m_result.get(); }

signals:
    void sliceRequested(SliceRef slice);
    // The events of the path, in path order, to mark on the timeline.
    void pathReady(const QString& label, const std::vector<SliceRef>& events);

protected:
    // The path is computed when the panel is first shown, not with every trace that loads.
    void showEvent(QShowEvent* e) override;

private:
    void compute(int window);
    void display(std::shared_ptr<const CriticalPathResult> result);

    std::shared_ptr<const TraceDocument> m_doc;
    std::vector<CriticalPathWindow> m_windows;
    std::shared_ptr<const CriticalPathResult> m_result;
    bool m_markWhenReady = false; // the user chose a step: mark its path when it comes
    JobTracker m_jobs{this};
    QComboBox* m_window;
    QLabel* m_summary;
    QTableWidget* m_table;
    QLabel* m_whatIf;
};

} // namespace ks::ui
