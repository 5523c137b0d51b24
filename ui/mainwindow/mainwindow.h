#pragma once

#include "ui/util/jobtracker.h"
#include "ui/util/metatypes.h"

#include <QMainWindow>
#include <functional>
#include <memory>
#include <vector>

class QLabel;
class QMenu;
class QProgressBar;
class QStackedWidget;
class QTabWidget;
class QDockWidget;

namespace ks {
struct KeyAverage;
class MemoryView;
} // namespace ks
namespace ks::live {
struct LaunchRequest;
}

namespace ks::ui {

class TraceDocument;
class OperatorPanel;
class DocumentLoader;
class TimelineView;
class DetailsPanel;
class KernelPanel;
class OverviewPage;
class RangePanel;
class CriticalPathPanel;
class FlamePanel;
class ModuleView;
class InfoPanel;
class SearchBar;
class Banner;
class SampleHint;
class LiveController;
class ExportMenu;

// One trace per window: the timeline in the middle, details and trace info on the right, the
// analysis tabs (operators, GPU kernels, memory, range aggregate) below.
class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    // Opens a trace file or a TensorBoard log directory; a distributed job (a directory of several
    // ranks' traces, or a .kjob file) opens the Rank overview in a window of its own. When this window
    // already shows (or is loading) a trace and newWindowIfBusy is set, a new window opens it instead.
    void openPath(const QString& path, bool newWindowIfBusy = true);
    void cancelLoad();
    // Loads another trace and opens a compare window of this window's trace (A) against it (B)
    // (mainwindowcompare.cpp). Emits compareOpened with the window once both are shown.
    void compareWith(const QString& path);

    // Interactive windows ask (log directory picker) and report errors in dialogs; a
    // non-interactive one (screenshots, tests) takes the newest trace of a directory and only emits.
    void setInteractive(bool interactive) { m_interactive = interactive; }
    bool isInteractive() const { return m_interactive; }
    // Where a file (or a live session) goes when this window already shows or loads a trace: Ask
    // follows Edit > Preferences, opens here over a trace that can be opened again and asks (Open
    // Here / New Window) over one that cannot; tests and scripts pick one.
    enum class BusyOpen { Ask, Here, NewWindow };
    void setBusyOpen(BusyOpen policy) { m_busyOpen = policy; }
    // Whether this window's file counts toward the "reopen last session" list.
    void setSessionTracking(bool track) { m_trackSession = track; }

    std::shared_ptr<const TraceDocument> document() const { return m_doc; }
    QString path() const;
    TimelineView* timeline() const { return m_timeline; }
    KernelPanel* kernelPanel() const { return m_kernels; }
    OverviewPage* overviewPage() const { return m_overview; }
    OperatorPanel* operatorPanel() const { return m_operators; }
    FlamePanel* flamePanel() const { return m_flame; }
    ModuleView* moduleView() const { return m_modules; }
    QTabWidget* analysisTabs() const { return m_analysisTabs; }
    MemoryView* memoryView() const { return m_memory; }
    DetailsPanel* detailsPanel() const { return m_details; }
    InfoPanel* infoPanel() const { return m_info; }
    SearchBar* searchBar() const { return m_search; }
    Banner* banner() const { return m_banner; }
    SampleHint* sampleHint() const { return m_sampleHint; }
    ExportMenu* exportMenu() const { return m_exportMenu; }
    // Whether the docks show "Loading…" in place of the previous trace's panels.
    bool docksCovered() const;
    bool isLoading() const;

    // Paths shown by all open windows (for the session list).
    static QStringList openPaths();

    // Live sessions (mainwindowlive.cpp): launch a script, or listen for programs that stream, in
    // this window or in a new one when this one is busy. Returns the session's controller, or null
    // when it could not start (the reason is shown, and emitted as liveFailed()).
    LiveController* launchLive(const live::LaunchRequest& request);
    LiveController* listenLive();
    LiveController* liveController() const { return m_live; }
    void showLaunchDialog();
    // Saves the shown trace (a live one as it stands) as .pt.trace.json or .json.gz.
    void saveAs(const QString& path);

signals:
    void documentLoaded(std::shared_ptr<const ks::ui::TraceDocument> document);
    void loadFailed(const QString& path, const QString& error);
    void loadCancelled();
    void compareOpened(QWidget* window);
    void searchFinished(int matches);
    void liveFailed(const QString& error);
    void traceSaved(const QString& path, const QString& error);
    // A directory of several ranks (or a .kjob) went to a window of its own (ui/ranks).
    void jobOpened(QMainWindow* window);
    // A CUDA memory snapshot went to a window of its own (ui/snapshot).
    void snapshotOpened(QMainWindow* window);

protected:
    void closeEvent(QCloseEvent* e) override;
    void dragEnterEvent(QDragEnterEvent* e) override;
    void dragMoveEvent(QDragMoveEvent* e) override;
    void dropEvent(QDropEvent* e) override;

private:
    enum class HighlightOwner { None, Search, Kernel, Operator, Overview, CriticalPath };

    void buildMenus();
    // mainwindowlayout.cpp: the docks, their lock and the first-open proportions.
    void buildDocks();
    // Shows "Loading NAME…" in place of the docks' panels (an empty name: the panels again).
    void coverDocks(const QString& loading);
    void addLayoutActions(QMenu* view);
    void setPanelsLocked(bool locked);
    void applyPanelLock(QDockWidget* dock) const;
    void applyDefaultProportions();
    QWidget* buildStartPage();
    QWidget* buildLoadingPage();
    void updateRecentMenu();
    void startLoad(const QString& file);
    void setDocument(std::shared_ptr<TraceDocument> doc);
    // Runs steps[next], steps[next + 1], ... each on its own later turn of the event loop while doc
    // is still the window's document.
    void runInTurns(const std::shared_ptr<TraceDocument>& doc, std::vector<std::function<void()>> steps,
                    size_t next = 0);
    void runSearch(const QString& text, bool regex, bool caseSensitive);
    void highlightEvents(const QString& label, const std::vector<SliceRef>& events);
    // Marks exactly these slices (not every slice of their names): the critical path.
    void highlightSlices(const QString& label, const std::vector<SliceRef>& events);
    void selectKernel(int kernelIndex);
    void selectOperator(const ks::KeyAverage* row, bool groupedByInputShape);
    void onMatchChanged(int index, int total);
    // mainwindowopen.cpp: the window a file or live session should go to (this, a new one), or null
    // when the user cancelled.
    MainWindow* windowForOpen(const QString& what);
    bool hasSomethingToLose() const;
    void restoreTitle();
    void showPreferences();
    // mainwindowmenus.cpp: right-click menus of the timeline and the tables.
    void connectContextMenus();
    void findInTimeline(const QString& name);
    void showInTable(const QString& name, bool gpu);
    void openDialog();
    void compareDialog();
    void openFolderDialog();
    void quitApplication();
    void showShortcuts();
    void saveAsDialog();
    MainWindow* windowForLive();
    LiveController* startLive(const std::function<bool(LiveController*, QString&)>& start);
    void dockLivePanel(LiveController* live);
    // A live session's analyses were refreshed; `final` once the target has ended. The operator
    // table follows only then: recomputing it every few seconds would keep dropping the selection.
    void documentUpdated(bool final);
    void updateLiveStatus();

    std::shared_ptr<const TraceDocument> m_doc;
    DocumentLoader* m_loader;
    DocumentLoader* m_compareLoader = nullptr; // the second trace of File > Compare With…
    JobTracker m_searchJobs{this};
    int m_pendingSearchStep = 0; // Enter (+1) or Shift+Enter (-1) typed while the search ran
    JobTracker m_operatorJobs{this};
    JobTracker m_saveJobs{this};
    LiveController* m_live = nullptr;
    HighlightOwner m_highlightOwner = HighlightOwner::None;
    bool m_interactive = true;
    bool m_trackSession = true;
    bool m_panelsLocked = true;
    bool m_proportionsApplied = false;
    BusyOpen m_busyOpen = BusyOpen::Ask;

    QStackedWidget* m_stack;
    QWidget* m_startPage;
    QWidget* m_loadingPage;
    QWidget* m_timelinePage;
    QLabel* m_loadingLabel;
    QProgressBar* m_progress;
    Banner* m_banner;
    SampleHint* m_sampleHint;
    SearchBar* m_search;
    TimelineView* m_timeline;
    DetailsPanel* m_details;
    InfoPanel* m_info;
    KernelPanel* m_kernels;
    OverviewPage* m_overview;
    OperatorPanel* m_operators;
    MemoryView* m_memory;
    RangePanel* m_range;
    CriticalPathPanel* m_critical;
    FlamePanel* m_flame;
    ModuleView* m_modules;
    QTabWidget* m_analysisTabs;
    QDockWidget* m_detailsDock;
    QDockWidget* m_infoDock;
    QDockWidget* m_analysisDock;
    QMenu* m_recentMenu;
    ExportMenu* m_exportMenu;
    QMenu* m_viewMenu;
    QLabel* m_statusSummary;
    QLabel* m_statusWindow;
};

} // namespace ks::ui
