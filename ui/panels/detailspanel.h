#pragma once

#include "ui/util/metatypes.h"

#include <QTextBrowser>
#include <memory>

namespace ks {
class EtLinks;
class ExecutionTrace;
} // namespace ks

namespace ks::ui {

class TraceDocument;

// Shows the selected slice; linked events in it are links that select those events. An execution
// trace recorded with the trace can be attached (a link at the bottom): the ops linked to it then
// also show their tensors and the ops producing and consuming them.
class DetailsPanel : public QTextBrowser {
    Q_OBJECT
public:
    explicit DetailsPanel(QWidget* parent = nullptr);

    void setDocument(std::shared_ptr<const TraceDocument> doc);
    void showSlice(ks::SliceRef slice);
    // The shown slice's whole name (demangled), as the Copy link puts it on the clipboard.
    QString fullName() const;
    // Reads an execution trace and links it to the document's trace; false with error set when
    // the file cannot be read.
    bool attachExecutionTrace(const QString& path, QString* error = nullptr);

signals:
    void sliceActivated(ks::SliceRef slice);

protected:
    bool event(QEvent* e) override;
    void resizeEvent(QResizeEvent* e) override;

private:
    void showPlaceholder();
    void refitName();
    int nameWidth() const;
    void chooseExecutionTrace();

    std::shared_ptr<const TraceDocument> m_doc;
    std::shared_ptr<const ExecutionTrace> m_et;
    std::shared_ptr<const EtLinks> m_etLinks;
    QString m_etStatus;       // which execution trace is attached, or why none could be
    ks::SliceRef m_slice;     // shown now, redrawn when the theme changes or the width does
    int m_nameWidth = 0;      // the width the name was elided to
    bool m_rendering = false; // inside showSlice()'s setHtml()
};

} // namespace ks::ui
