// MainWindow's right-click menus: what the timeline's and the tables' menus ask of the window
// (find a name in the timeline, show it in the operator or kernel table).

#include "ui/mainwindow/mainwindow.h"
#include "ui/memory/memoryview.h"
#include "ui/overview/overviewpage.h"
#include "ui/panels/kernelpanel.h"
#include "ui/panels/operatorpanel.h"
#include "ui/panels/rangepanel.h"
#include "ui/panels/searchbar.h"
#include "ui/timeline/timelineview.h"
#include "ui/util/tablecontextmenu.h"

#include <QDockWidget>
#include <QMenu>
#include <QTabWidget>
#include <QTableView>

namespace ks::ui {

namespace {

// The column of a table whose header reads `title`, else 0.
int columnTitled(const QTableView* table, const QString& title)
{
    const QAbstractItemModel* m = table->model();
    for (int c = 0; c < m->columnCount(); ++c)
        if (m->headerData(c, Qt::Horizontal).toString() == title) return c;
    return 0;
}

} // namespace

void MainWindow::connectContextMenus()
{
    connect(m_timeline, &TimelineView::findRequested, this, &MainWindow::findInTimeline);
    connect(m_timeline, &TimelineView::showInTableRequested, this, &MainWindow::showInTable);

    auto find = [this](QMenu* menu, const QString& name) {
        menu->addAction(QStringLiteral("&Find in Timeline"), this, [this, name] { findInTimeline(name); })
            ->setObjectName(QStringLiteral("findInTimeline"));
    };
    auto findAndShow = [this, find](bool gpu) {
        return [this, find, gpu](QMenu* menu, const QString& name) {
            find(menu, name);
            menu->addAction(gpu ? QStringLiteral("Show in &GPU Kernels Table")
                                : QStringLiteral("Show in &Operator Table"),
                            this, [this, name, gpu] { showInTable(name, gpu); })
                ->setObjectName(QStringLiteral("showInTable"));
        };
    };
    for (QTableView* t : m_operators->findChildren<QTableView*>())
        installRowContextMenu(t, 0, find);
    for (QTableView* t : m_kernels->findChildren<QTableView*>())
        installRowContextMenu(t, 0, find);
    // The Overview's tables: ops (Op, ...) and kernels (Kernel, ..., Launched by).
    for (QTableView* t : m_overview->findChildren<QTableView*>()) {
        const bool kernels = t->model()->headerData(0, Qt::Horizontal).toString() == QStringLiteral("Kernel");
        installRowContextMenu(t, 0, findAndShow(kernels));
    }
    for (QTableView* t : m_range->findChildren<QTableView*>())
        installRowContextMenu(t, 0, findAndShow(false));
    for (QTableView* t : m_memory->findChildren<QTableView*>())
        installRowContextMenu(t, columnTitled(t, QStringLiteral("Allocated by")), find);
}

void MainWindow::findInTimeline(const QString& text)
{
    // torch folds "ProfilerStep#N" into one "ProfilerStep*" row: search for what the slices share.
    const QString name = text.endsWith(u'*') ? text.chopped(1) : text;
    if (!m_doc || name.isEmpty()) return;
    m_search->setRegex(false);
    m_search->setText(name);
    m_search->activate();
    runSearch(name, false, true);
}

void MainWindow::showInTable(const QString& text, bool gpu)
{
    // torch lists every "ProfilerStep#N" as one "ProfilerStep*" row.
    const QString name =
        text.startsWith(QLatin1String("ProfilerStep#")) ? QStringLiteral("ProfilerStep") : text;
    QWidget* panel = gpu ? static_cast<QWidget*>(m_kernels) : static_cast<QWidget*>(m_operators);
    if (gpu)
        m_kernels->setFilterText(name);
    else
        m_operators->setFilterText(name);
    m_analysisDock->show();
    m_analysisDock->raise();
    m_analysisTabs->setCurrentWidget(panel);
}

} // namespace ks::ui
