// The Modules tab (ui/modules): the module tree of a torch 2.x trace as TensorBoard's Module view
// shows it, sortable by value, a click marks exactly the module's ranges, and a trace without
// module ranges says how to get them. The tree is a ModuleTreeModel (the table-model base's tree
// form) behind a sorting proxy, built off the GUI thread.
#include "../core/liveframes.h"
#include "sharedtraces.h"
#include "ui/document/tracedocument.h"
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

// The expanded rows, each as its module names joined by '/', sorted.
QStringList expandedPaths(const ModuleView& v)
{
    QStringList out;
    std::vector<std::pair<QModelIndex, QString>> todo{{QModelIndex(), QString()}};
    while (!todo.empty()) {
        const auto [parent, path] = todo.back();
        todo.pop_back();
        for (int r = 0; r < v.proxy()->rowCount(parent); ++r) {
            const QModelIndex i = v.proxy()->index(r, 0, parent);
            const QString p =
                path.isEmpty() ? i.data().toString() : path + QLatin1Char('/') + i.data().toString();
            if (v.tree()->isExpanded(i)) out << p;
            todo.emplace_back(i, p);
        }
    }
    out.sort();
    return out;
}

// The row of a path of module names (invalid when there is none).
QModelIndex rowAt(const ModuleView& v, const QString& path)
{
    QModelIndex at;
    for (const QString& name : path.split(QLatin1Char('/'))) {
        const QModelIndexList found =
            v.proxy()->match(v.proxy()->index(0, 0, at), Qt::DisplayRole, name, 1, Qt::MatchExactly);
        if (found.isEmpty()) return {};
        at = found.first();
    }
    return at;
}

} // namespace

class TestModuleView : public QObject {
    Q_OBJECT
private slots:
    void bertModules();
    void noModules();
    void perStepAndRange();
    void liveRefreshKeepsExpandedRows();
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

// A live session's document grows and the tab rebuilds (refreshGrowing): the new tree comes with
// the rows the user expanded and collapsed as they were, found by their module paths, not the
// first tree's two open levels; one with every row collapsed stays so; the first tree with modules
// after an empty one opens two levels. Fed as a live session does
// (LiveIngest), without Python, as tst_flameview::liveDocumentGrows does.
void TestModuleView::liveRefreshKeepsExpandedRows()
{
    auto doc = std::make_shared<TraceDocument>();
    doc->trace = std::make_unique<Trace>();
    live::LiveIngest in(*doc->trace);
    const live::LiveIngest::ConnId c = in.open(4242);
    QCOMPARE(test::feedFrames(in, c,
                              test::helloFrames(4242, {{1, "train_step"},
                                                       {2, "nn.Module: Net_0"},
                                                       {3, "nn.Module: Encoder_0"},
                                                       {4, "nn.Module: Layer_0"},
                                                       {5, "nn.Module: Linear_0"},
                                                       {6, "nn.Module: Head_0"},
                                                       {7, "nn.Module: Linear_1"},
                                                       {8, "aten::mm"}})),
             std::string());
    // One step: train_step ⊃ Net_0 [10, 900) ⊃ (Encoder_0 ⊃ Layer_0 ⊃ Linear_0 ⊃ aten::mm) then
    // (Head_0 ⊃ Linear_1 ⊃ aten::mm).
    auto step = [&](int64_t t0) {
        using record::RecordType;
        using record::RangeCategory;
        auto begin = [t0](int64_t t, uint32_t name, RangeCategory cat = RangeCategory::PythonFunction) {
            return live::WireRecord{t0 + t, uint8_t(RecordType::Begin), uint8_t(cat), 0, name, 0, 0};
        };
        auto end = [t0](int64_t t) { return test::wireRecord(t0 + t, RecordType::End); };
        return test::feedFrames(
            in, c,
            test::eventFrames(7, {begin(0, 1, RangeCategory::UserAnnotation), begin(10, 2), begin(20, 3),
                                  begin(30, 4), begin(40, 5), begin(50, 8, RangeCategory::CpuOp), end(100),
                                  end(110), end(120), end(130), begin(200, 6), begin(210, 7),
                                  begin(220, 8, RangeCategory::CpuOp), end(300), end(310), end(400), end(900),
                                  end(1000)}));
    };
    // The session's first step ran no module: its tree is empty.
    QCOMPARE(test::feedFrames(
                 in, c,
                 test::eventFrames(7, {live::WireRecord{10, uint8_t(record::RecordType::Begin),
                                                        uint8_t(record::RangeCategory::CpuOp), 0, 8, 0, 0},
                                       test::wireRecord(20, record::RecordType::End)})),
             std::string());

    ModuleView view;
    view.resize(800, 600);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.setDocument(doc, true);
    QVERIFY(waitBuilt(view));
    QVERIFY(view.modules()->empty());
    QCOMPARE(step(1'000'000), std::string());
    view.refreshGrowing();
    QVERIFY(view.isBuilding());
    QVERIFY(waitBuilt(view));
    // The first tree with modules opens two levels, as a new tree does.
    QCOMPARE(expandedPaths(view), (QStringList{QStringLiteral("Net_0"), QStringLiteral("Net_0/Encoder_0"),
                                               QStringLiteral("Net_0/Head_0")}));
    // The user closes Head_0 and opens Layer_0, a level deeper.
    view.tree()->collapse(rowAt(view, QStringLiteral("Net_0/Head_0")));
    view.tree()->expand(rowAt(view, QStringLiteral("Net_0/Encoder_0/Layer_0")));
    const QStringList chosen{QStringLiteral("Net_0"), QStringLiteral("Net_0/Encoder_0"),
                             QStringLiteral("Net_0/Encoder_0/Layer_0")};
    QCOMPARE(expandedPaths(view), chosen);

    const ModuleTree* first = view.modules();
    QCOMPARE(first->node(0).host, TimeNs(890));
    QCOMPARE(step(2'000'000), std::string());
    view.refreshGrowing();
    QVERIFY(view.isBuilding());
    QVERIFY(waitBuilt(view));
    QVERIFY(view.modules() != first); // a newer tree, with both steps
    QCOMPARE(view.modules()->node(0).host, TimeNs(2 * 890));
    QCOMPARE(expandedPaths(view), chosen);

    // Everything closed stays closed.
    view.tree()->collapseAll();
    QCOMPARE(step(3'000'000), std::string());
    view.refreshGrowing();
    QVERIFY(view.isBuilding());
    QVERIFY(waitBuilt(view));
    QCOMPARE(view.modules()->node(0).host, TimeNs(3 * 890));
    QCOMPARE(expandedPaths(view), QStringList());
}

QTEST_MAIN(TestModuleView)
#include "tst_moduleview.moc"
