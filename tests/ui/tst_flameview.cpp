// The flame graph view (ui/flame): frames laid out by the chosen metric, a click names the frame,
// a double click zooms into it, the search highlights and measures, narrow frames merge (LOD) and a
// repaint of a large tree stays within a frame's budget. Trees are built off the GUI thread: the
// view says so meanwhile, and a newer request supersedes a running one.
#include "../core/liveframes.h"
#include "core/analysis/calltree/calltree.h"
#include "core/analysis/calltree/moduletree.h"
#include "core/analysis/timeline/linkindex.h"
#include "core/io/tracereader.h"
#include "sharedtraces.h"
#include "ui/document/tracedocument.h"
#include "ui/flame/flamepanel.h"
#include "ui/flame/flameview.h"
#include "ui/flame/framelinksmodel.h"
#include "ui/flame/sourcepanel.h"
#include "ui/modules/moduleview.h"

#include <QCheckBox>
#include <QComboBox>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTableWidget>
#include <QTest>
#include <QTimer>

using namespace ks;
using namespace ks::ui;

namespace {

std::shared_ptr<TraceDocument> loadDoc(const char* path)
{
    std::atomic<bool> cancel{false};
    return loadDocument(QString::fromUtf8(path), cancel, {}).document;
}

// The build runs on a worker; its tree arrives through the event loop.
bool waitTree(const FlameView& v)
{
    return QTest::qWaitFor([&v] { return v.tree() && !v.isBuilding(); }, 60000);
}

const char* const kBert =
    KS_SHARED_TRACES "/AMD-AGI_TraceLens__tests__traces__h100__gaunernst_bert-small-uncased__1016001.json.gz";

uint32_t firstNamed(const CallTree& t, std::string_view name)
{
    for (uint32_t i = 1; i < t.size(); ++i)
        if (t.frameOf(i).name == name) return i;
    return UINT32_MAX;
}

} // namespace

class TestFlameView : public QObject {
    Q_OBJECT
private slots:
    void buildIsOffTheGuiThread();
    void newerBuildSupersedes();
    void liveDocumentGrows();
    void clickAndZoom();
    void metricAndSearch();
    void byLineAndRange();
    void narrowFramesMerge();
    void panelMarksSlices();
    void sourceOfAFrame();
};

// setDocument() returns before the tree exists: it is built on a worker while the GUI thread keeps
// turning its event loop (a zero-interval timer ticks meanwhile), the view and the panel say
// "Building call tree…", and the tree arrives through the event loop (treeChanged).
void TestFlameView::buildIsOffTheGuiThread()
{
    const auto doc = test::loadSharedDocument(
        "AMD-AGI_TraceLens__tests__traces__h100__gaunernst_bert-small-uncased__1016001.json.gz");
    QVERIFY(doc);
    FlamePanel panel;
    panel.resize(1000, 600);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    FlameView* v = panel.view();
    QSignalSpy changed(v, &FlameView::treeChanged);
    int ticks = 0;
    int ticksAtTree = -1;
    QTimer tick;
    tick.setInterval(0);
    connect(&tick, &QTimer::timeout, this, [&] { ++ticks; });
    connect(v, &FlameView::treeChanged, this, [&] { ticksAtTree = ticks; });
    tick.start();
    panel.setDocument(doc);
    QVERIFY(!v->tree());
    QVERIFY(v->isBuilding());
    QVERIFY(v->buildPermille() >= 0);
    QCOMPARE(changed.count(), 0);
    QVERIFY2(panel.statusText().startsWith(QStringLiteral("Building call tree…")),
             qPrintable(panel.statusText()));
    QVERIFY(waitTree(*v));
    QCOMPARE(changed.count(), 1);
    QVERIFY2(ticksAtTree > 0, "the GUI thread's event loop did not turn while the tree was built");
    QCOMPARE(v->buildPermille(), -1);
    QVERIFY(!panel.statusText().contains(QStringLiteral("Building")));
    // The tree is the one CallTree::build makes.
    const CallTree direct = CallTree::build(*doc->trace, doc->links);
    QCOMPARE(v->tree()->size(), direct.size());
    QCOMPARE(v->tree()->node(0).cpu, direct.node(0).cpu);
    QCOMPARE(v->tree()->node(0).device, direct.node(0).device);
}

// Requests in quick succession (range A, then B, as a user dragging a selection): only the newest
// build's tree is shown, whichever finishes first; the superseded ones never arrive.
void TestFlameView::newerBuildSupersedes()
{
    const auto doc = loadDoc(KS_TEST_DATA_DIR "/flame/torch2_model.json.gz"); // two steps
    QVERIFY(doc);
    FlameView v;
    v.resize(800, 400);
    // The trees that arrived (treeChanged also says when the shown one is dropped for a new build).
    std::vector<int64_t> arrived;
    connect(&v, &FlameView::treeChanged, this, [&] {
        if (v.tree()) arrived.push_back(v.tree()->node(0).cpu);
    });
    const Trace& t = *doc->trace;
    QVERIFY(t.steps().size() >= 2);
    const Step& a = t.steps()[0];
    const Step& b = t.steps()[1];
    v.setDocument(doc);                                   // the whole trace
    v.setRange(a.start, a.end);                           // step A
    v.setRange(b.start, b.start + (b.end - b.start) / 3); // the first third of step B: the newest
    QVERIFY(waitTree(v));
    QTest::qWait(200); // a superseded build that finished late would arrive now
    QCOMPARE(arrived.size(), size_t(1));
    CallTreeOptions o;
    o.from = b.start;
    o.to = b.start + (b.end - b.start) / 3;
    const CallTree want = CallTree::build(t, doc->links, o);
    QCOMPARE(v.tree()->node(0).cpu, want.node(0).cpu);
    QCOMPARE(arrived[0], want.node(0).cpu);
    QCOMPARE(v.tree()->size(), want.size());
    // Clearing the document cancels a running build: nothing arrives.
    v.setRange(a.start, a.end);
    v.setDocument(nullptr);
    QVERIFY(!v.isBuilding());
    QTest::qWait(200);
    QVERIFY(!v.tree());
    QCOMPARE(arrived.size(), size_t(1));
}

// A live session's document, fed here as the session's ingest thread would (LiveIngest, frames as a
// target sends them; no Python needed): the Flame graph and Modules tabs rebuild as steps arrive
// (refreshGrowing, which the window calls when the session's analyses come), keep showing the
// previous tree and the zoomed frame meanwhile, and then show all the steps so far.
void TestFlameView::liveDocumentGrows()
{
    auto doc = std::make_shared<TraceDocument>();
    doc->trace = std::make_unique<Trace>();
    live::LiveIngest in(*doc->trace);
    const live::LiveIngest::ConnId c = in.open(4242);
    QCOMPARE(
        test::feedFrames(
            in, c, test::helloFrames(4242, {{1, "train_step"}, {2, "nn.Module: Net_0"}, {3, "aten::mm"}})),
        std::string());
    // One step: train_step [0, 1000) ⊃ nn.Module: Net_0 [10, 900) ⊃ aten::mm [20, 500).
    auto step = [&](int64_t t0) {
        using record::RecordType;
        auto begin = [](int64_t t, uint32_t name, record::RangeCategory cat) {
            return live::WireRecord{t, uint8_t(RecordType::Begin), uint8_t(cat), 0, name, 0, 0};
        };
        return test::feedFrames(
            in, c,
            test::eventFrames(7, {begin(t0, 1, record::RangeCategory::UserAnnotation),
                                  begin(t0 + 10, 2, record::RangeCategory::PythonFunction),
                                  begin(t0 + 20, 3, record::RangeCategory::CpuOp),
                                  test::wireRecord(t0 + 500, RecordType::End),
                                  test::wireRecord(t0 + 900, RecordType::End),
                                  test::wireRecord(t0 + 1000, RecordType::End)}));
    };
    QCOMPARE(step(1'000'000), std::string());

    FlamePanel panel;
    panel.resize(1000, 600);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    panel.setDocument(doc, true);
    FlameView* v = panel.view();
    QVERIFY(waitTree(*v));
    QCOMPARE(v->tree()->node(0).cpu, TimeNs(1000));
    QVERIFY(panel.statusText().contains(QStringLiteral("live")));
    const uint32_t net = firstNamed(*v->tree(), "nn.Module: Net_0");
    QVERIFY(net != UINT32_MAX);
    v->zoomTo(net);
    const QPoint atMm(v->width() / 4, int(v->tree()->node(net).depth) * FlameView::kRowHeight + 5);
    QTest::mouseClick(v, Qt::LeftButton, {}, atMm); // aten::mm, below the zoomed module
    QVERIFY(v->selectedNode() != UINT32_MAX);
    QCOMPARE(v->tree()->frameOf(v->selectedNode()).name, std::string_view("aten::mm"));

    QCOMPARE(step(2'000'000), std::string());
    panel.refreshGrowing();
    QVERIFY(v->isBuilding());
    QVERIFY(v->tree()); // the shown tree stays until the new one is there
    QCOMPARE(v->tree()->node(0).cpu, TimeNs(1000));
    QVERIFY(waitTree(*v));
    QCOMPARE(v->tree()->node(0).cpu, TimeNs(2000));
    QCOMPARE(v->tree()->node(firstNamed(*v->tree(), "aten::mm")).calls, int64_t(2));
    // Still zoomed into the module and aten::mm still the clicked frame, in the new tree; its
    // callers are listed from the new tree (two calls now).
    QCOMPARE(v->tree()->frameOf(v->zoomNode()).name, std::string_view("nn.Module: Net_0"));
    QVERIFY(v->selectedNode() != UINT32_MAX);
    QCOMPARE(v->tree()->frameOf(v->selectedNode()).name, std::string_view("aten::mm"));
    QCOMPARE(panel.callers()->model()->rowCount(), 1);
    QCOMPARE(
        panel.callers()->model()->index(0, FrameLinksModel::Calls).data(TableModel::SortRole).toLongLong(),
        2LL);

    ModuleView modules;
    modules.show();
    QVERIFY(QTest::qWaitForWindowExposed(&modules));
    modules.setDocument(doc, true);
    QVERIFY(QTest::qWaitFor([&] { return modules.modules() && !modules.isBuilding(); }, 60000));
    QCOMPARE(modules.modules()->node(0).host, TimeNs(2 * 890));
    QCOMPARE(step(3'000'000), std::string());
    modules.refreshGrowing();
    QVERIFY(modules.isBuilding());
    QVERIFY(modules.modules()); // shown meanwhile
    QVERIFY(QTest::qWaitFor([&] { return !modules.isBuilding(); }, 60000));
    QCOMPARE(modules.modules()->node(0).host, TimeNs(3 * 890));
    QCOMPARE(modules.proxy()->rowCount(), 1);
    QCOMPARE(modules.proxy()->index(0, 0).data().toString(), QStringLiteral("Net_0"));
}

// The top row holds the root's children side by side in proportion; a click emits the frame under
// the cursor; a double click makes it the full width below its callers.
void TestFlameView::clickAndZoom()
{
    const auto doc = loadDoc(KS_TEST_DATA_DIR "/flame/torch2_model.json.gz");
    QVERIFY(doc);
    FlameView v;
    v.resize(1000, 600);
    v.setDocument(doc);
    QVERIFY(waitTree(v));
    const CallTree& t = *v.tree();
    QCOMPARE(t.node(0).children.size(), size_t(1)); // <module>
    const uint32_t top = t.node(0).children[0];
    QCOMPARE(v.nodeAt(QPoint(500, 5)), top);
    QSignalSpy activated(&v, &FlameView::frameActivated);
    QTest::mouseClick(&v, Qt::LeftButton, {}, QPoint(500, 5));
    QCOMPARE(activated.count(), 1);
    QCOMPARE(activated.at(0).at(0).toUInt(), top);
    QCOMPARE(v.selectedNode(), top); // outlined
    // Zoom into the model's forward module: it fills the width on the row below its callers.
    const uint32_t net = firstNamed(t, "nn.Module: Net_0");
    QVERIFY(net != UINT32_MAX);
    v.zoomTo(net);
    const int row = int(t.node(net).depth) - 1;
    QCOMPARE(v.nodeAt(QPoint(2, row * FlameView::kRowHeight + 5)), net);
    QCOMPARE(v.nodeAt(QPoint(997, row * FlameView::kRowHeight + 5)), net);
    // Its callees share its width by their CPU time.
    const uint32_t below = v.nodeAt(QPoint(500, (row + 1) * FlameView::kRowHeight + 5));
    QVERIFY(below != UINT32_MAX);
    QCOMPARE(t.node(below).parent, net);
    // A double click on the zoomed frame goes back up one level.
    QTest::mouseDClick(&v, Qt::LeftButton, {}, QPoint(500, row * FlameView::kRowHeight + 5));
    QCOMPARE(v.zoomNode(), t.node(net).parent);
}

// The metric decides the widths: by device time only the frames that launched GPU work show; the
// search share is the matching frames' part of the total.
void TestFlameView::metricAndSearch()
{
    const auto doc = loadDoc(kBert);
    QVERIFY(doc);
    FlameView v;
    v.resize(1200, 900);
    v.setDocument(doc);
    QVERIFY(waitTree(v));
    const CallTree& t = *v.tree();
    v.setMetric(CallTree::Metric::Device);
    QImage img(v.size(), QImage::Format_ARGB32);
    v.render(&img);
    // Every frame drawn by device time launched some.
    std::vector<uint32_t> seen;
    for (int y = 5; y < v.height(); y += FlameView::kRowHeight)
        for (int x = 0; x < v.width(); x += 7) {
            const uint32_t n = v.nodeAt(QPoint(x, y));
            if (n != UINT32_MAX) {
                QVERIFY(t.node(n).device > 0);
                seen.push_back(n);
            }
        }
    QVERIFY(seen.size() > 20);
    v.setSearch(QStringLiteral("aten::addmm"));
    int64_t addmm = 0;
    for (uint32_t i = 1; i < t.size(); ++i)
        if (t.frameOf(i).name == "aten::addmm") addmm += t.node(i).device; // addmm does not nest
    QVERIFY(addmm > 0);
    QCOMPARE(v.searchShare(), double(addmm) / double(t.node(0).device));
    v.setSearch(QString());
    QCOMPARE(v.searchShare(), 0.0);
}

// Merge by line adds line frames; a time range rebuilds the tree for it.
void TestFlameView::byLineAndRange()
{
    const auto doc = loadDoc(KS_TEST_DATA_DIR "/flame/torch2_model.json.gz");
    QVERIFY(doc);
    FlameView v;
    v.resize(800, 400);
    v.setDocument(doc);
    QVERIFY(waitTree(v));
    const int64_t all = v.tree()->node(0).cpu;
    QCOMPARE(firstNamed(*v.tree(), "flame_model.py:38"), UINT32_MAX);
    v.setByLine(true);
    QVERIFY(waitTree(v));
    QVERIFY(firstNamed(*v.tree(), "flame_model.py:38") != UINT32_MAX);
    QCOMPARE(v.tree()->node(0).cpu, all);
    const Step& s = doc->trace->steps()[0];
    v.setRange(s.start, s.end);
    QVERIFY(waitTree(v));
    QVERIFY(v.tree()->node(0).cpu < all);
    v.clearRange();
    QVERIFY(waitTree(v));
    QCOMPARE(v.tree()->node(0).cpu, all);
}

// A narrow view merges the frames under a pixel: it paints far fewer boxes than the tree has
// nodes, never more than a few per pixel column and row (repaint times: bench/gui/bench_flame).
void TestFlameView::narrowFramesMerge()
{
    const auto doc = loadDoc(kBert);
    QVERIFY(doc);
    FlameView v;
    v.resize(200, 1200);
    v.setDocument(doc);
    QVERIFY(waitTree(v));
    QImage img(v.size(), QImage::Format_ARGB32);
    v.render(&img);
    QVERIFY(v.mergedBlocks() > 0);
    const size_t rows = size_t(v.height() / FlameView::kRowHeight + 1);
    QVERIFY(v.paintedFrames() <= 2 * size_t(v.width()) * rows);
    QVERIFY(v.paintedFrames() < v.tree()->size());
}

// The tab: built when shown, it follows a range, switches metric and merge mode from its bar, and a
// click on a frame offers exactly that frame's slices to the timeline.
void TestFlameView::panelMarksSlices()
{
    const auto doc = test::loadSharedDocument(
        "AMD-AGI_TraceLens__tests__traces__h100__gaunernst_bert-small-uncased__1016001.json.gz");
    QVERIFY(doc);
    FlamePanel panel;
    panel.resize(1200, 700);
    panel.setDocument(doc);
    QVERIFY(!panel.view()->tree()); // not built while hidden
    QVERIFY(!panel.view()->isBuilding());
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    QVERIFY(waitTree(*panel.view()));
    const CallTree& whole = *panel.view()->tree();
    const int64_t all = whole.node(0).cpu;
    std::vector<SliceRef> marked;
    QString label;
    connect(&panel, &FlamePanel::slicesSelected, this, [&](const QString& l, const std::vector<SliceRef>& s) {
        label = l;
        marked = s;
    });
    FlameView* v = panel.view();
    const QPoint top(v->width() / 2, 5);
    const uint32_t node = v->nodeAt(top);
    QVERIFY(node != UINT32_MAX);
    QTest::mouseClick(v, Qt::LeftButton, {}, top);
    QCOMPARE(int64_t(marked.size()), v->tree()->node(node).calls);
    QVERIFY(!marked.empty());
    // Caller/callee of the clicked frame, as linksOf says.
    const CallTree::FrameLinks links = v->tree()->linksOf(v->tree()->node(node).frame);
    const QAbstractItemModel* callers = panel.callers()->model();
    const QAbstractItemModel* callees = panel.callees()->model();
    QCOMPARE(callers->rowCount(), int(links.callers.size()));
    QCOMPARE(callees->rowCount(), int(links.callees.size()));
    QVERIFY(callees->rowCount() > 0);
    // Largest first by value, as linksOf orders them; the value column sorts by its number.
    const std::string_view first = v->tree()->frame(links.callees[0].frame).name;
    QCOMPARE(callees->index(0, FrameLinksModel::Name).data().toString(),
             QString::fromUtf8(first.data(), qsizetype(first.size())));
    QCOMPARE(callees->index(0, FrameLinksModel::Value).data(TableModel::SortRole).toLongLong(),
             qlonglong(links.callees[0].cpu));
    QCOMPARE(callers->headerData(0, Qt::Horizontal).toString(), QStringLiteral("Callers"));
    QVERIFY(
        !callees->headerData(FrameLinksModel::Calls, Qt::Horizontal, Qt::ToolTipRole).toString().isEmpty());
    // A click on a header sorts by that column (calls, ascending).
    panel.callees()->sortByColumn(FrameLinksModel::Calls, Qt::AscendingOrder);
    for (int r = 1; r < callees->rowCount(); ++r)
        QVERIFY(callees->index(r - 1, FrameLinksModel::Calls).data(TableModel::SortRole).toLongLong() <=
                callees->index(r, FrameLinksModel::Calls).data(TableModel::SortRole).toLongLong());
    // Activating a callee searches for it.
    const QModelIndex callee = callees->index(0, 0);
    emit panel.callees()->activated(callee);
    QCOMPARE(panel.findChild<QLineEdit*>(QStringLiteral("flameSearch"))->text(), callee.data().toString());
    QVERIFY(v->searchShare() > 0);
    panel.findChild<QLineEdit*>(QStringLiteral("flameSearch"))->clear();
    for (SliceRef r : marked) {
        const std::string_view name = doc->trace->sliceName(r);
        QCOMPARE(QString::fromUtf8(name.data(), qsizetype(name.size())), label);
    }
    // The bar: device metric, merge by line, search.
    panel.findChild<QComboBox*>()->setCurrentIndex(1);
    QVERIFY(waitTree(*v));
    QCOMPARE(v->metric(), CallTree::Metric::Device);
    panel.findChild<QLineEdit*>(QStringLiteral("flameSearch"))->setText(QStringLiteral("addmm"));
    QVERIFY(v->searchShare() > 0);
    // Zoomed into the deepest frame, the path in the status line is cut, not the panel widened
    // (it set the Analysis dock's and the window's minimum width).
    uint32_t deepest = 0;
    for (uint32_t i = 1; i < v->tree()->size(); ++i)
        if (v->tree()->node(i).depth > v->tree()->node(deepest).depth) deepest = i;
    QVERIFY(v->tree()->node(deepest).depth > 10);
    v->zoomTo(deepest);
    QVERIFY2(panel.minimumSizeHint().width() <= 1200,
             qPrintable(QString::number(panel.minimumSizeHint().width())));
    QVERIFY(panel.statusText().contains(QStringLiteral("…")));
    v->zoomTo(0);
    // A range: the step alone.
    const Step& step = doc->trace->steps()[0];
    panel.setRange(step.start, step.start + (step.end - step.start) / 2);
    QVERIFY(waitTree(*v));
    QVERIFY(v->tree()->node(0).cpu < all);
    panel.clearRange();
    QVERIFY(waitTree(*v));
    QCOMPARE(v->tree()->node(0).cpu, all);
}

// A Python frame of our own run opens flame_model.py: missing under the trace's relative path
// until mapped to tests/scripts, then with the frame's line selected and the time of the calls
// each line made beside it. qputenv(EDITOR) shows the command "Open in editor" runs.
void TestFlameView::sourceOfAFrame()
{
    const auto doc = loadDoc(KS_TEST_DATA_DIR "/flame/torch2_model.json.gz");
    QVERIFY(doc);
    FlamePanel panel;
    panel.resize(1400, 800);
    panel.setDocument(doc);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    QVERIFY(waitTree(*panel.view()));
    const CallTree& t = *panel.view()->tree();
    uint32_t step = UINT32_MAX;
    for (uint32_t f = 0; f < t.frameCount(); ++f)
        if (t.frame(f).name == "flame_model.py(35): step") step = f;
    QVERIFY(step != UINT32_MAX);
    panel.showSource(step);
    SourcePanel* src = panel.source();
    QVERIFY(!src->fileFound());
    QCOMPARE(src->resolvedPath(), QStringLiteral("flame_model.py"));
    auto fields = src->findChildren<QLineEdit*>();
    QCOMPARE(fields.size(), 2);
    fields[0]->setText(QString());
    fields[1]->setText(QStringLiteral(KS_SOURCE_DIR "/tests/scripts/"));
    QTest::keyClick(fields[1], Qt::Key_Return);
    QVERIFY(src->fileFound());
    QTableWidget* table = src->table();
    QVERIFY(table->rowCount() > 40);
    QCOMPARE(table->currentRow(), 34); // line 35
    QVERIFY(table->item(34, 2)->text().startsWith(QStringLiteral("def step(")));
    // The line times come from a by-line tree built off the GUI thread.
    QTRY_VERIFY_WITH_TIMEOUT(!table->item(36, 0)->text().isEmpty(), 60000);
    for (int line : {37, 38, 39, 40})
        QVERIFY(!table->item(line - 1, 0)->text().isEmpty());
    QVERIFY(table->item(34, 0)->text().isEmpty()); // the def line called nothing
    qputenv("VISUAL", "");
    qputenv("EDITOR", "myeditor --wait");
    QCOMPARE(src->editorCommand(), (QStringList{QStringLiteral("myeditor"), QStringLiteral("--wait"),
                                                QStringLiteral("+35"), src->resolvedPath()}));
    // An op is not source: the panel clears.
    uint32_t op = UINT32_MAX;
    for (uint32_t f = 0; f < t.frameCount(); ++f)
        if (t.frame(f).kind == FrameKind::Op) op = f;
    panel.showSource(op);
    QCOMPARE(table->rowCount(), 0);
    // and no longer names the file it showed.
    for (const QLabel* l : src->findChildren<QLabel*>())
        QVERIFY2(!l->isVisible() || !l->text().contains(QStringLiteral("flame_model.py")),
                 qPrintable(l->text()));
}

QTEST_MAIN(TestFlameView)
#include "tst_flameview.moc"
