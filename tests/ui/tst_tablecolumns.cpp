// Every table of the main window: header tooltips, columns wide enough for what they show.

#include "openedwindow.h"
#include "ui/mainwindow/logdirmodel.h"
#include "ui/overview/overviewpage.h"
#include "ui/panels/operatorpanel.h"
#include "ui/panels/rangepanel.h"
#include "ui/timeline/timelineview.h"
#include "ui/util/tablewidgets.h"

#include <QHeaderView>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableView>
#include <QTest>

using namespace ks;
using namespace ks::ui;

namespace {

const char* kQwen = "AMD-AGI_TraceLens__tests__traces__h100__Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz";

QString header(const QTableView* t, int c, int role = Qt::DisplayRole)
{
    return t->model()->headerData(c, Qt::Horizontal, role).toString();
}

// Columns whose display text is cut: the text is wider than the column, and the column is not at
// the cap (where eliding is meant). The last column stretches and is left out.
QStringList cutColumns(const QTableView* t)
{
    QStringList out;
    const QAbstractItemModel* m = t->model();
    const QFontMetrics fm = t->fontMetrics();
    const int rows = std::min(m->rowCount(), 40);
    for (int c = 0; c + 1 < m->columnCount(); ++c) {
        if (t->isColumnHidden(c)) continue;
        const int width = t->columnWidth(c);
        if (width >= kMaxFittedColumnWidth) continue;
        int widest = fm.horizontalAdvance(header(t, c));
        QString text;
        for (int r = 0; r < rows; ++r) {
            const QString s = m->index(r, c).data().toString();
            if (fm.horizontalAdvance(s) > widest) {
                widest = fm.horizontalAdvance(s);
                text = s;
            }
        }
        // Cell padding is a few pixels a side in every style.
        if (widest + 6 > width)
            out << QStringLiteral("%1 (%2 px for \"%3\", %4 px wide)")
                       .arg(header(t, c))
                       .arg(widest)
                       .arg(text)
                       .arg(width);
    }
    return out;
}

} // namespace

class TestTableColumns : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("KinetoscopeTests"));
        m_opened = test::openSharedTrace(kQwen, &MainWindow::overviewPage, &OverviewPage::computed);
        QVERIFY(m_opened.doc);
        MainWindow* w = m_opened.window.get();
        const QTableView* ops = w->operatorPanel()->findChild<QTableView*>();
        QVERIFY(ops);
        QTRY_VERIFY_WITH_TIMEOUT(ops->model()->rowCount() > 0, 60000);
        // A range over the whole trace fills the Range selection table.
        auto* range = w->findChild<RangePanel*>();
        QVERIFY(range);
        QSignalSpy computed(range, &RangePanel::computed);
        const Trace& t = *m_opened.doc->trace;
        std::vector<TrackId> tracks;
        for (size_t i = 0; i < t.trackCount(); ++i)
            tracks.push_back(TrackId(uint32_t(i)));
        w->timeline()->setRange(t.startTime(), t.endTime(), tracks);
        QVERIFY(computed.wait(60000));
        QVERIFY(range->model()->rowCount() > 0);
        // Columns are fitted on the next turn of the event loop.
        QCoreApplication::processEvents();
        QCoreApplication::processEvents();
    }
    void cleanupTestCase() { m_opened.window.reset(); }

    void everyColumnHeaderHasATooltip()
    {
        const QList<QTableView*> tables = m_opened.window->findChildren<QTableView*>();
        QVERIFY(tables.size() >= 6); // overview ops and kernels, operators, kernels, memory, range
        int columns = 0;
        for (const QTableView* t : tables) {
            for (int c = 0; c < t->model()->columnCount(); ++c) {
                QVERIFY2(!header(t, c, Qt::ToolTipRole).trimmed().isEmpty(), qPrintable(header(t, c)));
                ++columns;
            }
        }
        QVERIFY(columns > 40);
        LogdirModel logdir;
        for (int c = 0; c < logdir.columnCount(); ++c)
            QVERIFY(!logdir.headerData(c, Qt::Horizontal, Qt::ToolTipRole).toString().isEmpty());
    }

    void selfDevicePercentSaysWhatItIsOf()
    {
        const QTableView* ops = m_opened.window->operatorPanel()->findChild<QTableView*>();
        QVERIFY(ops);
        int col = -1;
        for (int c = 0; c < ops->model()->columnCount(); ++c)
            if (header(ops, c) == QStringLiteral("Self CUDA %")) col = c;
        QVERIFY(col >= 0);
        const QString tip = header(ops, col, Qt::ToolTipRole);
        QVERIFY2(tip.contains(QStringLiteral("exceed 100%")), qPrintable(tip));
        QVERIFY(tip.contains(QStringLiteral("device annotation")));
        QVERIFY(tip.contains(QStringLiteral("Overview")));
    }

    void overHundredPercentRowsComeWithTheExplanation()
    {
        // A trace with device annotations: their rows pass 100%, and the header explains it.
        test::OpenedWindow o = test::openSharedTrace(
            "facebookresearch_HolisticTraceAnalysis__tests__data__with_gpu_user_annotation__step_based_trace_"
            "2543932.json.gz",
            &MainWindow::overviewPage, &OverviewPage::computed);
        QVERIFY(o.doc);
        const QTableView* ops = o.window->operatorPanel()->findChild<QTableView*>();
        QTRY_VERIFY_WITH_TIMEOUT(ops->model()->rowCount() > 0, 60000);
        int col = -1;
        for (int c = 0; c < ops->model()->columnCount(); ++c)
            if (header(ops, c) == QStringLiteral("Self CUDA %")) col = c;
        QVERIFY(col >= 0);
        QVERIFY(header(ops, col, Qt::ToolTipRole).contains(QStringLiteral("exceed 100%")));
        bool over = false;
        for (int r = 0; r < ops->model()->rowCount(); ++r) {
            const QString v = ops->model()->index(r, col).data().toString();
            over |= v.endsWith(u'%') && v.chopped(1).toDouble() > 100;
        }
        QVERIFY(over);
    }

    void columnsAreWideEnoughForTheirContent()
    {
        const QList<QTableView*> tables = m_opened.window->findChildren<QTableView*>();
        int checked = 0;
        for (QTableView* t : tables) {
            if (t->model()->rowCount() == 0) continue;
            const QStringList cut = cutColumns(t);
            QVERIFY2(cut.isEmpty(), qPrintable(cut.join(QStringLiteral("; "))));
            // And no wider than the content asks for (or the cap).
            const QAbstractItemView* view = t;
            for (int c = 0; c + 1 < t->model()->columnCount(); ++c)
                QVERIFY(t->columnWidth(c) <=
                        std::min(kMaxFittedColumnWidth, std::max(view->sizeHintForColumn(c),
                                                                 t->horizontalHeader()->sectionSizeHint(c))));
            ++checked;
        }
        QVERIFY(checked >= 5);
    }

private:
    test::OpenedWindow m_opened;
};

QTEST_MAIN(TestTableColumns)
#include "tst_tablecolumns.moc"
