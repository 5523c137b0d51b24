// The Modules tab (ui/modules): the module tree of a torch 2.x trace as TensorBoard's Module view
// shows it, sortable by value, a click marks exactly the module's ranges, and a trace without
// module ranges says how to get them. The tree is a ModuleTreeModel (the table-model base's tree
// form) behind a sorting proxy, built off the GUI thread.
#include "sharedtraces.h"
#include "ui/modules/moduletreemodel.h"
#include "ui/modules/moduleview.h"

#include <QAbstractItemModelTester>
#include <QLabel>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTest>
#include <QTreeView>

using namespace ks;
using namespace ks::ui;

namespace {

double value(const QModelIndex& row, int column)
{
    return row.siblingAtColumn(column).data(TableModel::SortRole).toDouble();
}

bool waitBuilt(const ModuleView& v)
{
    return QTest::qWaitFor([&v] { return v.modules() && !v.isBuilding(); }, 60000);
}

} // namespace

class TestModuleView : public QObject {
    Q_OBJECT
private slots:
    void bertModules();
    void noModules();
    void perStepAndRange();
};

void TestModuleView::bertModules()
{
    const auto doc = test::loadSharedDocument(
        "AMD-AGI_TraceLens__tests__traces__h100__gaunernst_bert-small-uncased__1016001.json.gz");
    QVERIFY(doc);
    ModuleView view;
    view.resize(1000, 600);
    QAbstractItemModelTester tester(view.proxy(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    view.setDocument(doc);
    QVERIFY(!view.modules()); // built when first shown
    QVERIFY(!view.isBuilding());
    view.show(); // sends the show event, which starts the build
    // Built on a worker: the tab says so until the modules arrive through the event loop.
    QVERIFY(view.isBuilding());
    QVERIFY(!view.modules());
    QVERIFY2(view.statusText().startsWith(QStringLiteral("Building call tree…")),
             qPrintable(view.statusText()));
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QVERIFY(waitBuilt(view));
    const QAbstractItemModel* m = view.proxy();
    QCOMPARE(m->rowCount(), 1);
    const QModelIndex top = m->index(0, 0);
    QCOMPARE(top.data().toString(), QStringLiteral("BertLMHeadModel_0"));
    QVERIFY(view.tree()->isExpanded(top));
    // Every header says what its column holds.
    for (int c = 0; c < ModuleView::ColumnCount; ++c)
        QVERIFY(!m->headerData(c, Qt::Horizontal, Qt::ToolTipRole).toString().isEmpty());
    // The top module's host time is the whole of its one range.
    const ModuleTree::Node& root = view.modules()->node(view.modules()->node(0).children[0]);
    QCOMPARE(value(top, ModuleView::Host), double(root.host));
    QVERIFY(root.device > 0);
    // Sorting by calls orders by the number, not its text.
    QModelIndex encoder = m->index(0, 0, top);
    while (encoder.isValid() && m->rowCount(encoder) < 2)
        encoder = m->index(0, 0, encoder);
    QVERIFY(encoder.isValid());
    view.tree()->sortByColumn(ModuleView::Calls, Qt::AscendingOrder);
    for (int i = 1; i < m->rowCount(encoder); ++i)
        QVERIFY(value(m->index(i - 1, 0, encoder), ModuleView::Calls) <=
                value(m->index(i, 0, encoder), ModuleView::Calls));
    view.tree()->sortByColumn(ModuleView::Host, Qt::DescendingOrder);
    for (int i = 1; i < m->rowCount(encoder); ++i)
        QVERIFY(value(m->index(i - 1, 0, encoder), ModuleView::Host) >=
                value(m->index(i, 0, encoder), ModuleView::Host));
    // A click marks the module's ranges: as many as its calls, all of its name.
    std::vector<SliceRef> marked;
    QString label;
    connect(&view, &ModuleView::slicesSelected, this, [&](const QString& l, const std::vector<SliceRef>& s) {
        label = l;
        marked = s;
    });
    const QModelIndex item = m->index(0, 0, encoder);
    view.tree()->expand(encoder);
    view.tree()->scrollTo(item);
    QTest::mouseClick(view.tree()->viewport(), Qt::LeftButton, {}, view.tree()->visualRect(item).center());
    QCOMPARE(label, QStringLiteral("nn.Module: ") + item.data().toString());
    QCOMPARE(double(marked.size()), value(item, ModuleView::Calls));
    TimeNs sum = 0;
    for (SliceRef r : marked) {
        const std::string_view name = doc->trace->sliceName(r);
        QCOMPARE(QString::fromUtf8(name.data(), qsizetype(name.size())), label);
        sum += doc->trace->slices(r.track).duration(r.index);
    }
    QCOMPARE(double(sum), value(item, ModuleView::Host));
}

void TestModuleView::noModules()
{
    std::atomic<bool> cancel{false};
    const auto doc =
        loadDocument(QStringLiteral(KS_TEST_DATA_DIR "/flame/torch113_model.json.gz"), cancel, {}).document;
    QVERIFY(doc);
    ModuleView view;
    view.setDocument(doc);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QVERIFY(waitBuilt(view));
    QCOMPARE(view.proxy()->rowCount(), 0);
    QVERIFY(view.findChild<QLabel*>()->text().contains(QStringLiteral("with_stack=True")));
}

// Our torch 2.x run has two steps: per step halves the times; a range of the second step alone
// holds its modules once.
void TestModuleView::perStepAndRange()
{
    std::atomic<bool> cancel{false};
    const auto doc =
        loadDocument(QStringLiteral(KS_TEST_DATA_DIR "/flame/torch2_model.json.gz"), cancel, {}).document;
    QVERIFY(doc);
    ModuleView view;
    view.setDocument(doc);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QVERIFY(waitBuilt(view));
    const QAbstractItemModel* m = view.proxy();
    QModelIndex net = m->index(0, 0);
    QCOMPARE(net.data().toString(), QStringLiteral("Net_0"));
    const double calls = value(net, ModuleView::Calls);
    const double host = value(net, ModuleView::Host);
    QCOMPARE(calls, 2.0);
    // Per step: the numbers change in place (no rebuild).
    view.setPerStep(true);
    QVERIFY(!view.isBuilding());
    QCOMPARE(view.stepCount(), 2);
    net = m->index(0, 0);
    QCOMPARE(value(net, ModuleView::Calls), 1.0);
    QCOMPARE(value(net, ModuleView::Host), double(int64_t(host) / 2));
    view.setPerStep(false);
    const Step& second = doc->trace->steps()[1];
    view.setRange(second.start, second.end);
    QVERIFY(waitBuilt(view));
    net = m->index(0, 0);
    QCOMPARE(value(net, ModuleView::Calls), 1.0);
    QVERIFY(value(net, ModuleView::Host) < host);
    view.clearRange();
    QVERIFY(waitBuilt(view));
    QCOMPARE(value(m->index(0, 0), ModuleView::Host), host);
}

QTEST_MAIN(TestModuleView)
#include "tst_moduleview.moc"
