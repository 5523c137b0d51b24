// MainWindow's layout: the docks around the timeline, whether they can be dragged off, and the
// proportions a trace first opens with.

#include "ui/critical/criticalpathpanel.h"
#include "ui/flame/flamepanel.h"
#include "ui/mainwindow/docksizekeeper.h"
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
#include "ui/util/theme.h"

#include <QAction>
#include <QDockWidget>
#include <QLabel>
#include <QMenu>
#include <QSettings>
#include <QStackedWidget>
#include <QTabWidget>
#include <algorithm>

namespace ks::ui {

namespace {

constexpr const char* kLockPanelsKey = "layout/lockPanels";

// A dock's content over a "Loading…" page: while another trace loads, the panels of the one before
// are not shown as if they were the new one's.
QStackedWidget* withLoadingCover(QWidget* content, QWidget* parent)
{
    auto* stack = new QStackedWidget(parent);
    stack->addWidget(content);
    auto* cover = new QLabel(stack);
    cover->setObjectName(QStringLiteral("loadingCover"));
    cover->setAlignment(Qt::AlignCenter);
    cover->setWordWrap(true);
    // A long file name must not widen the dock, nor the window's minimum (#30 item 1).
    cover->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Ignored);
    stack->addWidget(cover);
    return stack;
}

} // namespace

void MainWindow::buildDocks()
{
    setDockNestingEnabled(true);
    m_details = new DetailsPanel(this);
    // Narrower, and long words wrap a few characters per line.
    m_details->setMinimumWidth(220);
    m_detailsDock = new QDockWidget(QStringLiteral("Details"), this);
    m_detailsDock->setObjectName(QStringLiteral("detailsDock"));
    m_detailsDock->setWidget(withLoadingCover(m_details, this));
    addDockWidget(Qt::RightDockWidgetArea, m_detailsDock);

    m_info = new InfoPanel(this);
    m_infoDock = new QDockWidget(QStringLiteral("Trace info"), this);
    m_infoDock->setObjectName(QStringLiteral("infoDock"));
    m_infoDock->setWidget(withLoadingCover(m_info, this));
    addDockWidget(Qt::RightDockWidgetArea, m_infoDock);
    tabifyDockWidget(m_detailsDock, m_infoDock);
    m_detailsDock->raise();

    m_analysisTabs = new QTabWidget(this);
    m_analysisTabs->setDocumentMode(true);
    m_operators = new OperatorPanel(this);
    m_kernels = new KernelPanel(this);
    m_memory = new MemoryView(this);
    m_range = new RangePanel(this);
    m_critical = new CriticalPathPanel(this);
    m_flame = new FlamePanel(this);
    m_modules = new ModuleView(this);
    m_overview = new OverviewPage(this);
    m_analysisTabs->addTab(m_overview, QStringLiteral("Overview"));
    m_analysisTabs->addTab(m_operators, QStringLiteral("Operators"));
    m_analysisTabs->addTab(m_kernels, QStringLiteral("GPU kernels"));
    m_analysisTabs->addTab(m_memory, QStringLiteral("Memory"));
    m_analysisTabs->addTab(m_range, QStringLiteral("Range selection"));
    m_analysisTabs->addTab(m_critical, QStringLiteral("Critical path"));
    m_analysisTabs->addTab(m_flame, QStringLiteral("Flame graph"));
    m_analysisTabs->addTab(m_modules, QStringLiteral("Modules"));
    m_analysisDock = new QDockWidget(QStringLiteral("Analysis"), this);
    m_analysisDock->setObjectName(QStringLiteral("analysisDock"));
    m_analysisDock->setWidget(withLoadingCover(m_analysisTabs, this));
    addDockWidget(Qt::BottomDockWidgetArea, m_analysisDock);
    // The timeline gets the corner: the bottom dock spans only under it.
    setCorner(Qt::BottomRightCorner, Qt::RightDockWidgetArea);
    m_panelsLocked = QSettings().value(QLatin1String(kLockPanelsKey), true).toBool();
    for (QDockWidget* d : {m_detailsDock, m_infoDock, m_analysisDock})
        applyPanelLock(d);
    new DockSizeKeeper(this, m_detailsDock, Qt::Horizontal);
    new DockSizeKeeper(this, m_infoDock, Qt::Horizontal);
    new DockSizeKeeper(this, m_analysisDock, Qt::Vertical);
    applyDefaultProportions();
}

bool MainWindow::docksCovered() const
{
    auto* stack = qobject_cast<QStackedWidget*>(m_analysisDock->widget());
    return stack && stack->currentIndex() == 1;
}

void MainWindow::coverDocks(const QString& loading)
{
    for (QDockWidget* d : {m_detailsDock, m_infoDock, m_analysisDock}) {
        auto* stack = qobject_cast<QStackedWidget*>(d->widget());
        if (!stack) continue;
        auto* cover = stack->findChild<QLabel*>(QStringLiteral("loadingCover"));
        if (cover && !loading.isEmpty())
            cover->setText(QStringLiteral("<span style='color:%1'>Loading %2…</span>")
                               .arg(Theme::palette().hintText.name(), loading.toHtmlEscaped()));
        stack->setCurrentIndex(loading.isEmpty() || !cover ? 0 : 1);
    }
}

void MainWindow::applyPanelLock(QDockWidget* dock) const
{
    // Locked docks keep their place: a slip of the mouse on a title bar must not float a panel over
    // the timeline. They can still be closed and brought back from the View menu.
    dock->setFeatures(m_panelsLocked ? QDockWidget::DockWidgetClosable
                                     : QDockWidget::DockWidgetClosable | QDockWidget::DockWidgetMovable |
                                           QDockWidget::DockWidgetFloatable);
}

void MainWindow::setPanelsLocked(bool locked)
{
    m_panelsLocked = locked;
    QSettings().setValue(QLatin1String(kLockPanelsKey), locked);
    for (QDockWidget* d : findChildren<QDockWidget*>()) {
        if (locked && d->isFloating()) d->setFloating(false);
        applyPanelLock(d);
    }
}

void MainWindow::addLayoutActions(QMenu* view)
{
    view->addAction(m_detailsDock->toggleViewAction());
    view->addAction(m_infoDock->toggleViewAction());
    view->addAction(m_analysisDock->toggleViewAction());
    QAction* lock = view->addAction(QStringLiteral("Loc&k Panels"));
    lock->setObjectName(QStringLiteral("lockPanelsAction"));
    lock->setCheckable(true);
    lock->setChecked(m_panelsLocked);
    connect(lock, &QAction::toggled, this, &MainWindow::setPanelsLocked);
    QAction* unfold = view->addAction(QStringLiteral("Unfold &Python Stacks"));
    unfold->setObjectName(QStringLiteral("unfoldStacksAction"));
    unfold->setCheckable(true);
    unfold->setChecked(TimelineView::stacksUnfoldedByDefault());
    connect(unfold, &QAction::triggered, m_timeline, &TimelineView::setAllStacksUnfolded);
    // A click on a thread's label changes the remembered choice too.
    connect(view, &QMenu::aboutToShow, unfold,
            [unfold] { unfold->setChecked(TimelineView::stacksUnfoldedByDefault()); });
}

void MainWindow::applyDefaultProportions()
{
    // Most of the height goes to the timeline; the analysis tabs start at about a third of the
    // window, at least what the Overview needs to show its charts and tables side by side without
    // scrolling (#30 item 12); the details column gets about a quarter of the width.
    const int h = std::max(height(), 600);
    const int w = std::max(width(), 800);
    const int bottom = std::clamp(h * 36 / 100, 320, 520);
    const int side = std::clamp(w * 24 / 100, 300, 440);
    resizeDocks({m_analysisDock}, {bottom}, Qt::Vertical);
    resizeDocks({m_detailsDock}, {side}, Qt::Horizontal);
    for (DockSizeKeeper* k : findChildren<DockSizeKeeper*>())
        k->setPreferred(k->dock() == m_analysisDock ? bottom : side);
}

} // namespace ks::ui
