#include "ui/compare/comparewindow.h"

#include "ui/compare/compareview.h"
#include "ui/document/tracedocument.h"

#include <QAction>
#include <QFileInfo>

namespace ks::ui {

CompareWindow::CompareWindow(std::shared_ptr<const TraceDocument> a, std::shared_ptr<const TraceDocument> b,
                             QWidget* parent)
    : QMainWindow(parent), m_view(new CompareView(this))
{
    setAttribute(Qt::WA_DeleteOnClose);
    setWindowTitle(tr("%1 vs %2 — Kinetoscope Compare")
                       .arg(QFileInfo(a->path).fileName(), QFileInfo(b->path).fileName()));
    setCentralWidget(m_view);
    resize(1500, 950);
    // Closes like the other windows of its own (Ctrl+W), and like a dialog (Escape).
    auto* close = new QAction(tr("Close"), this);
    // Every binding of Close (QKeySequence(Close) is only the first: Ctrl+F4 on Linux, not Ctrl+W).
    QList<QKeySequence> keys = QKeySequence::keyBindings(QKeySequence::Close);
    keys << QKeySequence(Qt::Key_Escape);
    close->setShortcuts(keys);
    close->setShortcutContext(Qt::WindowShortcut);
    connect(close, &QAction::triggered, this, &QWidget::close);
    addAction(close);
    m_view->setDocuments(std::move(a), std::move(b));
}

} // namespace ks::ui
