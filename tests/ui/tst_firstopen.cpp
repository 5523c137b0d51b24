// What a new user meets on opening a trace: keys that work wherever the focus is, a layout that
// gives the timeline the room, docks that stay put, and deep Python stacks folded so the operators
// and GPU streams are on the first screen.

#include "openedwindow.h"
#include "ui/memory/memorychartview.h"
#include "ui/memory/memoryview.h"
#include "ui/panels/operatorpanel.h"
#include "ui/timeline/timelinemetrics.h"
#include "ui/timeline/timelineview.h"
#include "ui/util/theme.h"

#include <QAction>
#include <QChart>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QGraphicsScene>
#include <QGraphicsTextItem>
#include <QImage>
#include <QLineEdit>
#include <QRegularExpression>
#include <QSettings>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>
#include <QTest>

using namespace ks;
using namespace ks::ui;

namespace {

const char* kQwen = "AMD-AGI_TraceLens__tests__traces__h100__Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz";
const char* kMi300 = "AMD-AGI_TraceLens__tests__traces__mi300__ddp_resnet18_no_pool__train_resnet18.json.gz";
const char* kBert = "AMD-AGI_TraceLens__tests__traces__h100__gaunernst_bert-small-uncased__1016001.json.gz";

test::OpenedWindow open(const char* name)
{
    test::OpenedWindow o =
        test::openSharedTrace(name, &MainWindow::operatorPanel, &OperatorPanel::summaryReady);
    if (o.window) {
        o.window->activateWindow();
        QCoreApplication::processEvents();
    }
    return o;
}

} // namespace

class TestFirstOpen : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("KinetoscopeTests"));
        QSettings().clear();
    }

    void zoomKeyPressedInATableStillZoomsTheTimeline()
    {
        test::OpenedWindow o = open(kQwen);
        QVERIFY(o.doc);
        TimelineView* tl = o.window->timeline();
        QTableView* table = o.window->operatorPanel()->findChild<QTableView*>();
        QVERIFY(table);
        table->setFocus();
        QCOMPARE(QApplication::focusWidget(), table);
        const TimeNs before = tl->window().span();
        QTest::keyClick(table, Qt::Key_W);
        QVERIFY2(tl->window().span() < before, "W in a table did not zoom the timeline");
        const TimeNs zoomed = tl->window().span();
        QTest::keyClick(table, Qt::Key_D);
        QCOMPARE(tl->window().span(), zoomed);
        QTest::keyClick(table, Qt::Key_Home);
        QCOMPARE(tl->window().span(), before);
        // The table keeps its own keys with modifiers.
        QTest::keyClick(table, Qt::Key_W, Qt::ControlModifier);
        QCOMPARE(tl->window().span(), before);
    }

    void keyTypedIntoATextFieldDoesNotMoveTheTimeline()
    {
        test::OpenedWindow o = open(kQwen);
        QVERIFY(o.doc);
        TimelineView* tl = o.window->timeline();
        auto* edit = o.window->operatorPanel()->findChild<QLineEdit*>();
        QVERIFY(edit);
        edit->setFocus();
        QCOMPARE(QApplication::focusWidget(), edit);
        const TimeWindow before = tl->window();
        QTest::keyClicks(edit, QStringLiteral("wasd"));
        QTest::keyClick(edit, Qt::Key_Home);
        QCOMPARE(edit->text(), QStringLiteral("wasd"));
        QCOMPARE(tl->window().t0, before.t0);
        QCOMPARE(tl->window().t1, before.t1);
    }

    void homeOnTheMemoryTabFitsTheTimelineAndLeavesTheDeviceCombo()
    {
        test::OpenedWindow o = open(kQwen);
        QVERIFY(o.doc);
        MemoryView* memory = o.window->memoryView();
        auto* tabs = o.window->findChild<QTabWidget*>();
        QVERIFY(tabs);
        tabs->setCurrentWidget(memory);
        QComboBox* devices = memory->deviceSelector();
        QVERIFY(devices);
        QVERIFY2(devices->count() >= 2, "the trace has host and device memory");
        devices->setCurrentIndex(devices->count() - 1);
        const QString chosen = devices->currentText();
        TimelineView* tl = o.window->timeline();
        tl->zoomBy(0.25);
        const TimeNs zoomed = tl->window().span();
        devices->setFocus();
        QCOMPARE(QApplication::focusWidget(), devices);
        QTest::keyClick(devices, Qt::Key_Home);
        QCOMPARE(devices->currentText(), chosen);
        QVERIFY(tl->window().span() > zoomed);
        // The timeline's letters go to the timeline, not to the combo's type-ahead.
        tl->zoomBy(0.25);
        const TimeNs again = tl->window().span();
        QTest::keyClick(devices, Qt::Key_S);
        QCOMPARE(devices->currentText(), chosen);
        QVERIFY(tl->window().span() > again);
    }

    void memoryAxisLabelsAreNumbersWithUnitsAtTheDefaultSize()
    {
        test::OpenedWindow o = open(kQwen);
        QVERIFY(o.doc);
        auto* tabs = o.window->findChild<QTabWidget*>();
        MemoryView* memory = o.window->memoryView();
        tabs->setCurrentWidget(memory);
        QVERIFY(memory->hasMemory());
        MemoryChartView* chart = memory->chartView();
        QTRY_VERIFY_WITH_TIMEOUT(chart->isVisible() && chart->height() > 0, 5000);
        QCoreApplication::processEvents();
        QString dir = qEnvironmentVariable("KS_SCREENSHOT_DIR");
        if (dir.isEmpty()) dir = QStringLiteral(KS_BINARY_DIR "/tests/screenshots");
        QDir().mkpath(dir);
        QVERIFY(o.window->grab().save(dir + QStringLiteral("/first-open-memory-tab.png")));
        const QRectF plot = chart->chart()->plotArea();
        QStringList labels;
        const QList<QGraphicsItem*> items = chart->scene()->items();
        for (QGraphicsItem* item : items) {
            auto* text = dynamic_cast<QGraphicsTextItem*>(item);
            if (!text || !text->isVisible() || text->toPlainText().isEmpty()) continue;
            const QRectF r = text->sceneBoundingRect();
            // Left of the plot and beside it: the y axis's tick labels.
            if (r.right() <= plot.left() + 1 && r.center().y() >= plot.top() - 8 &&
                r.center().y() <= plot.bottom() + 8)
                labels << text->toPlainText();
        }
        QVERIFY2(labels.size() >= 3, qPrintable(labels.join(QLatin1Char('|')) +
                                                QStringLiteral(" chart height %1").arg(chart->height())));
        static const QRegularExpression number(QStringLiteral("^\\d+(\\.\\d+)? (B|KiB|MiB|GiB)$"));
        for (const QString& l : labels)
            QVERIFY2(number.match(l).hasMatch(),
                     qPrintable(QStringLiteral("label '%1' of %2").arg(l, labels.join(QLatin1Char('|')))));
    }

    // The window can be made 1024×600 whatever was shown: every Analysis tab filled, a row of each
    // table selected, light and dark (it had grown to 1339 px after the Overview and others).
    void minimumSizeStaysWithin1024x600InEveryState_data()
    {
        QTest::addColumn<QString>("trace");
        QTest::addColumn<bool>("dark");
        QTest::newRow("qwen light") << QString::fromLatin1(kQwen) << false;
        QTest::newRow("mi300 dark") << QString::fromLatin1(kMi300) << true;
    }
    void minimumSizeStaysWithin1024x600InEveryState()
    {
        QFETCH(QString, trace);
        QFETCH(bool, dark);
        Theme::instance().setScheme(dark ? Theme::Scheme::Dark : Theme::Scheme::Light);
        test::OpenedWindow o = open(trace.toLatin1().constData());
        QVERIFY(o.doc);
        auto* tabs = o.window->findChild<QTabWidget*>();
        QVERIFY(tabs);
        auto widest = [&] {
            QStringList out;
            for (QWidget* w : o.window->findChildren<QWidget*>())
                if (w->minimumSizeHint().width() > 520)
                    out << QStringLiteral("%1(%2) %3")
                               .arg(QString::fromLatin1(w->metaObject()->className()), w->objectName())
                               .arg(w->minimumSizeHint().width());
            return out.join(QStringLiteral("; "));
        };
        for (int i = 0; i < tabs->count(); ++i) {
            tabs->setCurrentIndex(i);
            QTest::qWait(400);
            for (QTableView* t : tabs->widget(i)->findChildren<QTableView*>())
                if (t->isVisible() && t->model() && t->model()->rowCount() > 0) t->selectRow(0);
            QTest::qWait(200);
            const QSize min = o.window->minimumSizeHint();
            QVERIFY2(min.width() <= 1024 && min.height() <= 600,
                     qPrintable(QStringLiteral("tab %1: %2×%3; %4")
                                    .arg(tabs->tabText(i))
                                    .arg(min.width())
                                    .arg(min.height())
                                    .arg(widest())));
        }
        o.window->resize(1024, 600);
        QTest::qWait(100);
        QCOMPARE(o.window->width(), 1024);
        Theme::instance().setScheme(Theme::Scheme::Light);
    }

    void docksAreLockedByDefaultAndTheMenuUnlocksThem()
    {
        test::OpenedWindow o = open(kQwen);
        QVERIFY(o.doc);
        const QList<QDockWidget*> docks = o.window->findChildren<QDockWidget*>();
        QVERIFY(docks.size() >= 3);
        for (QDockWidget* d : docks) {
            QVERIFY2(!(d->features() & QDockWidget::DockWidgetFloatable), qPrintable(d->objectName()));
            QVERIFY2(!(d->features() & QDockWidget::DockWidgetMovable), qPrintable(d->objectName()));
        }
        auto* lock = o.window->findChild<QAction*>(QStringLiteral("lockPanelsAction"));
        QVERIFY(lock);
        QVERIFY(lock->isChecked());
        lock->setChecked(false);
        for (QDockWidget* d : docks)
            QVERIFY(d->features() & QDockWidget::DockWidgetFloatable);
        QVERIFY(!QSettings().value(QStringLiteral("layout/lockPanels")).toBool());
        lock->setChecked(true);
        for (QDockWidget* d : docks)
            QVERIFY(!(d->features() & QDockWidget::DockWidgetFloatable));
    }

    void timelineGetsMostOfTheHeight()
    {
        test::OpenedWindow o = open(kQwen);
        QVERIFY(o.doc);
        auto* analysis = o.window->findChild<QDockWidget*>(QStringLiteral("analysisDock"));
        QVERIFY(analysis);
        QTRY_VERIFY_WITH_TIMEOUT(o.window->timeline()->height() > 0, 5000);
        const int tl = o.window->timeline()->height();
        QVERIFY2(
            analysis->height() * 100 / o.window->height() <= 38,
            qPrintable(QStringLiteral("analysis %1 of %2").arg(analysis->height()).arg(o.window->height())));
        QVERIFY2(tl > analysis->height() * 3 / 2,
                 qPrintable(QStringLiteral("timeline %1, analysis %2").arg(tl).arg(analysis->height())));
    }

    void deepPythonStacksOpenFoldedAndGpuStreamsAreOnTheFirstScreen_data()
    {
        QTest::addColumn<QString>("file");
        QTest::newRow("h100 qwen") << QString::fromLatin1(kQwen);
        QTest::newRow("h100 bert") << QString::fromLatin1(kBert);
        QTest::newRow("mi300 ddp") << QString::fromLatin1(kMi300);
    }
    void deepPythonStacksOpenFoldedAndGpuStreamsAreOnTheFirstScreen()
    {
        QFETCH(QString, file);
        test::OpenedWindow o = open(file.toLatin1().constData());
        QVERIFY(o.doc);
        TimelineView* tl = o.window->timeline();
        const Trace& t = *o.doc->trace;
        const TrackLayout& layout = tl->renderer().layout();
        int folded = 0;
        for (const TrackLayout::Row& r : layout.rows()) {
            if (r.kind != TrackLayout::RowKind::Slices || r.foldedLevels == 0) continue;
            ++folded;
            QVERIFY(!r.stackUnfolded);
            const CondensedTrack* c = o.doc->condensedTrack(r.track);
            QVERIFY(c);
            QVERIFY(c->hiddenCount() > 0);
            // Drawn from the condensed copy: no Python frame below the third Python level.
            const SliceTrack& st = c->track();
            std::vector<int> python(st.levelCount() + 1, 0);
            for (size_t i = 0; i < st.size(); ++i) {
                const int d = st.depth(i);
                const int parent = d > 0 ? python[size_t(d - 1)] : 0;
                const bool isPython = t.kindOf(st.category(i)) == EventKind::PythonFunction;
                QVERIFY(!isPython || parent < CondensedTrack::kDefaultPythonDepth);
                python[size_t(d)] = parent + (isPython ? 1 : 0);
            }
            QVERIFY(r.depthCount < int(t.slices(r.track).levelCount()));
        }
        QVERIFY2(folded > 0, "the trace's main thread has a deep Python stack");
        // The first device's streams start within the first screen height.
        const int viewHeight = tl->viewport()->height() - tl->renderer().headerHeight();
        int streams = 0;
        const auto gpu = std::find_if(layout.groups().begin(), layout.groups().end(),
                                      [](const TrackLayout::Group& g) { return g.gpu; });
        QVERIFY(gpu != layout.groups().end());
        for (int ri : gpu->rows) {
            const TrackLayout::Row& r = layout.rows()[size_t(ri)];
            if (r.kind != TrackLayout::RowKind::Slices || t.track(r.track).kind != TrackKind::GpuStream)
                continue;
            QVERIFY2(r.visible && r.y + metrics::kSliceRowHeight <= viewHeight,
                     qPrintable(QStringLiteral("stream row at %1, view %2").arg(r.y).arg(viewHeight)));
            if (++streams == 3) break;
        }
        QVERIFY(streams > 0);
    }

    // The default layout in both schemes, saved to $KS_SCREENSHOT_DIR (or the build tree) for a
    // look; the whole window follows the scheme (no light panel left in the dark one).
    void defaultLayoutScreenshotsInLightAndDark_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("shot");
        QTest::newRow("h100 qwen") << QString::fromLatin1(kQwen) << QStringLiteral("h100-qwen");
        QTest::newRow("mi300 ddp") << QString::fromLatin1(kMi300) << QStringLiteral("mi300-ddp");
        QTest::newRow("b200 eager") << QStringLiteral(
                                           "AMD-AGI_TraceLens__tests__traces__b200__eager_trace.json.gz")
                                    << QStringLiteral("b200-eager");
    }
    void defaultLayoutScreenshotsInLightAndDark()
    {
        QFETCH(QString, file);
        QFETCH(QString, shot);
        QString dir = qEnvironmentVariable("KS_SCREENSHOT_DIR");
        if (dir.isEmpty()) dir = QStringLiteral(KS_BINARY_DIR "/tests/screenshots");
        QDir().mkpath(dir);
        for (const bool dark : {false, true}) {
            Theme::instance().setScheme(dark ? Theme::Scheme::Dark : Theme::Scheme::Light);
            test::OpenedWindow o = open(file.toLatin1().constData());
            QVERIFY(o.doc);
            o.window->resize(1600, 1000);
            QTest::qWait(200);
            const QImage img = o.window->grab().toImage();
            QVERIFY(
                img.save(dir + QStringLiteral("/first-open-%1-%2.png").arg(shot, dark ? u"dark" : u"light")));
            // Mean lightness of the docks' area (right column and bottom band).
            double sum = 0;
            int n = 0;
            for (int y = img.height() * 3 / 4; y < img.height() - 30; y += 5)
                for (int x = 0; x < img.width(); x += 5, ++n)
                    sum += QColor(img.pixel(x, y)).lightnessF();
            for (int y = 60; y < img.height() * 3 / 4; y += 5)
                for (int x = img.width() * 4 / 5; x < img.width(); x += 5, ++n)
                    sum += QColor(img.pixel(x, y)).lightnessF();
            const double mean = sum / n;
            QVERIFY2(dark ? mean < 0.4 : mean > 0.6, qPrintable(QString::number(mean)));
        }
        Theme::instance().setScheme(Theme::Scheme::System);
    }

    void unfoldingAStackIsRememberedForTheNextTrace()
    {
        {
            test::OpenedWindow o = open(kQwen);
            QVERIFY(o.doc);
            TimelineView* tl = o.window->timeline();
            const auto& rows = tl->renderer().layout().rows();
            int row = -1;
            for (size_t i = 0; i < rows.size(); ++i)
                if (rows[i].foldedLevels > 0) row = int(i);
            QVERIFY(row >= 0);
            const int before = tl->renderer().layout().totalHeight();
            // A click on the track's label unfolds it.
            const TrackLayout::Row& r = rows[size_t(row)];
            const QPoint label(60, tl->renderer().headerHeight() + r.y + r.height / 2);
            QTest::mouseClick(tl->viewport(), Qt::LeftButton, {}, label);
            QVERIFY(rows[size_t(row)].stackUnfolded);
            QCOMPARE(tl->renderer().layout().totalHeight(),
                     before + rows[size_t(row)].foldedLevels * metrics::kSliceRowHeight);
            QVERIFY(TimelineView::stacksUnfoldedByDefault());
        }
        {
            test::OpenedWindow o = open(kBert);
            QVERIFY(o.doc);
            bool any = false;
            for (const TrackLayout::Row& r : o.window->timeline()->renderer().layout().rows())
                if (r.foldedLevels > 0) {
                    any = true;
                    QVERIFY(r.stackUnfolded);
                }
            QVERIFY(any);
            // View > Unfold Python Stacks, checked since the click above, folds them all again.
            auto* unfold = o.window->findChild<QAction*>(QStringLiteral("unfoldStacksAction"));
            QVERIFY(unfold);
            QVERIFY(unfold->isChecked());
            unfold->trigger();
            QVERIFY(!TimelineView::stacksUnfoldedByDefault());
            for (const TrackLayout::Row& r : o.window->timeline()->renderer().layout().rows())
                QVERIFY(!r.stackUnfolded);
        }
    }
};

QTEST_MAIN(TestFirstOpen)
#include "tst_firstopen.moc"
