// Offscreen screenshots of the context menus, the Preferences dialog and File > Export: each is
// checked for what it must show, and written to $KS_SHOT_DIR (when set) for a person to look at.

#include "openedwindow.h"
#include "ui/mainwindow/exportmenu.h"
#include "ui/mainwindow/preferencesdialog.h"
#include "ui/overview/overviewpage.h"
#include "ui/panels/operatorpanel.h"
#include "ui/timeline/timelinehittest.h"
#include "ui/timeline/timelineview.h"
#include "ui/util/preferences.h"
#include "ui/util/tablecontextmenu.h"

#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QMenu>
#include <QMenuBar>
#include <QPainter>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

using namespace ks;
using namespace ks::ui;

namespace {

const char* kBert = "AMD-AGI_TraceLens__tests__traces__h100__gaunernst_bert-small-uncased__1016001.json.gz";

// Every action's text fits the menu: no entry is cut (menus size to their widest entry).
void checkMenuFits(QMenu* menu)
{
    const QFontMetrics fm(menu->font());
    for (QAction* a : menu->actions()) {
        if (a->isSeparator()) continue;
        const QRect r = menu->actionGeometry(a);
        QVERIFY2(r.width() > fm.horizontalAdvance(QString(a->text()).remove(u'&')), qPrintable(a->text()));
        QVERIFY(menu->rect().contains(r));
    }
}

} // namespace

class TestViewerShots : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("KinetoscopeTests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_viewershots"));
        const QByteArray dir = qgetenv("KS_SHOT_DIR");
        m_out = dir.isEmpty() ? m_tmp.path() : QString::fromLocal8Bit(dir);
        QVERIFY(QDir().mkpath(m_out));
        m_opened = test::openSharedTrace(kBert, &MainWindow::overviewPage, &OverviewPage::computed);
        QVERIFY(m_opened.doc);
        m_opened.window->move(0, 0);
        const QTableView* ops = m_opened.window->operatorPanel()->findChild<QTableView*>();
        QTRY_VERIFY_WITH_TIMEOUT(ops->model()->rowCount() > 0, 60000);
        QCoreApplication::processEvents();
    }
    void cleanupTestCase() { m_opened.window.reset(); }

    void timelineSliceMenu()
    {
        TimelineView* view = m_opened.window->timeline();
        view->fitAll();
        const TimelineCoords c = view->renderer().coords(view->viewport()->size(), view->state());
        QPoint pos(-1, -1);
        for (int y = c.headerHeight + 2; y < view->viewport()->height() && pos.x() < 0; y += 3)
            for (int x = c.trackLeft() + 100; x < view->viewport()->width(); x += 2)
                if (const TimelineHit hit = hitTest(view->renderer(), c, QPoint(x, y));
                    hit.kind == TimelineHit::Kind::Slice &&
                    m_opened.doc->trace
                        ->str(m_opened.doc->trace->slices(hit.slice.track).name(hit.slice.index))
                        .starts_with("aten::")) {
                    pos = QPoint(x, y);
                    break;
                }
        QVERIFY(pos.x() >= 0);
        std::unique_ptr<QMenu> menu(view->contextMenuAt(pos, view));
        QVERIFY(menu);
        menu->popup(view->viewport()->mapToGlobal(pos));
        QVERIFY(QTest::qWaitForWindowExposed(menu.get()));
        checkMenuFits(menu.get());
        save(QStringLiteral("timeline-slice-menu.png"), {menu.get()});
        menu->close();
    }

    void tableRowMenu()
    {
        MainWindow* w = m_opened.window.get();
        w->findChild<QTabWidget*>()->setCurrentWidget(w->operatorPanel());
        QTableView* ops = w->operatorPanel()->findChild<QTableView*>();
        QCoreApplication::processEvents();
        const QRect cell = ops->visualRect(ops->model()->index(1, 0));
        std::unique_ptr<QMenu> menu(rowContextMenu(ops, ops->model()->index(1, 0), ops));
        QVERIFY(menu);
        menu->popup(ops->viewport()->mapToGlobal(cell.center()));
        QVERIFY(QTest::qWaitForWindowExposed(menu.get()));
        checkMenuFits(menu.get());
        save(QStringLiteral("table-row-menu.png"), {menu.get()});
        menu->close();
    }

    void fileExportMenu()
    {
        MainWindow* w = m_opened.window.get();
        QMenu* file = nullptr;
        QAction* fileAction = nullptr;
        for (QAction* a : w->menuBar()->actions())
            if (a->text() == QStringLiteral("&File")) {
                file = a->menu();
                fileAction = a;
            }
        QVERIFY(file);
        file->popup(w->menuBar()->mapToGlobal(w->menuBar()->actionGeometry(fileAction).bottomLeft()));
        QVERIFY(QTest::qWaitForWindowExposed(file));
        ExportMenu* exp = w->exportMenu();
        file->setActiveAction(exp->menuAction());
        const QRect r = file->actionGeometry(exp->menuAction());
        QMetaObject::invokeMethod(exp, "aboutToShow");
        exp->popup(file->mapToGlobal(r.topRight()));
        QVERIFY(QTest::qWaitForWindowExposed(exp));
        checkMenuFits(file);
        checkMenuFits(exp);
        int enabled = 0;
        for (QAction* a : exp->actions())
            enabled += !a->isSeparator() && a->isEnabled();
        QCOMPARE(enabled, int(exportFormats().size()));
        save(QStringLiteral("file-export-menu.png"), {file, exp});
        exp->close();
        file->close();
    }

    void preferencesDialog()
    {
        PreferencesDialog d(m_opened.window.get());
        d.show();
        QVERIFY(QTest::qWaitForWindowExposed(&d));
        const QImage img = d.grab().toImage();
        QVERIFY(!img.isNull());
        QVERIFY(img.width() >= 520);
        QVERIFY(img.save(QDir(m_out).filePath(QStringLiteral("preferences-dialog.png"))));
        d.devicePeakBox()->setEditText(QStringLiteral("bf16=fast"));
        QCoreApplication::processEvents();
        QVERIFY(
            d.grab().toImage().save(QDir(m_out).filePath(QStringLiteral("preferences-dialog-bad-peak.png"))));
        d.reject();
    }

    void darkOverview()
    {
        MainWindow* w = m_opened.window.get();
        w->findChild<QTabWidget*>()->setCurrentWidget(w->overviewPage());
        Preferences::instance().setScheme(Theme::Scheme::Dark);
        QCoreApplication::processEvents();
        QVERIFY(Theme::instance().isDark());
        // The widgets took the dark palette too.
        QVERIFY(w->palette().color(QPalette::Window).lightness() < 100);
        save(QStringLiteral("dark-overview.png"), {});
        Preferences::instance().setScheme(Theme::Scheme::System);
    }

private:
    // The window with the given popups painted where they are on screen.
    void save(const QString& name, const QList<QWidget*>& popups)
    {
        MainWindow* w = m_opened.window.get();
        QImage img = w->grab().toImage();
        QVERIFY(!img.isNull());
        QPainter p(&img);
        for (QWidget* popup : popups) {
            const QPoint at = w->mapFromGlobal(popup->mapToGlobal(QPoint(0, 0)));
            p.drawPixmap(at, popup->grab());
            p.setPen(QColor(0, 0, 0, 90));
            p.drawRect(QRect(at, popup->size()).adjusted(0, 0, -1, -1));
        }
        p.end();
        QVERIFY(img.save(QDir(m_out).filePath(name)));
    }

    test::OpenedWindow m_opened;
    QTemporaryDir m_tmp;
    QString m_out;
};

QTEST_MAIN(TestViewerShots)
#include "tst_viewershots.moc"
