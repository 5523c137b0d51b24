// MainWindow's opening side: File > Open, drag and drop, which window a file goes to, the title,
// Preferences.

#include "core/io/logdir.h"
#include "ui/document/documentloader.h"
#include "ui/document/tracedocument.h"
#include "ui/live/livecontroller.h"
#include "ui/mainwindow/logdirpicker.h"
#include "ui/mainwindow/mainwindow.h"
#include "ui/mainwindow/preferencesdialog.h"
#include "ui/mainwindow/tracefiledialog.h"
#include "ui/ranks/rankjobwindow.h"
#include "ui/snapshot/snapshotdocument.h"
#include "ui/snapshot/snapshotwindow.h"
#include "ui/util/preferences.h"

#include <QCheckBox>
#include <QDragEnterEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QStackedWidget>
#include <QTimer>

namespace ks::ui {

namespace {

// The local files and folders of a drag, in the order given.
QStringList droppedPaths(const QMimeData* mime)
{
    QStringList out;
    if (!mime || !mime->hasUrls()) return out;
    for (const QUrl& u : mime->urls())
        if (u.isLocalFile() && !u.toLocalFile().isEmpty()) out << u.toLocalFile();
    return out;
}

} // namespace

void MainWindow::openDialog()
{
    TraceFileDialog dialog(this);
    if (dialog.exec() == QDialog::Accepted && !dialog.chosenPath().isEmpty()) openPath(dialog.chosenPath());
}

void MainWindow::openFolderDialog()
{
    const QString d = QFileDialog::getExistingDirectory(this, QStringLiteral("Open log directory or job"));
    if (!d.isEmpty()) openPath(d);
}

bool MainWindow::hasSomethingToLose() const
{
    // A trace whose file is still there opens again from File > Open Recent with nothing lost; a
    // recording not saved yet, or one whose file was removed, does not.
    return m_doc && (m_doc->path.isEmpty() || !QFileInfo::exists(m_doc->path));
}

MainWindow* MainWindow::windowForOpen(const QString& what)
{
    // An empty window takes it, and so does one whose trace can be opened again (the bundled
    // sample, any file still on disk). A live session is never replaced: its target is still
    // running. Over anything else the Preferences' choice, by default a question whose first answer
    // is "here" and which can be remembered.
    if (!m_doc && !isLoading() && !m_live) return this;
    BusyOpen choice = m_live ? BusyOpen::NewWindow : m_busyOpen;
    if (choice == BusyOpen::Ask) {
        const QString over = Preferences::instance().openOver();
        if (over == QLatin1String("here")) choice = BusyOpen::Here;
        if (over == QLatin1String("new")) choice = BusyOpen::NewWindow;
    }
    if (choice == BusyOpen::Ask && !hasSomethingToLose()) choice = BusyOpen::Here;
    if (choice == BusyOpen::Ask) {
        if (!m_interactive) {
            choice = BusyOpen::NewWindow;
        } else {
            QMessageBox box(QMessageBox::Question, QStringLiteral("Open"),
                            QStringLiteral("This window shows <b>%1</b>, which is not saved.<br>Open %2 in "
                                           "this window (closing it) or in a new one?")
                                .arg(windowTitle().section(QStringLiteral(" — "), 0, 0).toHtmlEscaped(),
                                     what.toHtmlEscaped()),
                            QMessageBox::Cancel, this);
            QPushButton* here = box.addButton(QStringLiteral("Open &Here"), QMessageBox::AcceptRole);
            QPushButton* fresh = box.addButton(QStringLiteral("&New Window"), QMessageBox::AcceptRole);
            box.setDefaultButton(here);
            auto* remember = new QCheckBox(QStringLiteral("&Remember my choice (File > Preferences)"), &box);
            box.setCheckBox(remember);
            box.exec();
            if (box.clickedButton() == here)
                choice = BusyOpen::Here;
            else if (box.clickedButton() == fresh)
                choice = BusyOpen::NewWindow;
            else
                return nullptr;
            if (remember->isChecked())
                Preferences::instance().setOpenOver(choice == BusyOpen::Here ? QStringLiteral("here")
                                                                             : QStringLiteral("new"));
        }
    }
    if (choice == BusyOpen::Here) return this;
    auto* w = new MainWindow;
    w->setInteractive(m_interactive);
    w->setSessionTracking(m_trackSession);
    w->setBusyOpen(m_busyOpen);
    w->show();
    return w;
}

void MainWindow::openPath(const QString& path, bool newWindowIfBusy)
{
    if (RankJobWindow::isJobPath(path)) {
        // A distributed job (several ranks' traces, or a .kjob): the Rank overview, in its own window.
        auto* w = new RankJobWindow;
        w->show();
        w->openJob(path);
        emit jobOpened(w);
        return;
    }
    if (QFileInfo(path).isFile() && isSnapshotFile(path)) {
        // A CUDA memory snapshot (a pickle, whatever its name): a window of its own kind.
        auto* w = new SnapshotWindow;
        w->setRecentTracking(m_trackSession);
        w->show();
        w->openSnapshot(path);
        emit snapshotOpened(w);
        return;
    }
    if (newWindowIfBusy) {
        MainWindow* target = windowForOpen(QFileInfo(path).fileName());
        if (!target) return;
        if (target != this) {
            target->openPath(path, false);
            return;
        }
    }
    const QFileInfo fi(path);
    if (fi.isDir()) {
        std::vector<LogdirEntry> entries = scanLogdir(fi.absoluteFilePath().toStdString());
        if (entries.empty()) {
            const QString error =
                QStringLiteral("No profiler traces (*.pt.trace.json[.gz] or *.json[.gz]) found");
            if (m_interactive)
                QMessageBox::warning(this, QStringLiteral("Cannot open log directory"),
                                     QStringLiteral("<b>%1</b><br><br>%2").arg(path.toHtmlEscaped(), error));
            emit loadFailed(path, error);
            return;
        }
        QString file;
        if (entries.size() == 1 || !m_interactive) {
            file = QString::fromStdString(entries.back().path);
        } else {
            LogdirPicker picker(fi.absoluteFilePath(), std::move(entries), this);
            if (picker.exec() != QDialog::Accepted) return;
            file = picker.selectedPath();
        }
        if (!file.isEmpty()) startLoad(file);
        return;
    }
    if (!fi.exists()) {
        const QString error = QStringLiteral("The file does not exist");
        if (m_interactive)
            QMessageBox::critical(this, QStringLiteral("Cannot open trace"),
                                  QStringLiteral("<b>%1</b><br><br>%2").arg(path.toHtmlEscaped(), error));
        emit loadFailed(path, error);
        return;
    }
    startLoad(fi.absoluteFilePath());
}

void MainWindow::startLoad(const QString& file)
{
    m_progress->setRange(0, 0);
    m_loadingLabel->setText(
        QStringLiteral("Loading <b>%1</b>").arg(QFileInfo(file).fileName().toHtmlEscaped()));
    m_stack->setCurrentWidget(m_loadingPage);
    coverDocks(QFileInfo(file).fileName());
    setWindowTitle(QFileInfo(file).fileName() + QStringLiteral(" — Kinetoscope"));
    m_loader->start(file);
}

void MainWindow::restoreTitle()
{
    // A file that failed to load (or whose load was cancelled) leaves no trace in the title.
    if (m_live)
        setWindowTitle(m_live->title() + QStringLiteral(" — live — Kinetoscope"));
    else if (m_doc && !m_doc->path.isEmpty())
        setWindowTitle(QFileInfo(m_doc->path).fileName() + QStringLiteral(" — Kinetoscope"));
    else
        setWindowTitle(QStringLiteral("Kinetoscope"));
}

void MainWindow::showPreferences()
{
    PreferencesDialog dialog(this);
    dialog.exec();
}

void MainWindow::dragEnterEvent(QDragEnterEvent* e)
{
    if (droppedPaths(e->mimeData()).isEmpty()) return;
    e->setDropAction(Qt::CopyAction);
    e->accept();
}

void MainWindow::dragMoveEvent(QDragMoveEvent* e)
{
    if (droppedPaths(e->mimeData()).isEmpty()) return;
    e->setDropAction(Qt::CopyAction);
    e->accept();
}

void MainWindow::dropEvent(QDropEvent* e)
{
    const QStringList paths = droppedPaths(e->mimeData());
    if (paths.isEmpty()) return;
    e->setDropAction(Qt::CopyAction);
    e->accept();
    // Opened after the drop has finished: asking where to open it, or which trace of a log
    // directory, must not run a dialog inside the drag-and-drop's own event loop.
    QTimer::singleShot(0, this, [this, paths] {
        // One trace dropped on a window that shows one: it may be the run to compare with (a memory
        // snapshot never is: it opens in its own window).
        if (paths.size() == 1 && m_doc && m_interactive && QFileInfo(paths.front()).isFile() &&
            !isSnapshotFile(paths.front())) {
            QMessageBox ask(QMessageBox::Question, QStringLiteral("Open or compare?"),
                            QStringLiteral("Compare <b>%1</b> with the open trace, or open it?")
                                .arg(QFileInfo(paths.front()).fileName().toHtmlEscaped()),
                            QMessageBox::Cancel, this);
            QPushButton* compare = ask.addButton(QStringLiteral("Compare"), QMessageBox::AcceptRole);
            QPushButton* open = ask.addButton(QStringLiteral("Open"), QMessageBox::ActionRole);
            ask.setDefaultButton(compare);
            ask.exec();
            if (ask.clickedButton() == compare) compareWith(paths.front());
            if (ask.clickedButton() == open) openPath(paths.front());
            return;
        }
        for (const QString& p : paths)
            openPath(p);
    });
}

} // namespace ks::ui
