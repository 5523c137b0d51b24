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

protected:
    // Laying out the page takes tens of milliseconds on big traces; it waits until the panel is
    // actually shown so that handing over a freshly loaded trace stays quick.
    void showEvent(QShowEvent* e) override;

private:
    void render();

    std::shared_ptr<const TraceDocument> m_doc;
    bool m_dirty = false;
};

} // namespace ks::ui
