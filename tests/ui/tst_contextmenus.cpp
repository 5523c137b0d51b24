// Right-click menus on timeline slices and tracks and on table rows: the actions exist and act.

#include "openedwindow.h"
#include "ui/overview/overviewpage.h"
#include "ui/panels/kernelfiltermodel.h"
#include "ui/panels/kernelpanel.h"
#include "ui/panels/operatorfiltermodel.h"
#include "ui/panels/operatorpanel.h"
#include "ui/timeline/timelinehittest.h"
#include "ui/timeline/timelineview.h"
#include "ui/util/tablecontextmenu.h"

#include <QApplication>
#include <QClipboard>
#include <QContextMenuEvent>
#include <QMenu>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>
#include <QTest>

using namespace ks;
using namespace ks::ui;

namespace {

const char* kBert = "AMD-AGI_TraceLens__tests__traces__h100__gaunernst_bert-small-uncased__1016001.json.gz";

QAction* actionNamed(QMenu* menu, const char* name)
{
    for (QAction* a : menu->actions())
        if (a->objectName() == QLatin1String(name)) return a;
    return nullptr;
}

QString sliceName(const TimelineView* view, SliceRef r)
{
    const Trace& t = *view->document()->trace;
    const std::string_view s = t.str(t.slices(r.track).name(r.index));
    return QString::fromUtf8(s.data(), qsizetype(s.size()));
}

// A viewport point over a slice of a track of `kind` (the first found from the top) whose name
// `accept` takes, or (-1, -1).
QPoint pointOnSlice(TimelineView* view, TrackKind kind, TimelineHit* out = nullptr,
                    const std::function<bool(const QString&)>& accept = {})
{
    const Trace& t = *view->document()->trace;
    // Scrolled to the first track of that kind.
    for (size_t i = 0; i < t.trackCount(); ++i) {
        const TrackId id{uint32_t(i)};
        if (t.track(id).kind == kind && !t.slices(id).empty()) {
            view->revealSlice(SliceRef{id, 0});
            break;
        }
    }
    const TimelineCoords c = view->renderer().coords(view->viewport()->size(), view->state());
    for (int y = c.headerHeight + 2; y < view->viewport()->height(); y += 3) {
        for (int x = c.trackLeft() + 2; x < view->viewport()->width(); x += 2) {
            const TimelineHit hit = hitTest(view->renderer(), c, QPoint(x, y));
            if (hit.kind == TimelineHit::Kind::Slice && t.track(hit.slice.track).kind == kind &&
                (!accept || accept(sliceName(view, hit.slice)))) {
                if (out) *out = hit;
                return QPoint(x, y);
            }
        }
    }
    return QPoint(-1, -1);
}

} // namespace

class TestContextMenus : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("KinetoscopeTests"));
        // Tracks hidden or pinned by an earlier run that stopped half-way are remembered (TrackMemory).
        QSettings().remove(QStringLiteral("timeline"));
        m_opened = test::openSharedTrace(kBert, &MainWindow::overviewPage, &OverviewPage::computed);
        QVERIFY(m_opened.doc);
        const QTableView* ops = m_opened.window->operatorPanel()->findChild<QTableView*>();
        QTRY_VERIFY_WITH_TIMEOUT(ops->model()->rowCount() > 0, 60000);
    }
    void cleanupTestCase() { m_opened.window.reset(); }
    void init() { m_opened.window->timeline()->fitAll(); }

    void sliceMenuCopiesZoomsFindsAndShows()
    {
        MainWindow* w = m_opened.window.get();
        TimelineView* view = w->timeline();
        // A slice of an op that the operator table lists.
        QStringList ops;
        for (int r = 0; r < w->operatorPanel()->proxy()->rowCount(); ++r)
            ops << w->operatorPanel()->proxy()->index(r, 0).data().toString();
        TimelineHit hit;
        const QPoint pos = pointOnSlice(view, TrackKind::CpuThread, &hit, [&ops](const QString& n) {
            return n.startsWith(u"aten::") && ops.contains(n);
        });
        QVERIFY(pos.x() >= 0);
        const QString name = sliceName(view, hit.slice);
        std::unique_ptr<QMenu> menu(view->contextMenuAt(pos, nullptr));
        QVERIFY(menu);
        for (const char* a : {"copyName", "findAll", "zoomTo", "showInTable", "hideTrack", "pinTrack"})
            QVERIFY2(actionNamed(menu.get(), a), a);

        QApplication::clipboard()->clear();
        actionNamed(menu.get(), "copyName")->trigger();
        QCOMPARE(QApplication::clipboard()->text(), name);

        const ui::TimeWindow before = view->window();
        actionNamed(menu.get(), "zoomTo")->trigger();
        const ui::TimeWindow after = view->window();
        const SliceTrack& st = m_opened.doc->trace->slices(hit.slice.track);
        QVERIFY(after.span() < before.span());
        QVERIFY(after.t0 <= st.start(hit.slice.index) && after.t1 >= st.end(hit.slice.index));
        QCOMPARE(view->selectedSlice(), hit.slice);

        QSignalSpy found(w, &MainWindow::searchFinished);
        actionNamed(menu.get(), "findAll")->trigger();
        QVERIFY(found.wait(60000));
        QVERIFY(found.last().at(0).toInt() >= 1);

        actionNamed(menu.get(), "showInTable")->trigger();
        QCOMPARE(w->findChild<QTabWidget*>()->currentWidget(), static_cast<QWidget*>(w->operatorPanel()));
        QVERIFY(w->operatorPanel()->proxy()->rowCount() >= 1);
        for (int r = 0; r < w->operatorPanel()->proxy()->rowCount(); ++r)
            QVERIFY(w->operatorPanel()->proxy()->index(r, 0).data().toString().contains(name));
        w->operatorPanel()->setFilterText(QString());
    }

    void kernelSliceShowsInTheKernelTable()
    {
        MainWindow* w = m_opened.window.get();
        TimelineHit hit;
        const QPoint pos = pointOnSlice(w->timeline(), TrackKind::GpuStream, &hit);
        QVERIFY(pos.x() >= 0);
        std::unique_ptr<QMenu> menu(w->timeline()->contextMenuAt(pos, nullptr));
        QVERIFY(actionNamed(menu.get(), "showInTable")->text().contains(QStringLiteral("GPU Kernels")));
        actionNamed(menu.get(), "showInTable")->trigger();
        QCOMPARE(w->findChild<QTabWidget*>()->currentWidget(), static_cast<QWidget*>(w->kernelPanel()));
        QVERIFY(w->kernelPanel()->proxy()->rowCount() >= 1);
        w->kernelPanel()->setFilterText(QString());
    }

    void trackMenuHidesAndPins()
    {
        TimelineView* view = m_opened.window->timeline();
        TrackLayout& layout = view->renderer().layout();
        TimelineHit hit;
        QPoint pos = pointOnSlice(view, TrackKind::GpuStream, &hit);
        QVERIFY(pos.x() >= 0);
        const TrackId track = hit.slice.track;
        // On the label too.
        std::unique_ptr<QMenu> labelMenu(view->contextMenuAt(QPoint(10, pos.y()), nullptr));
        QVERIFY(labelMenu && actionNamed(labelMenu.get(), "hideTrack"));
        QVERIFY(!actionNamed(labelMenu.get(), "copyName"));

        std::unique_ptr<QMenu> menu(view->contextMenuAt(pos, nullptr));
        const int before = layout.totalHeight();
        actionNamed(menu.get(), "hideTrack")->trigger();
        QVERIFY(layout.isTrackHidden(track));
        QVERIFY(!layout.rows()[size_t(layout.rowOfTrack(track))].visible);
        QVERIFY(layout.totalHeight() < before);
        std::unique_ptr<QMenu> again(
            view->contextMenuAt(QPoint(10, view->viewport()->height() / 2), nullptr));
        QVERIFY(again);
        QAction* show = actionNamed(again.get(), "showHidden");
        QVERIFY(show);
        QVERIFY(show->text().contains(QStringLiteral("1 Hidden")));
        show->trigger();
        QVERIFY(!layout.isTrackHidden(track));
        QCOMPARE(layout.totalHeight(), before);

        pos = pointOnSlice(view, TrackKind::GpuStream, &hit);
        std::unique_ptr<QMenu> pinMenu(view->contextMenuAt(pos, nullptr));
        actionNamed(pinMenu.get(), "pinTrack")->trigger();
        QVERIFY(layout.groups().front().pinned);
        QCOMPARE(layout.rows()[size_t(layout.groups().front().rows.front())].track, hit.slice.track);
        QCOMPARE(layout.rowOfTrack(hit.slice.track), 1); // right under the Pinned header
        // Unpinning puts it back where it was.
        const QPoint top = pointOnSlice(view, TrackKind::GpuStream, &hit);
        QCOMPARE(hit.slice.track, track);
        std::unique_ptr<QMenu> unpin(view->contextMenuAt(top, nullptr));
        QVERIFY(actionNamed(unpin.get(), "pinTrack")->text().contains(QStringLiteral("Unpin")));
        actionNamed(unpin.get(), "pinTrack")->trigger();
        QVERIFY(!layout.groups().front().pinned);
    }

    void rightClickOpensTheMenu()
    {
        TimelineView* view = m_opened.window->timeline();
        const QPoint pos = pointOnSlice(view, TrackKind::CpuThread);
        QVERIFY(pos.x() >= 0);
        QContextMenuEvent e(QContextMenuEvent::Mouse, pos, view->viewport()->mapToGlobal(pos));
        QApplication::sendEvent(view->viewport(), &e);
        QTRY_VERIFY(QApplication::activePopupWidget());
        auto* popup = qobject_cast<QMenu*>(QApplication::activePopupWidget());
        QVERIFY(popup);
        QCOMPARE(popup->objectName(), QStringLiteral("timelineContextMenu"));
        popup->close();
    }

    void tableRowMenusCopyFindAndShow()
    {
        MainWindow* w = m_opened.window.get();
        int tables = 0;
        for (QTableView* t : w->findChildren<QTableView*>()) {
            if (t->model()->rowCount() == 0) continue;
            // Rows with a name (a memory block's "Allocated by" may be empty) can be found.
            bool findable = false;
            for (int r = 0; r < std::min(t->model()->rowCount(), 200) && !findable; ++r) {
                std::unique_ptr<QMenu> menu(rowContextMenu(t, t->model()->index(r, 0), nullptr));
                QVERIFY(menu);
                QVERIFY(actionNamed(menu.get(), "copyName"));
                findable = actionNamed(menu.get(), "findInTimeline");
            }
            QVERIFY2(findable, qPrintable(t->model()->headerData(0, Qt::Horizontal).toString()));
            ++tables;
        }
        QVERIFY(tables >= 4);

        QTableView* ops = w->operatorPanel()->findChild<QTableView*>();
        QModelIndex first;
        for (int r = 0; r < ops->model()->rowCount() && !first.isValid(); ++r)
            if (ops->model()->index(r, 0).data().toString().startsWith(u"aten::"))
                first = ops->model()->index(r, 0);
        QVERIFY(first.isValid());
        std::unique_ptr<QMenu> menu(rowContextMenu(ops, first, nullptr));
        actionNamed(menu.get(), "copyName")->trigger();
        QCOMPARE(QApplication::clipboard()->text(), first.data().toString());
        actionNamed(menu.get(), "copyRow")->trigger();
        QCOMPARE(QApplication::clipboard()->text().count(u'\t'), ops->model()->columnCount() - 1);
        QVERIFY(QApplication::clipboard()->text().startsWith(first.data().toString()));

        QSignalSpy found(w, &MainWindow::searchFinished);
        actionNamed(menu.get(), "findInTimeline")->trigger();
        QVERIFY(found.wait(60000));
        QVERIFY(found.last().at(0).toInt() >= 1);

        // The Overview's kernel table shows its kernel in the GPU kernels table.
        QTableView* kernels = nullptr;
        for (QTableView* t : w->overviewPage()->findChildren<QTableView*>())
            if (t->model()->headerData(0, Qt::Horizontal).toString() == QStringLiteral("Kernel")) kernels = t;
        QVERIFY(kernels && kernels->model()->rowCount() > 0);
        std::unique_ptr<QMenu> km(rowContextMenu(kernels, kernels->model()->index(0, 0), nullptr));
        actionNamed(km.get(), "showInTable")->trigger();
        QCOMPARE(w->findChild<QTabWidget*>()->currentWidget(), static_cast<QWidget*>(w->kernelPanel()));
        QVERIFY(w->kernelPanel()->proxy()->rowCount() >= 1);
        w->kernelPanel()->setFilterText(QString());
    }

private:
    test::OpenedWindow m_opened;
};

QTEST_MAIN(TestContextMenus)
#include "tst_contextmenus.moc"
