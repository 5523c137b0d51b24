// The operator (key_averages) table in the main window: rows and text identical to the core summary
// (itself checked against torch), sorting, filtering, top-level-only, grouping by input shape,
// occurrences highlighted in the timeline, CSV export; plus the memory page's wiring.

#include "core/analysis/summary/summaryreport.h"
#include "openedwindow.h"
#include "sharedtraces.h"
#include "ui/document/tracedocument.h"
#include "ui/mainwindow/mainwindow.h"
#include "ui/memory/memoryview.h"
#include "ui/panels/operatorfiltermodel.h"
#include "ui/panels/operatorpanel.h"
#include "ui/panels/operatortablemodel.h"
#include "ui/timeline/timelineview.h"

#include <QAbstractItemModelTester>
#include <QCheckBox>
#include <QFile>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

using namespace ks;
using namespace ks::ui;

namespace {

using test::kQwen;
const char* kCpuOnly =
    "facebookresearch_HolisticTraceAnalysis@b8cce2c__tests__data__cpu_only__rank-34.Jul_15_10_52_41."
    "1074.pt.trace.json.gz";

using Opened = ks::test::OpenedWindow;

Opened open(const char* name)
{
    return ks::test::openSharedTrace(name, &MainWindow::operatorPanel, &OperatorPanel::summaryReady);
}

std::string expectedTable(const Trace& t, bool groupByShape, bool topLevel)
{
    SummaryRequest req;
    req.groupByInputShape = groupByShape;
    const SummaryReport r = buildSummaryReport(t, req);
    TableOptions o = r.table;
    o.rowLimit = -1;
    o.topLevelOnly = topLevel;
    o.sortBy = r.table.useDevice ? SortKey::SelfDeviceTimeTotal : SortKey::CpuTimeTotal;
    return r.format(o);
}

} // namespace

class TestOperatorPanel : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("KinetoscopeTests"));
    }

    void rowsAndTextMatchTheCoreSummary_data()
    {
        QTest::addColumn<QString>("file");
        QTest::newRow("h100 qwen") << QString::fromLatin1(kQwen);
        QTest::newRow("cpu only") << QString::fromLatin1(kCpuOnly);
    }
    void rowsAndTextMatchTheCoreSummary()
    {
        QFETCH(QString, file);
        Opened o = open(file.toLatin1().constData());
        QVERIFY(o.doc);
        OperatorPanel* p = o.window->operatorPanel();
        QAbstractItemModelTester tester(p->proxy(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        const SummaryReport core = buildSummaryReport(*o.doc->trace);
        QCOMPARE(p->model()->rowCount(), int(core.averages.rows().size()));
        QCOMPARE(p->proxy()->rowCount(), int(core.averages.rows().size()));
        // The copied text is torch's table, sorted like the view.
        QCOMPARE(p->tableText().toStdString(), expectedTable(*o.doc->trace, false, false));
        // Top-level only: exactly the rows whose first event had no CPU parent.
        p->setTopLevelOnly(true);
        size_t top = 0;
        for (const KeyAverage& r : core.averages.rows())
            top += r.topLevel ? 1 : 0;
        QCOMPARE(size_t(p->proxy()->rowCount()), top);
        QCOMPARE(p->tableText().toStdString(), expectedTable(*o.doc->trace, false, true));
        p->setTopLevelOnly(false);
        // Name filter, case-insensitive, against a brute-force count.
        p->setFilterText(QStringLiteral("ATEN::"));
        size_t aten = 0;
        for (const KeyAverage& r : core.averages.rows())
            aten += QString::fromStdString(r.key).contains(QStringLiteral("aten::")) ? 1 : 0;
        QCOMPARE(size_t(p->proxy()->rowCount()), aten);
        p->setFilterText({});
    }

    void sortingIsNumericOnEveryColumn()
    {
        Opened o = open(kQwen);
        QVERIFY(o.doc);
        OperatorPanel* p = o.window->operatorPanel();
        for (int c = 1; c < p->model()->columnCount(); ++c) {
            p->table()->sortByColumn(c, Qt::DescendingOrder);
            for (int r = 1; r < p->proxy()->rowCount(); ++r) {
                const QVariant a = p->proxy()->index(r - 1, c).data(OperatorTableModel::SortRole);
                const QVariant b = p->proxy()->index(r, c).data(OperatorTableModel::SortRole);
                if (a.typeId() == QMetaType::QString)
                    QVERIFY(a.toString() >= b.toString());
                else
                    QVERIFY2(a.toDouble() >= b.toDouble(),
                             qPrintable(QStringLiteral("column %1 row %2").arg(c).arg(r)));
            }
        }
    }

    void groupingByInputShapeRecomputes()
    {
        Opened o = open(kQwen);
        QVERIFY(o.doc);
        OperatorPanel* p = o.window->operatorPanel();
        QSignalSpy ready(p, &OperatorPanel::summaryReady);
        p->setGroupByInputShape(true);
        QVERIFY(ready.wait(60000));
        SummaryRequest req;
        req.groupByInputShape = true;
        const SummaryReport core = buildSummaryReport(*o.doc->trace, req);
        QCOMPARE(p->model()->rowCount(), int(core.averages.rows().size()));
        QVERIFY(p->model()->columnOf(OperatorTableModel::Col::InputShapes) >= 0);
        QCOMPARE(p->tableText().toStdString(), expectedTable(*o.doc->trace, true, false));
    }

    // Selecting aten::mm highlights every aten::mm slice; next walks the timeline through them.
    void selectedRowHighlightsItsOccurrences()
    {
        Opened o = open(kQwen);
        QVERIFY(o.doc);
        OperatorPanel* p = o.window->operatorPanel();
        p->setFilterText(QStringLiteral("aten::mm"));
        int row = -1;
        for (int r = 0; r < p->proxy()->rowCount(); ++r)
            if (p->proxy()->index(r, 0).data().toString() == QStringLiteral("aten::mm")) row = r;
        QVERIFY(row >= 0);
        size_t expected = 0;
        const Trace& t = *o.doc->trace;
        for (size_t k = 0; k < t.trackCount(); ++k) {
            const SliceTrack& s = t.slices(TrackId(uint32_t(k)));
            for (size_t i = 0; i < s.size(); ++i)
                expected +=
                    t.str(s.name(i)) == "aten::mm" && t.kindOf(s.category(i)) == EventKind::CpuOp ? 1 : 0;
        }
        QSignalSpy match(o.window->timeline(), &TimelineView::matchChanged);
        p->table()->setCurrentIndex(p->proxy()->index(row, 0));
        QTRY_VERIFY_WITH_TIMEOUT(o.window->timeline()->highlight() != nullptr, 20000);
        QCOMPARE(o.window->timeline()->highlight()->occurrences.size(), expected);
        const int count = p->proxy()
                              ->index(row, p->model()->columnOf(OperatorTableModel::Col::Calls))
                              .data(OperatorTableModel::SortRole)
                              .toInt();
        QCOMPARE(size_t(count), expected); // no duplicate nesting for aten::mm in this trace
        emit p->nextOccurrence();
        QVERIFY(!match.isEmpty());
        const SliceRef cur = o.window->timeline()->state().currentMatch;
        QVERIFY(cur.valid());
        QCOMPARE(t.sliceName(cur), std::string_view("aten::mm"));
    }

    void csvExport()
    {
        Opened o = open(kCpuOnly);
        QVERIFY(o.doc);
        OperatorPanel* p = o.window->operatorPanel();
        QTemporaryDir dir;
        QString err;
        const QString path = dir.filePath(QStringLiteral("ops.csv"));
        QVERIFY2(p->exportTo(path, &err), qPrintable(err));
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QList<QByteArray> lines = f.readAll().split('\n');
        QCOMPARE(lines.size() - 2, p->proxy()->rowCount()); // header + rows + final newline
        QVERIFY(lines[0].startsWith("Name,Self CPU % (us)"));
        const QString txt = dir.filePath(QStringLiteral("ops.txt"));
        QVERIFY(p->exportTo(txt, &err));
        QFile t(txt);
        QVERIFY(t.open(QIODevice::ReadOnly));
        QCOMPARE(QString::fromUtf8(t.readAll()), p->tableText());
    }

    void memoryPageFollowsTheTrace()
    {
        Opened o = open(kQwen);
        QVERIFY(o.doc);
        MemoryView* m = o.window->memoryView();
        QVERIFY(o.doc->memoryTimeline);
        QVERIFY(m->hasMemory());
        QVERIFY(m->explanation().isEmpty());
        Opened c = open(kCpuOnly);
        QVERIFY(c.doc);
        QVERIFY(!c.window->memoryView()->hasMemory());
        QVERIFY(!c.window->memoryView()->explanation().isEmpty());
    }
};

QTEST_MAIN(TestOperatorPanel)
#include "tst_operatorpanel.moc"
