#pragma once

#include "util/metatypes.h"

#include <QTextBrowser>
#include <memory>

namespace ks::ui {

class TraceDocument;

// Shows the selected slice; linked events in it are links that select those events.
class DetailsPanel : public QTextBrowser {
    Q_OBJECT
public:
    explicit DetailsPanel(QWidget* parent = nullptr);

    void setDocument(std::shared_ptr<const TraceDocument> doc);
    void showSlice(ks::SliceRef slice);

signals:
    void sliceActivated(ks::SliceRef slice);

private:
    void showPlaceholder();

    std::shared_ptr<const TraceDocument> m_doc;
    ks::SliceRef m_slice; // shown now, redrawn when the theme changes
};

} // namespace ks::ui
