#pragma once

#include <QMainWindow>
#include <memory>

namespace ks::ui {

class CompareView;
class TraceDocument;

// A window of its own for one comparison, so the main window keeps its trace.
class CompareWindow : public QMainWindow {
    Q_OBJECT
public:
    CompareWindow(std::shared_ptr<const TraceDocument> a, std::shared_ptr<const TraceDocument> b,
                  QWidget* parent = nullptr);
    CompareView* view() const { return m_view; }

private:
    CompareView* m_view;
};

} // namespace ks::ui
