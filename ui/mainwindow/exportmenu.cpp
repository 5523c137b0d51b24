#include "ui/mainwindow/exportmenu.h"

#include "ui/document/tracedocument.h"
#include "ui/live/livecontroller.h"
#include "ui/mainwindow/mainwindow.h"
#include "ui/memory/memoryview.h"
#include "ui/util/preferences.h"

#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QMessageBox>
#include <QProgressDialog>
#include <QStatusBar>
#include <QTimer>

namespace ks::ui {

namespace {

// The trace's name without its trace suffix, to build export names from.
QString baseName(const QString& path)
{
    QString name = QFileInfo(path).fileName();
    for (const char* suffix : {".pt.trace.json.gz", ".pt.trace.json", ".json.gz", ".json", ".gz"})
        if (name.endsWith(QLatin1StringView(suffix))) {
            name.chop(qsizetype(std::strlen(suffix)));
            break;
        }
    return name.isEmpty() ? QStringLiteral("trace") : name;
}

} // namespace

ExportMenu::ExportMenu(MainWindow* window) : QMenu(QStringLiteral("&Export"), window), m_window(window)
{
    setToolTipsVisible(true);
    ExportFormat previous = ExportFormat::ChromeTrace;
    for (const ExportFormatInfo& info : exportFormats()) {
        // Groups: the trace, stacks, memory, tables.
        const bool memory = info.memory, stacks = info.format == ExportFormat::StacksCpu ||
                                                  info.format == ExportFormat::StacksDevice;
        const bool prevMemory = exportFormatInfo(previous).memory,
                   prevStacks = previous == ExportFormat::StacksCpu || previous == ExportFormat::StacksDevice;
        if (info.format != ExportFormat::ChromeTrace && (memory != prevMemory || stacks != prevStacks))
            addSeparator();
        QAction* a = addAction(info.label, this, [this, f = info.format] { ask(f); });
        a->setToolTip(info.toolTip);
        a->setData(int(info.format));
        previous = info.format;
    }
    m_poll = new QTimer(this);
    m_poll->setInterval(100);
    connect(m_poll, &QTimer::timeout, this, [this] {
        if (!m_progress || !m_permille) return;
        const int p = m_permille->load();
        if (p >= 0) {
            m_progress->setRange(0, 1000);
            m_progress->setValue(p);
        }
    });
    connect(this, &QMenu::aboutToShow, this, &ExportMenu::updateActions);
    updateActions();
}

QAction* ExportMenu::action(ExportFormat format) const
{
    for (QAction* a : actions())
        if (!a->isSeparator() && a->data().toInt() == int(format)) return a;
    return nullptr;
}

void ExportMenu::updateActions()
{
    const std::shared_ptr<const TraceDocument> doc = m_window->document();
    const bool memory = doc && doc->memoryTimeline && !doc->memoryTimeline->empty();
    for (const ExportFormatInfo& info : exportFormats())
        if (QAction* a = action(info.format)) a->setEnabled(doc && (!info.memory || memory) && !isRunning());
}

void ExportMenu::ask(ExportFormat format)
{
    const std::shared_ptr<const TraceDocument> doc = m_window->document();
    if (!doc) return;
    const ExportFormatInfo& info = exportFormatInfo(format);
    const QString dir = QFileInfo(doc->path).absolutePath();
    QString path;
    if (info.directory) {
        path = QFileDialog::getExistingDirectory(m_window, QStringLiteral("Export into folder"), dir);
    } else {
        path = QFileDialog::getSaveFileName(m_window, QStringLiteral("Export"),
                                            dir + QLatin1Char('/') + baseName(doc->path) + info.suffix,
                                            info.filter);
        // The memory formats are told apart by the name, as torch does: keep the chosen format.
        const QString ending = QLatin1Char('.') + info.suffix.section(QLatin1Char('.'), 2, -1);
        if (!path.isEmpty() && info.memory && !path.endsWith(ending)) path += ending;
    }
    if (!path.isEmpty()) exportTo(format, path);
}

void ExportMenu::exportTo(ExportFormat format, const QString& path)
{
    const std::shared_ptr<const TraceDocument> doc = m_window->document();
    if (!doc) {
        emit finished(path, QStringLiteral("no trace is loaded"));
        return;
    }
    if (isRunning()) cancel();
    ExportRequest request;
    request.format = format;
    request.path = path;
    const Preferences& prefs = Preferences::instance();
    request.rowLimit = prefs.rowLimit();
    request.timeUnit = prefs.timeUnit();
    request.devicePeak = prefs.devicePeakText();
    if (MemoryView* mv = m_window->memoryView()) request.memoryDevice = mv->deviceSelector()->currentText();
    LiveController* live = m_window->liveController();
    request.growing = live != nullptr;
    if (live && !live->ended() && format == ExportFormat::ChromeTrace) {
        // A running session's trace is written by its controller, which pauses the ingest meanwhile.
        connect(
            m_window, &MainWindow::traceSaved, this,
            [this](const QString& saved, const QString& error) { emit finished(saved, error); },
            Qt::SingleShotConnection);
        m_window->saveAs(path);
        return;
    }

    m_path = path;
    auto permille = std::make_shared<std::atomic<int>>(-1);
    m_permille = permille;
    if (!m_progress) {
        m_progress = new QProgressDialog(m_window);
        m_progress->setWindowTitle(QStringLiteral("Export"));
        m_progress->setAutoClose(false);
        m_progress->setAutoReset(false);
        m_progress->setWindowModality(Qt::WindowModal);
        connect(m_progress, &QProgressDialog::canceled, this, &ExportMenu::cancel);
    }
    m_progress->setLabelText(QStringLiteral("Writing %1…").arg(QFileInfo(path).fileName()));
    m_progress->setRange(0, 0);
    m_progress->setMinimumDuration(400);
    m_progress->setValue(0);
    m_poll->start();
    m_window->statusBar()->showMessage(QStringLiteral("Exporting %1…").arg(QFileInfo(path).fileName()));
    m_jobs.startJob(
        [doc, request, permille](const std::atomic<bool>& cancelled) {
            return runExport(*doc, request, cancelled,
                             [permille](double f) { permille->store(int(std::clamp(f, 0.0, 1.0) * 1000)); });
        },
        [this, path](ExportOutcome outcome) { done(path, outcome); });
}

void ExportMenu::cancel()
{
    if (!isRunning()) return;
    m_jobs.cancel();
    ExportOutcome o;
    o.cancelled = true;
    o.error = QStringLiteral("cancelled");
    done(m_path, o);
}

void ExportMenu::done(const QString& path, const ExportOutcome& outcome)
{
    m_poll->stop();
    if (m_progress) {
        m_progress->reset();
        m_progress->hide();
    }
    QString error =
        outcome.ok ? QString() : (outcome.error.isEmpty() ? QStringLiteral("failed") : outcome.error);
    if (outcome.cancelled) error = QStringLiteral("cancelled");
    if (error.isEmpty()) {
        QString note;
        if (!outcome.warnings.isEmpty())
            note = QStringLiteral(" (") + outcome.warnings.join(QStringLiteral("; ")) + QLatin1Char(')');
        m_window->statusBar()->showMessage(QStringLiteral("Exported %1%2").arg(path, note), 8000);
    } else if (outcome.cancelled) {
        m_window->statusBar()->showMessage(QStringLiteral("Export cancelled; %1 was not written").arg(path),
                                           8000);
    } else {
        m_window->statusBar()->showMessage(QStringLiteral("Export failed: %1").arg(error), 8000);
        if (m_window->isInteractive())
            QMessageBox::critical(
                m_window, QStringLiteral("Export failed"),
                QStringLiteral("<b>%1</b><br><br>%2").arg(path.toHtmlEscaped(), error.toHtmlEscaped()));
    }
    emit finished(path, error);
}

} // namespace ks::ui
