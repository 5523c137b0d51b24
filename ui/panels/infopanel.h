#pragma once

#include <QTextBrowser>
#include <memory>

namespace ks::ui {

class TraceDocument;

// Trace information: metadata, devices, versions, counts, load figures.
class InfoPanel : public QTextBrowser {
    Q_OBJECT
public:
    explicit InfoPanel(QWidget* parent = nullptr);
    void setDocument(std::shared_ptr<const TraceDocument> doc);
};

} // namespace ks::ui
