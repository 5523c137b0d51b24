#include "ui/mainwindow/mainwindow.h"

#include "core/analysis/summary/summaryreport.h"
#include "core/analysis/timeline/search.h"
#include "core/io/logdir.h"
#include "ui/critical/criticalpathpanel.h"
#include "ui/document/documentloader.h"
#include "ui/document/tracedocument.h"
#include "ui/flame/flamepanel.h"
#include "ui/live/livecontroller.h"
#include "ui/mainwindow/exportmenu.h"
#include "ui/mainwindow/logdirpicker.h"
#include "ui/mainwindow/recentfiles.h"
#include "ui/mainwindow/timelinekeyrouter.h"
#include "ui/memory/memoryview.h"
#include "ui/modules/moduleview.h"
#include "ui/overview/overviewpage.h"
#include "ui/panels/banner.h"
#include "ui/panels/detailspanel.h"
#include "ui/panels/infopanel.h"
#include "ui/panels/kernelpanel.h"
#include "ui/panels/operatorpanel.h"
#include "ui/panels/rangepanel.h"
#include "ui/panels/samplehint.h"
#include "ui/panels/searchbar.h"
#include "ui/timeline/timelineview.h"
#include "ui/util/format.h"
#include "ui/util/preferences.h"
#include "ui/util/theme.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPointer>
#include <QProgressBar>
#include <QPushButton>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTabWidget>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>
#include <utility>

namespace ks::ui {

namespace {

QList<QPointer<MainWindow>>& windows()
{
    static QList<QPointer<MainWindow>> list;
    return list;
}

bool g_sessionSaved = false;

} // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent)
{
    setAttribute(Qt::WA_DeleteOnClose);
    setAcceptDrops(true);
    setWindowTitle(QStringLiteral("Kinetoscope"));
    resize(1600, 1000);
    windows().append(this);
    Preferences::instance(); // applies the stored colour scheme and time unit
    // Durations are formatted when painted; a new time unit shows at the next paint of each view.
    connect(&Preferences::instance(), &Preferences::changed, this, [this] {
        for (QWidget* w : findChildren<QWidget*>())
            w->update();
    });

    m_loader = new DocumentLoader(this);
    m_stack = new QStackedWidget(this);
    m_startPage = buildStartPage();
    m_loadingPage = buildLoadingPage();
    m_timelinePage = new QWidget(this);
    auto* tl = new QVBoxLayout(m_timelinePage);
    tl->setContentsMargins(0, 0, 0, 0);
    tl->setSpacing(0);
    m_banner = new Banner(m_timelinePage);
    m_sampleHint = new SampleHint(m_timelinePage);
    connect(m_sampleHint, &SampleHint::actionRequested, this, [this](const QString& action) {
        if (action == QLatin1String("open"))
            openDialog();
        else if (action == QLatin1String("launch"))
            showLaunchDialog();
        else if (action == QLatin1String("compare"))
            compareDialog();
    });
    m_search = new SearchBar(m_timelinePage);
    m_search->hide();
    m_timeline = new TimelineView(m_timelinePage);
    tl->addWidget(m_sampleHint);
    tl->addWidget(m_banner);
    tl->addWidget(m_search);
    tl->addWidget(m_timeline, 1);
    m_stack->addWidget(m_startPage);
    m_stack->addWidget(m_loadingPage);
    m_stack->addWidget(m_timelinePage);
    setCentralWidget(m_stack);

    buildDocks();
    buildMenus();
    new TimelineKeyRouter(this, m_timeline);
    m_statusSummary = new QLabel(this);
    m_statusWindow = new QLabel(this);
    statusBar()->addWidget(m_statusSummary, 1);
    statusBar()->addPermanentWidget(m_statusWindow);

    connect(m_loader, &DocumentLoader::progress, this, [this](qint64 done, qint64 total) {
        m_progress->setRange(0, 1000);
        m_progress->setValue(total > 0 ? int(1000 * done / total) : 0);
        m_loadingLabel->setText(QStringLiteral("Loading <b>%1</b><br>%2 of %3")
                                    .arg(QFileInfo(m_loader->path()).fileName().toHtmlEscaped(),
                                         formatBytes(double(done)), formatBytes(double(total))));
    });
    connect(m_loader, &DocumentLoader::loaded, this,
            [this](std::shared_ptr<TraceDocument> doc) { setDocument(doc); });
    connect(m_loader, &DocumentLoader::failed, this, [this](const QString& path, const QString& error) {
        m_stack->setCurrentWidget(m_doc ? m_timelinePage : m_startPage);
        coverDocks(QString());
        restoreTitle();
        if (m_interactive)
            QMessageBox::critical(
                this, QStringLiteral("Cannot open trace"),
                QStringLiteral("<b>%1</b><br><br>%2").arg(path.toHtmlEscaped(), error.toHtmlEscaped()));
        emit loadFailed(path, error);
    });
    connect(m_loader, &DocumentLoader::cancelled, this, [this] {
        m_stack->setCurrentWidget(m_doc ? m_timelinePage : m_startPage);
        coverDocks(QString());
        restoreTitle();
        statusBar()->showMessage(QStringLiteral("Loading cancelled"), 4000);
        emit loadCancelled();
    });

    connect(m_timeline, &TimelineView::sliceSelected, m_details, &DetailsPanel::showSlice);
    connect(m_details, &DetailsPanel::sliceActivated, this,
            [this](SliceRef r) { m_timeline->selectSlice(r, true); });
    connect(m_timeline, &TimelineView::rangeSelected, this,
            [this](qint64 t0, qint64 t1, std::vector<TrackId> tracks) {
                m_range->setRange(t0, t1, tracks);
                m_analysisTabs->setCurrentWidget(m_range);
            });
    connect(m_timeline, &TimelineView::rangeCleared, m_range, &RangePanel::clear);
    connect(m_timeline, &TimelineView::matchChanged, this, &MainWindow::onMatchChanged);
    connect(m_timeline, &TimelineView::windowChanged, this, [this] {
        m_statusWindow->setText(QStringLiteral("window %1").arg(formatDuration(m_timeline->window().span())));
    });
    connect(m_search, &SearchBar::searchRequested, this, &MainWindow::runSearch);
    // Enter typed while the search still runs steps once its result is in: stepping now would go
    // through the previous highlight (or none) and leave "N matches" with nothing selected.
    connect(m_search, &SearchBar::nextRequested, this, [this] {
        if (m_searchJobs.isRunning())
            m_pendingSearchStep = 1;
        else
            m_timeline->nextMatch();
    });
    connect(m_search, &SearchBar::previousRequested, this, [this] {
        if (m_searchJobs.isRunning())
            m_pendingSearchStep = -1;
        else
            m_timeline->previousMatch();
    });
    connect(m_search, &SearchBar::closed, this, [this] {
        if (m_highlightOwner == HighlightOwner::Search) {
            m_searchJobs.cancel();
            m_timeline->setHighlight(nullptr);
            m_highlightOwner = HighlightOwner::None;
        }
        m_timeline->setFocus();
    });
    connect(m_operators, &OperatorPanel::operatorSelected, this, &MainWindow::selectOperator);
    connect(m_operators, &OperatorPanel::nextOccurrence, m_timeline, &TimelineView::nextMatch);
    connect(m_operators, &OperatorPanel::previousOccurrence, m_timeline, &TimelineView::previousMatch);
    // The memory page follows the timeline's window and selection; its ops select in the timeline.
    connect(m_timeline, &TimelineView::windowChanged, this, [this] {
        const TimeWindow w = m_timeline->window();
        m_memory->setVisibleRange(w.t0, w.t1);
    });
    connect(m_timeline, &TimelineView::rangeSelected, m_memory,
            [this](qint64 t0, qint64 t1, std::vector<TrackId>) { m_memory->setSelection(t0, t1); });
    connect(m_timeline, &TimelineView::rangeCleared, m_memory, &MemoryView::clearSelection);
    connect(m_memory, &MemoryView::opSelected, this, [this](SliceRef r) {
        if (r.valid()) m_timeline->selectSlice(r, true);
    });
    connect(m_memory, &MemoryView::opsSelected, this, [this](const QList<SliceRef>& ops) {
        for (const SliceRef& r : ops) {
            if (r.valid()) {
                m_timeline->selectSlice(r, true);
                break;
            }
        }
    });
    // The Overview follows the timeline's range selection; its marks show their events or range.
    connect(m_timeline, &TimelineView::rangeSelected, m_overview,
            [this](qint64 t0, qint64 t1, std::vector<TrackId>) { m_overview->setScope(t0, t1); });
    connect(m_timeline, &TimelineView::rangeCleared, m_overview, &OverviewPage::clearScope);
    connect(m_overview, &OverviewPage::rangeRequested, this, [this](qint64 t0, qint64 t1) {
        const TimeNs margin = std::max<TimeNs>(1, (t1 - t0) / 40);
        m_timeline->setWindow(TimeWindow{t0 - margin, t1 + margin});
    });
    connect(m_overview, &OverviewPage::eventsRequested, this, &MainWindow::highlightEvents);
    connect(m_critical, &CriticalPathPanel::sliceRequested, this,
            [this](SliceRef r) { m_timeline->selectSlice(r); });
    connect(m_critical, &CriticalPathPanel::pathReady, this, &MainWindow::highlightSlices);
    // The flame graph follows the timeline's range selection; a frame marks its slices.
    connect(m_timeline, &TimelineView::rangeSelected, m_flame,
            [this](qint64 t0, qint64 t1, std::vector<TrackId>) { m_flame->setRange(t0, t1); });
    connect(m_timeline, &TimelineView::rangeCleared, m_flame, &FlamePanel::clearRange);
    connect(m_flame, &FlamePanel::slicesSelected, this, &MainWindow::highlightSlices);
    connect(m_modules, &ModuleView::slicesSelected, this, &MainWindow::highlightSlices);
    connect(m_timeline, &TimelineView::rangeSelected, m_modules,
            [this](qint64 t0, qint64 t1, std::vector<TrackId>) { m_modules->setRange(t0, t1); });
    connect(m_timeline, &TimelineView::rangeCleared, m_modules, &ModuleView::clearRange);
    connect(m_kernels, &KernelPanel::kernelSelected, this, &MainWindow::selectKernel);
    connect(m_kernels, &KernelPanel::nextOccurrence, m_timeline, &TimelineView::nextMatch);
    connect(m_kernels, &KernelPanel::previousOccurrence, m_timeline, &TimelineView::previousMatch);
    connectContextMenus();
    m_stack->setCurrentWidget(m_startPage);
}

MainWindow::~MainWindow()
{
    windows().removeAll(QPointer<MainWindow>(this));
}

QWidget* MainWindow::buildStartPage()
{
    auto* page = new QWidget(this);
    auto* layout = new QVBoxLayout(page);
    layout->addStretch(2);
    auto* title = new QLabel(page);
    auto setTitle = [title] {
        const Palette& p = Theme::palette();
        title->setText(QStringLiteral("<div style='font-size:20px;color:%1'>Kinetoscope</div>"
                                      "<div style='color:%2;margin-top:6px'>Open a PyTorch profiler trace "
                                      "(.pt.trace.json, .json.gz) or a TensorBoard log directory,<br>"
                                      "or drop one on this window.</div>")
                           .arg(p.text.name(), p.mutedText.name()));
    };
    setTitle();
    connect(&Theme::instance(), &Theme::changed, title, setTitle);
    title->setAlignment(Qt::AlignCenter);
    layout->addWidget(title);
    auto* open = new QPushButton(QStringLiteral("Open trace…"), page);
    open->setFixedWidth(180);
    layout->addWidget(open, 0, Qt::AlignHCenter);
    layout->addStretch(3);
    connect(open, &QPushButton::clicked, this, &MainWindow::openDialog);
    return page;
}

QWidget* MainWindow::buildLoadingPage()
{
    auto* page = new QWidget(this);
    auto* layout = new QVBoxLayout(page);
    layout->addStretch(2);
    m_loadingLabel = new QLabel(page);
    m_loadingLabel->setAlignment(Qt::AlignCenter);
    layout->addWidget(m_loadingLabel);
    m_progress = new QProgressBar(page);
    m_progress->setFixedWidth(420);
    m_progress->setTextVisible(false);
    layout->addWidget(m_progress, 0, Qt::AlignHCenter);
    auto* cancel = new QPushButton(QStringLiteral("Cancel"), page);
    cancel->setFixedWidth(120);
    layout->addWidget(cancel, 0, Qt::AlignHCenter);
    layout->addStretch(3);
    connect(cancel, &QPushButton::clicked, this, &MainWindow::cancelLoad);
    return page;
}

void MainWindow::buildMenus()
{
    QMenu* file = menuBar()->addMenu(QStringLiteral("&File"));
    file->addAction(QStringLiteral("&Open…"), QKeySequence::Open, this, &MainWindow::openDialog);
    file->addAction(QStringLiteral("Open &Directory…"), QKeySequence(QStringLiteral("Ctrl+Shift+O")), this,
                    &MainWindow::openFolderDialog);
    m_recentMenu = file->addMenu(QStringLiteral("Open &Recent"));
    connect(m_recentMenu, &QMenu::aboutToShow, this, &MainWindow::updateRecentMenu);
    file->addAction(QStringLiteral("&Compare With…"), this, &MainWindow::compareDialog);
    file->addAction(QStringLiteral("&Save As…"), QKeySequence::Save, this, &MainWindow::saveAsDialog);
    m_exportMenu = new ExportMenu(this);
    file->addMenu(m_exportMenu);
    file->addSeparator();
    file->addAction(QStringLiteral("&Preferences…"), QKeySequence(QStringLiteral("Ctrl+,")), this,
                    &MainWindow::showPreferences)
        ->setMenuRole(QAction::PreferencesRole);
    file->addSeparator();
    file->addAction(QStringLiteral("&Close Window"), QKeySequence::Close, this, &QWidget::close);
    file->addAction(QStringLiteral("&Quit"), QKeySequence::Quit, this, &MainWindow::quitApplication);

    m_viewMenu = menuBar()->addMenu(QStringLiteral("&View"));
    m_viewMenu->addAction(QStringLiteral("&Find…"), QKeySequence::Find, m_search, &SearchBar::activate);
    m_viewMenu->addAction(QStringLiteral("Find &Next"), QKeySequence::FindNext, m_timeline,
                          &TimelineView::nextMatch);
    m_viewMenu->addAction(QStringLiteral("Find &Previous"), QKeySequence::FindPrevious, m_timeline,
                          &TimelineView::previousMatch);
    m_viewMenu->addSeparator();
    // Single-letter keys belong to the timeline (they must not fire while typing in a field), so the
    // menu only names them.
    m_viewMenu->addAction(QStringLiteral("Zoom &In\tW / Ctrl+Wheel"), this,
                          [this] { m_timeline->zoomBy(0.7); });
    m_viewMenu->addAction(QStringLiteral("Zoom &Out\tS"), this, [this] { m_timeline->zoomBy(1 / 0.7); });
    m_viewMenu->addAction(QStringLiteral("Pan &Left\tA"), this, [this] { m_timeline->panBy(-0.15); });
    m_viewMenu->addAction(QStringLiteral("Pan &Right\tD"), this, [this] { m_timeline->panBy(0.15); });
    m_viewMenu->addAction(QStringLiteral("Zoom to &Selection\tF"), this,
                          [this] { m_timeline->zoomToSelection(); });
    m_viewMenu->addAction(QStringLiteral("&Fit Whole Trace\tHome"), this, [this] { m_timeline->fitAll(); });
    m_viewMenu->addSeparator();
    m_viewMenu->addAction(QStringLiteral("&Collapse All Groups"), this,
                          [this] { m_timeline->setAllGroupsCollapsed(true); });
    m_viewMenu->addAction(QStringLiteral("&Expand All Groups"), this,
                          [this] { m_timeline->setAllGroupsCollapsed(false); });
    m_viewMenu->addSeparator();
    addLayoutActions(m_viewMenu);
    m_viewMenu->addSeparator();
    m_viewMenu->addMenu(newColorSchemeMenu(m_viewMenu));

    QMenu* run = menuBar()->addMenu(QStringLiteral("&Run"));
    run->addAction(QStringLiteral("&Launch…"), QKeySequence(QStringLiteral("Ctrl+R")), this,
                   &MainWindow::showLaunchDialog);
    run->addAction(QStringLiteral("Listen for &Connections"), this, [this] { listenLive(); });
    run->addAction(QStringLiteral("&Stop"), QKeySequence(QStringLiteral("Ctrl+.")), this, [this] {
        if (m_live) m_live->stop();
    });

    QMenu* help = menuBar()->addMenu(QStringLiteral("&Help"));
    help->addAction(QStringLiteral("&Keyboard and Mouse"), this, &MainWindow::showShortcuts);
    help->addAction(QStringLiteral("&About Kinetoscope"), this, [this] {
        QMessageBox::about(this, QStringLiteral("About Kinetoscope"),
                           QStringLiteral("<b>Kinetoscope</b><br>A desktop profiler for PyTorch traces."));
    });
}

void MainWindow::showShortcuts()
{
    QMessageBox::information(
        this, QStringLiteral("Keyboard and mouse"),
        QStringLiteral(
            "<table>"
            "<tr><td><b>W / S</b></td><td>zoom in / out (also Ctrl+wheel, pinch)</td></tr>"
            "<tr><td><b>A / D</b></td><td>pan left / right (also drag, Shift+wheel)</td></tr>"
            "<tr><td><b>F</b></td><td>zoom to the selected slice or range</td></tr>"
            "<tr><td><b>Home</b></td><td>fit the whole trace</td></tr>"
            "<tr><td><b>Shift+drag</b></td><td>select a time range over the tracks crossed</td></tr>"
            "<tr><td><b>Drag in ruler</b></td><td>select a time range over all tracks</td></tr>"
            "<tr><td><b>Click / double-click</b></td><td>select / zoom to a slice</td></tr>"
            "<tr><td><b>Ctrl+F, F3</b></td><td>find slices, next / previous match</td></tr>"
            "<tr><td><b>Esc</b></td><td>clear the selection</td></tr></table>"));
}

void MainWindow::updateRecentMenu()
{
    m_recentMenu->clear();
    const QStringList files = recentfiles::list();
    for (const QString& f : files)
        m_recentMenu->addAction(QFileInfo(f).fileName(), this, [this, f] { openPath(f); })->setToolTip(f);
    if (files.isEmpty()) m_recentMenu->addAction(QStringLiteral("(none)"))->setEnabled(false);
    m_recentMenu->addSeparator();
    m_recentMenu->addAction(QStringLiteral("Clear"), this, [] { recentfiles::clear(); });
}

bool MainWindow::isLoading() const
{
    return m_loader->isLoading();
}
QString MainWindow::path() const
{
    return m_doc ? m_doc->path : m_loader->path();
}

void MainWindow::cancelLoad()
{
    m_loader->cancel();
}

void MainWindow::runInTurns(const std::shared_ptr<TraceDocument>& doc,
                            std::vector<std::function<void()>> steps, size_t next)
{
    if (next >= steps.size()) return;
    QTimer::singleShot(0, this, [this, doc, steps = std::move(steps), next]() mutable {
        if (m_doc != doc) return;
        steps[next]();
        runInTurns(doc, std::move(steps), next + 1);
    });
}

void MainWindow::setDocument(std::shared_ptr<TraceDocument> doc)
{
    m_searchJobs.cancel();
    m_highlightOwner = HighlightOwner::None;
    m_doc = doc;
    m_timeline->setDocument(m_doc);
    // The panels are filled on later turns of the event loop, one or two per turn, so that taking
    // over a loaded trace never holds the GUI thread for long in one go (the timeline's first frame
    // comes in between, and input is served between panels). A newer document ends the chain.
    const bool live = m_live != nullptr;
    runInTurns(doc, {[this, live] { m_overview->setDocument(m_doc, live); },
                     [this] {
                         m_kernels->setDocument(m_doc);
                         m_operators->setDocument(m_doc);
                     },
                     [this] {
                         m_memory->setTimeline(m_doc->memoryTimeline);
                         m_details->setDocument(m_doc);
                     },
                     [this] {
                         m_info->setDocument(m_doc);
                         m_range->setDocument(m_doc);
                     },
                     // A live trace still grows: its path is computed when the session ends.
                     [this, live] { m_critical->setDocument(live ? nullptr : m_doc); },
                     // A live trace's call tree is rebuilt as the session's analyses come
                     // (documentUpdated).
                     [this, live] {
                         m_flame->setDocument(m_doc, live);
                         m_modules->setDocument(m_doc, live);
                     },
                     [this] { coverDocks(QString()); }, [this] { emit documentLoaded(m_doc); }});
    QStringList warnings;
    for (const std::string& w : doc->warnings)
        warnings << QString::fromStdString(w);
    if (doc->truncated)
        warnings.prepend(QStringLiteral("The file ends early (truncated); showing what could be read."));
    m_banner->showMessages(warnings);
    m_sampleHint->setVisible(!m_live && SampleHint::isSample(doc->path));
    const Trace& t = *doc->trace;
    m_statusSummary->setText(QStringLiteral("%1 events · %2 slices · %3 · loaded in %4 s")
                                 .arg(formatCount(doc->loadStats.events), formatCount(t.sliceCount()),
                                      formatDuration(t.endTime() - t.startTime()))
                                 .arg(doc->loadSeconds + doc->analysisSeconds, 0, 'f', 2));
    m_stack->setCurrentWidget(m_timelinePage);
    if (!std::exchange(m_proportionsApplied, true)) applyDefaultProportions();
    m_timeline->setFocus();
    setWindowTitle(QFileInfo(doc->path).fileName() + QStringLiteral(" — Kinetoscope"));
    if (m_trackSession && !doc->path.isEmpty()) recentfiles::add(doc->path);
}

void MainWindow::runSearch(const QString& text, bool regex, bool caseSensitive)
{
    if (!m_doc) return;
    if (text.isEmpty()) {
        m_searchJobs.cancel();
        if (m_highlightOwner == HighlightOwner::Search) {
            m_timeline->setHighlight(nullptr);
            m_highlightOwner = HighlightOwner::None;
        }
        m_search->setStatus(-1, 0);
        return;
    }
    m_search->setBusy();
    m_pendingSearchStep = 0;
    auto doc = m_doc;
    SearchQuery q;
    q.text = text.toStdString();
    q.regex = regex;
    q.caseSensitive = caseSensitive;
    m_searchJobs.startJob(
        [doc, q](const std::atomic<bool>& cancel) { return searchSlices(*doc->trace, q, &cancel); },
        [this, text](SearchResult result) {
            if (!result.error.empty()) {
                m_search->setError(QString::fromStdString(result.error));
                return;
            }
            auto h = std::make_shared<Highlight>();
            h->label = text;
            h->names = std::move(result.nameMatches);
            h->occurrences = std::move(result.matches);
            const int n = int(h->occurrences.size());
            m_highlightOwner = HighlightOwner::Search;
            m_timeline->setHighlight(h);
            const int step = std::exchange(m_pendingSearchStep, 0);
            if (step > 0) m_timeline->nextMatch();
            if (step < 0) m_timeline->previousMatch();
            emit searchFinished(n);
        });
}

void MainWindow::highlightEvents(const QString& label, const std::vector<SliceRef>& events)
{
    if (!m_doc || events.empty()) return;
    auto h = std::make_shared<Highlight>();
    h->label = label;
    h->names.assign(m_doc->trace->strings().size(), 0);
    for (const SliceRef& r : events)
        h->names[m_doc->trace->slices(r.track).name(r.index).value] = 1;
    h->occurrences = events;
    std::sort(h->occurrences.begin(), h->occurrences.end(), [this](SliceRef a, SliceRef b) {
        return m_doc->trace->slices(a.track).start(a.index) < m_doc->trace->slices(b.track).start(b.index);
    });
    m_highlightOwner = HighlightOwner::Overview;
    m_timeline->setHighlight(h);
    m_timeline->nextMatch();
}

void MainWindow::highlightSlices(const QString& label, const std::vector<SliceRef>& events)
{
    if (!m_doc || events.empty()) return;
    auto h = std::make_shared<Highlight>();
    h->label = label;
    h->names.assign(m_doc->trace->strings().size(), 0);
    const Trace& t = *m_doc->trace;
    for (const SliceRef& r : events) {
        const SliceTrack& st = t.slices(r.track);
        h->names[st.name(r.index).value] = 1;
        h->exact[r.track.value].emplace_back(st.start(r.index), st.end(r.index));
    }
    for (auto& [track, spans] : h->exact)
        std::sort(spans.begin(), spans.end());
    h->occurrences = events;
    std::sort(h->occurrences.begin(), h->occurrences.end(), [&t](SliceRef a, SliceRef b) {
        return t.slices(a.track).start(a.index) < t.slices(b.track).start(b.index);
    });
    m_highlightOwner = HighlightOwner::CriticalPath;
    m_timeline->setHighlight(h);
}

void MainWindow::selectKernel(int kernelIndex)
{
    if (!m_doc) return;
    if (kernelIndex < 0 || kernelIndex >= int(m_doc->kernels.rows.size())) {
        if (m_highlightOwner == HighlightOwner::Kernel) {
            m_timeline->setHighlight(nullptr);
            m_highlightOwner = HighlightOwner::None;
        }
        return;
    }
    const KernelRow& k = m_doc->kernels.rows[size_t(kernelIndex)];
    auto h = std::make_shared<Highlight>();
    h->label =
        QString::fromUtf8(m_doc->trace->str(k.name).data(), qsizetype(m_doc->trace->str(k.name).size()));
    h->names.assign(m_doc->trace->strings().size(), 0);
    h->names[k.name.value] = 1;
    h->occurrences = k.occurrences;
    m_highlightOwner = HighlightOwner::Kernel;
    m_timeline->setHighlight(h);
    m_timeline->nextMatch();
}

void MainWindow::selectOperator(const KeyAverage* row, bool groupedByInputShape)
{
    if (!m_doc || !row) {
        m_operatorJobs.cancel();
        if (m_highlightOwner == HighlightOwner::Operator) {
            m_timeline->setHighlight(nullptr);
            m_highlightOwner = HighlightOwner::None;
        }
        m_operators->setOccurrenceStatus(-1, 0);
        return;
    }
    // Finding a row's slices walks the whole trace: off the GUI thread.
    auto doc = m_doc;
    const KeyAverage copy = *row;
    m_operatorJobs.startJob(
        [doc, copy, groupedByInputShape](const std::atomic<bool>&) {
            return rowOccurrences(*doc->trace, copy, groupedByInputShape);
        },
        [this, doc, label = QString::fromStdString(copy.key)](std::vector<SliceRef> occurrences) {
            if (doc != m_doc) return;
            auto h = std::make_shared<Highlight>();
            h->label = label;
            h->names.assign(doc->trace->strings().size(), 0);
            for (const SliceRef& r : occurrences)
                h->names[doc->trace->slices(r.track).name(r.index).value] = 1;
            h->occurrences = std::move(occurrences);
            m_highlightOwner = HighlightOwner::Operator;
            m_timeline->setHighlight(h);
            m_operators->setOccurrenceStatus(-1, int(h->occurrences.size()));
            // As a click in the GPU-kernels tab does: the first occurrence is selected and shown.
            m_timeline->nextMatch();
        });
}

void MainWindow::onMatchChanged(int index, int total)
{
    if (m_highlightOwner == HighlightOwner::Search)
        m_search->setStatus(index, total);
    else if (m_highlightOwner == HighlightOwner::Kernel)
        m_kernels->setOccurrenceStatus(index, total);
    else if (m_highlightOwner == HighlightOwner::Operator)
        m_operators->setOccurrenceStatus(index, total);
}

QStringList MainWindow::openPaths()
{
    QStringList out;
    for (const QPointer<MainWindow>& w : windows())
        if (w && w->m_trackSession && w->m_doc && !w->m_doc->path.isEmpty()) out << w->m_doc->path;
    return out;
}

void MainWindow::quitApplication()
{
    if (m_trackSession) {
        recentfiles::saveSession(openPaths());
        g_sessionSaved = true;
    }
    qApp->closeAllWindows();
}

void MainWindow::closeEvent(QCloseEvent* e)
{
    m_loader->cancel();
    // The last window to close defines the session, unless Quit already recorded all of them.
    int open = 0;
    for (const QPointer<MainWindow>& w : windows())
        open += w && w->isVisible();
    if (m_trackSession && !g_sessionSaved && open <= 1)
        recentfiles::saveSession(m_doc ? QStringList{m_doc->path} : QStringList{});
    e->accept();
}

} // namespace ks::ui
