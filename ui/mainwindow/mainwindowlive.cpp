// MainWindow's live-session and save side: Run > Launch / Listen / Stop, File > Save As.

#include "core/io/tracewriter.h"
#include "ui/critical/criticalpathpanel.h"
#include "ui/document/tracedocument.h"
#include "ui/flame/flamepanel.h"
#include "ui/live/launchdialog.h"
#include "ui/live/livecontroller.h"
#include "ui/live/livesessionpanel.h"
#include "ui/mainwindow/mainwindow.h"
#include "ui/memory/memoryview.h"
#include "ui/modules/moduleview.h"
#include "ui/overview/overviewpage.h"
#include "ui/panels/detailspanel.h"
#include "ui/panels/infopanel.h"
#include "ui/panels/kernelpanel.h"
#include "ui/panels/operatorpanel.h"
#include "ui/panels/rangepanel.h"
#include "ui/timeline/timelineview.h"
#include "ui/util/format.h"

#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMessageBox>
#include <QStatusBar>
#include <cstring>

namespace ks::ui {

MainWindow* MainWindow::windowForLive()
{
    MainWindow* w = windowForOpen(QStringLiteral("the live session"));
    if (w == this && isLoading()) cancelLoad();
    return w;
}

LiveController* MainWindow::startLive(const std::function<bool(LiveController*, QString&)>& start)
{
    auto* live = new LiveController(this);
    QString error;
    if (!start(live, error)) {
        delete live;
        if (m_interactive)
            QMessageBox::critical(this, QStringLiteral("Cannot start the live session"),
                                  error.toHtmlEscaped());
        emit liveFailed(error);
        return nullptr;
    }
    m_live = live;
    dockLivePanel(live);
    connect(live, &LiveController::documentGrew, m_timeline, &TimelineView::documentGrew);
    connect(live, &LiveController::analysed, this, &MainWindow::documentUpdated);
    setDocument(live->document());
    m_timeline->setFollow(true);
    setWindowTitle(live->title() + QStringLiteral(" — live — Kinetoscope"));
    connect(live, &LiveController::finished, this, [this] {
        if (!m_live) return;
        setWindowTitle(m_live->title() + QStringLiteral(" — ended — Kinetoscope"));
        // The run is over: show all of it, unless the user is looking at something in particular.
        if (m_timeline->follow()) {
            m_timeline->setFollow(false);
            m_timeline->fitAll();
        }
    });
    connect(live, &LiveController::refreshed, this, &MainWindow::updateLiveStatus);
    updateLiveStatus();
    connect(live, &LiveController::saved, this, &MainWindow::traceSaved);
    connect(live->panel(), &LiveSessionPanel::saveRequested, this, &MainWindow::saveAsDialog);
    return live;
}

void MainWindow::dockLivePanel(LiveController* live)
{
    LiveSessionPanel* panel = live->panel();
    auto* dock = new QDockWidget(QStringLiteral("Live session"), this);
    dock->setObjectName(QStringLiteral("liveDock"));
    dock->setWidget(panel);
    applyPanelLock(dock);
    addDockWidget(Qt::BottomDockWidgetArea, dock);
    // The session shares the bottom with the analysis tables, in front of them while it runs.
    tabifyDockWidget(m_analysisDock, dock);
    dock->show();
    dock->raise();
    resizeDocks({dock}, {300}, Qt::Vertical);
    connect(panel, &LiveSessionPanel::followToggled, m_timeline, &TimelineView::setFollow);
    connect(m_timeline, &TimelineView::followChanged, panel, &LiveSessionPanel::setFollow);
    connect(panel, &LiveSessionPanel::stepActivated, this, [this](qint64 s, qint64 e) {
        m_timeline->setFollow(false);
        const TimeNs margin = std::max<TimeNs>((e - s) / 20, 100);
        m_timeline->setWindow(TimeWindow{s - margin, e + margin});
    });
}

LiveController* MainWindow::launchLive(const live::LaunchRequest& request)
{
    MainWindow* w = windowForLive();
    if (!w) return nullptr;
    if (w != this) return w->launchLive(request);
    return startLive([request](LiveController* c, QString& error) { return c->launch(request, error); });
}

LiveController* MainWindow::listenLive()
{
    MainWindow* w = windowForLive();
    if (!w) return nullptr;
    if (w != this) return w->listenLive();
    return startLive([](LiveController* c, QString& error) { return c->listen(error); });
}

void MainWindow::showLaunchDialog()
{
    LaunchDialog dialog(this);
    if (dialog.exec() != QDialog::Accepted) return;
    live::LaunchRequest r = dialog.request();
    r.resources = liveResources();
    launchLive(r);
}

void MainWindow::updateLiveStatus()
{
    if (!m_doc) return;
    const Trace& t = *m_doc->trace;
    const TimeNs span = t.sliceCount() > 0 ? t.endTime() - t.startTime() : 0;
    m_statusSummary->setText(
        QStringLiteral("%1 slices · %2 steps · %3")
            .arg(formatCount(t.sliceCount()), formatCount(t.steps().size()), formatDuration(span)));
}

void MainWindow::documentUpdated(bool final)
{
    if (!m_doc) return;
    updateLiveStatus();
    m_overview->refresh();
    m_kernels->setDocument(m_doc);
    if (final) m_operators->setDocument(m_doc);
    if (m_doc->memoryTimeline) m_memory->setTimeline(m_doc->memoryTimeline);
    m_info->setDocument(m_doc);
    m_range->setDocument(m_doc);
    // The critical path reads the whole trace on the thread pool: only once it no longer grows.
    if (final) m_critical->setDocument(m_doc);
    // The call tree and the modules follow the steps as they arrive: rebuilt off the GUI thread at
    // the pace of these analyses (every few seconds, slower for big traces), the shown tree kept
    // until the new one is there; once more, from the final link index, when the session ends.
    if (final) {
        m_flame->setDocument(m_doc);
        m_modules->setDocument(m_doc);
    } else {
        m_flame->refreshGrowing();
        m_modules->refreshGrowing();
    }
    emit documentLoaded(m_doc);
}

void MainWindow::saveAsDialog()
{
    if (!m_doc) return;
    QString suggestion = m_live ? m_live->title() : QFileInfo(m_doc->path).fileName();
    for (const char* suffix : {".pt.trace.json.gz", ".pt.trace.json", ".json.gz", ".json", ".py"})
        if (suggestion.endsWith(QLatin1String(suffix))) suggestion.chop(qsizetype(std::strlen(suffix)));
    if (suggestion.isEmpty()) suggestion = QStringLiteral("trace");
    const QString f = QFileDialog::getSaveFileName(
        this, QStringLiteral("Save trace"), suggestion + QStringLiteral(".pt.trace.json.gz"),
        QStringLiteral("PyTorch traces (*.pt.trace.json.gz *.pt.trace.json *.json *.json.gz)"));
    if (!f.isEmpty()) saveAs(f);
}

void MainWindow::saveAs(const QString& path)
{
    if (!m_doc) return;
    statusBar()->showMessage(QStringLiteral("Saving %1…").arg(QFileInfo(path).fileName()));
    auto report = [this, path](const QString& error) {
        if (error.isEmpty())
            statusBar()->showMessage(QStringLiteral("Saved %1").arg(path), 6000);
        else if (m_interactive)
            QMessageBox::critical(this, QStringLiteral("Cannot save the trace"), error.toHtmlEscaped());
    };
    if (m_live) {
        // The controller pauses the session's ingest while writing.
        connect(
            m_live, &LiveController::saved, this,
            [report](const QString&, const QString& error) { report(error); }, Qt::SingleShotConnection);
        m_live->save(path);
        return;
    }
    std::shared_ptr<const TraceDocument> doc = m_doc;
    m_saveJobs.startJob(
        [doc, file = path.toStdString()](const std::atomic<bool>& cancel) {
            SaveOptions o;
            o.cancel = &cancel;
            return saveTraceFile(*doc->trace, file, o);
        },
        [this, path, report](SaveResult r) {
            const QString error = r.ok ? QString() : QString::fromStdString(r.error);
            report(error);
            emit traceSaved(path, error);
        });
}

} // namespace ks::ui
