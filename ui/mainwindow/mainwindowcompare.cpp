#include "ui/compare/comparewindow.h"
#include "ui/document/documentloader.h"
#include "ui/mainwindow/mainwindow.h"

#include <QFileDialog>
#include <QFileInfo>
#include <QMessageBox>
#include <QPushButton>
#include <QStatusBar>

// File > Compare With… and dropping a second trace: the trace of this window (A) against another
// one (B), in a compare window of its own.

namespace ks::ui {

void MainWindow::compareDialog()
{
    if (!m_doc) {
        QMessageBox::information(this, QStringLiteral("Compare"),
                                 QStringLiteral("Open a trace first: it becomes run A of the comparison."));
        return;
    }
    const QString f = QFileDialog::getOpenFileName(
        this, QStringLiteral("Compare with (run B)"), QFileInfo(m_doc->path).absolutePath(),
        QStringLiteral("PyTorch traces (*.json *.json.gz *.gz);;All files (*)"));
    if (!f.isEmpty()) compareWith(f);
}

void MainWindow::compareWith(const QString& path)
{
    if (!m_doc) return;
    if (!m_compareLoader) {
        m_compareLoader = new DocumentLoader(this);
        connect(m_compareLoader, &DocumentLoader::progress, this, [this](qint64 done, qint64 total) {
            statusBar()->showMessage(QStringLiteral("Loading %1 to compare: %2%")
                                         .arg(QFileInfo(m_compareLoader->path()).fileName())
                                         .arg(total > 0 ? 100 * done / total : 0));
        });
        connect(m_compareLoader, &DocumentLoader::loaded, this, [this](std::shared_ptr<TraceDocument> b) {
            statusBar()->clearMessage();
            if (!m_doc) return;
            auto* w = new CompareWindow(m_doc, std::move(b));
            w->show();
            emit compareOpened(w);
        });
        connect(
            m_compareLoader, &DocumentLoader::failed, this, [this](const QString& p, const QString& error) {
                statusBar()->clearMessage();
                if (m_interactive)
                    QMessageBox::critical(
                        this, QStringLiteral("Cannot compare"),
                        QStringLiteral("<b>%1</b><br><br>%2").arg(p.toHtmlEscaped(), error.toHtmlEscaped()));
                emit loadFailed(p, error);
            });
    }
    m_compareLoader->start(path);
}

} // namespace ks::ui
