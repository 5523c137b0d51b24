// The aggregated call tree (core/analysis/calltree) on real traces with stacks: its totals are the op
// table's (key_averages), its module times the sums of the nn.Module ranges, its bottom-up form keeps
// the self totals, and the fallbacks (Call stack frames, no stacks at all) and the options (by line,
// a time range) do what docs/flame.md says.
#include "core/analysis/calltree/calltree.h"
#include "core/analysis/calltree/moduletree.h"
#include "core/analysis/calltree/sourcelines.h"
#include "core/analysis/overview/overview.h"
#include "core/analysis/summary/keyaverages.h"
#include "core/analysis/timeline/linkindex.h"
#include "core/io/tracereader.h"

#include <QTest>
#include <cmath>
#include <map>
#include <string>

using namespace ks;

namespace {

const char* const kBert =
    "AMD-AGI_TraceLens__tests__traces__h100__gaunernst_bert-small-uncased__1016001.json.gz";
const char* const kNorm =
    "AMD-AGI_TraceLens__tests__traces__perf_model__normalization__normalization_layer_test.json.gz";
const char* const kResnetStacks =
    "pytorch_kineto__tb_plugin__samples__resnet50_num_workers_0__worker0.1623143089861.pt.trace.json.gz";

std::string sharedTrace(const char* name)
{
    return std::string(KS_SHARED_TRACES "/") + name;
}
std::string ownTrace(const char* name)
{
    return std::string(KS_TEST_DATA_DIR "/flame/") + name;
}

struct Loaded {
    LoadResult load;
    LinkIndex links;
    const Trace& trace() const { return *load.trace; }
};

bool load(const std::string& path, Loaded& out)
{
    out.load = loadTraceFile(path);
    if (!out.load.ok()) return false;
    out.links.build(*out.load.trace);
    return true;
}

struct Sum {
    int64_t calls = 0;
    int64_t cpu = 0;
    int64_t device = 0;
};

// Per frame name, over the nodes of the given kinds.
std::map<std::string, Sum> sumsByName(const CallTree& tree, std::initializer_list<FrameKind> kinds)
{
    std::map<std::string, Sum> out;
    for (uint32_t i = 1; i < tree.size(); ++i) {
        const Frame& f = tree.frameOf(i);
        if (std::find(kinds.begin(), kinds.end(), f.kind) == kinds.end()) continue;
        Sum& s = out[std::string(f.name)];
        s.calls += tree.node(i).calls;
        s.cpu += tree.node(i).cpu;
        s.device += f.kind == FrameKind::Device ? tree.node(i).selfDevice : tree.node(i).device;
    }
    return out;
}

} // namespace

class TestCallTree : public QObject {
    Q_OBJECT
private slots:
    void totalsEqualOpTable_data();
    void totalsEqualOpTable();
    void moduleTimesEqualRanges_data();
    void moduleTimesEqualRanges();
    void invertedKeepsSelfTotals();
    void callStackFramesAboveOps();
    void opTreeWithoutStacks();
    void byLineSplitsCallers();
    void stepRangeCutsTime();
    void slicesOfNodes();
    void callersAndCallees();
    void sourceLines();
    void progressAndCancel();
};

void TestCallTree::totalsEqualOpTable_data()
{
    QTest::addColumn<QString>("path");
    QTest::newRow("bert h100 torch 2.6") << QString::fromStdString(sharedTrace(kBert));
    QTest::newRow("normalization mi300") << QString::fromStdString(sharedTrace(kNorm));
    QTest::newRow("own torch 2.x run") << QString::fromStdString(ownTrace("torch2_model.json.gz"));
    QTest::newRow("own torch 1.13 run") << QString::fromStdString(ownTrace("torch113_model.json.gz"));
}

// Every CPU row of key_averages (ops, record_function ranges, runtime calls) has the calls and the
// CPU total of the call tree's frames of that name; every device row (a kernel name) the calls and
// time of the device frames of that name; every op's device total is its frames' inclusive device time.
void TestCallTree::totalsEqualOpTable()
{
    QFETCH(QString, path);
    Loaded l;
    QVERIFY2(load(path.toStdString(), l), path.toUtf8().constData());
    const CallTree tree = CallTree::build(l.trace(), l.links);
    KeyAveragesOptions o;
    o.torch = detectTorchFlavor(l.trace());
    const KeyAverages table = KeyAverages::compute(l.trace(), o);
    const auto cpu =
        sumsByName(tree, {FrameKind::Op, FrameKind::Annotation, FrameKind::Runtime, FrameKind::Other});
    // Runtime frames hold the GPU work they launched; torch gives runtime calls no device time.
    const auto opDevice = sumsByName(tree, {FrameKind::Op, FrameKind::Annotation, FrameKind::Other});
    const auto device = sumsByName(tree, {FrameKind::Device});
    size_t cpuRows = 0, deviceRows = 0;
    double tableDevice = 0;
    for (const KeyAverage& row : table.rows()) {
        // torch 2.x lists GPU user annotations as device rows: ranges mirrored on the GPU, not GPU
        // work, so not frames of the tree.
        if (row.deviceType && row.userAnnotation) continue;
        const auto& sums = row.deviceType ? device : cpu;
        const auto it = sums.find(row.key);
        QVERIFY2(it != sums.end(), row.key.c_str());
        const Sum& s = it->second;
        QVERIFY2(s.calls == row.count,
                 (row.key + ": " + std::to_string(s.calls) + " calls, table " + std::to_string(row.count))
                     .c_str());
        // The table's µs doubles against our integer ns: a rounding step per event at most.
        const double slack = 0.002 * double(row.count) + 1e-6;
        if (row.deviceType) {
            ++deviceRows;
            tableDevice += row.selfDeviceTimeTotal;
            QVERIFY2(std::abs(double(s.device) / 1000.0 - row.selfDeviceTimeTotal) <= slack, row.key.c_str());
        } else {
            ++cpuRows;
            QVERIFY2(std::abs(double(s.cpu) / 1000.0 - row.cpuTimeTotal) <= slack,
                     (row.key + ": " + std::to_string(double(s.cpu) / 1000.0) + " us, table " +
                      std::to_string(row.cpuTimeTotal))
                         .c_str());
            const auto op = opDevice.find(row.key);
            const int64_t dev = op == opDevice.end() ? 0 : op->second.device;
            QVERIFY2(std::abs(double(dev) / 1000.0 - row.deviceTimeTotal) <= slack,
                     (row.key + ": device " + std::to_string(double(dev) / 1000.0) + " us, table " +
                      std::to_string(row.deviceTimeTotal))
                         .c_str());
        }
    }
    QVERIFY(cpuRows > 10);
    // The whole tree's device time is the table's, so no kernel was lost or counted twice.
    QVERIFY(std::abs(double(tree.node(0).device) / 1000.0 - tableDevice) <= 0.002 * double(deviceRows + 1));
    if (table.hasDeviceEvents()) QVERIFY(deviceRows > 0);
}

void TestCallTree::moduleTimesEqualRanges_data()
{
    QTest::addColumn<QString>("path");
    QTest::newRow("bert h100 torch 2.6") << QString::fromStdString(sharedTrace(kBert));
    QTest::newRow("own torch 2.x run") << QString::fromStdString(ownTrace("torch2_model.json.gz"));
}

// Per module instance, the module view's host time is the sum of its "nn.Module: X" ranges, and its
// calls their count.
void TestCallTree::moduleTimesEqualRanges()
{
    QFETCH(QString, path);
    Loaded l;
    QVERIFY(load(path.toStdString(), l));
    const Trace& t = l.trace();
    std::map<std::string, Sum> ranges;
    for (uint32_t tr = 0; tr < t.trackCount(); ++tr) {
        const SliceTrack& s = t.slices(TrackId(tr));
        for (size_t r = 0; r < s.size(); ++r) {
            const std::string_view name = t.str(s.name(r));
            if (!name.starts_with("nn.Module: ")) continue;
            Sum& sum = ranges[std::string(name.substr(11))];
            sum.calls += 1;
            sum.cpu += s.duration(r);
        }
    }
    QVERIFY(ranges.size() >= 5);
    const CallTree tree = CallTree::build(t, l.links);
    const ModuleTree modules = ModuleTree::build(tree);
    std::map<std::string, Sum> ours;
    for (uint32_t i = 1; i < modules.size(); ++i) {
        Sum& s = ours[std::string(modules.node(i).name)];
        s.calls += modules.node(i).calls;
        s.cpu += modules.node(i).host;
        QVERIFY(modules.node(i).selfHost >= 0);
        QVERIFY(modules.node(i).selfHost <= modules.node(i).host);
    }
    QCOMPARE(ours.size(), ranges.size());
    for (const auto& [name, s] : ranges) {
        QVERIFY2(ours.count(name), name.c_str());
        QCOMPARE(ours[name].calls, s.calls);
        QCOMPARE(ours[name].cpu, s.cpu);
    }
    // The root module holds every other one.
    int64_t top = 0;
    for (uint32_t c : modules.node(0).children)
        top += modules.node(c).host;
    QCOMPARE(modules.node(0).host, top);
}

// The bottom-up tree's first level holds every frame's self time, the top-down totals.
void TestCallTree::invertedKeepsSelfTotals()
{
    Loaded l;
    QVERIFY(load(sharedTrace(kBert), l));
    const CallTree tree = CallTree::build(l.trace(), l.links);
    const CallTree inv = tree.inverted();
    QVERIFY(inv.isInverted());
    std::map<std::string, int64_t> selfByFrame;
    int64_t selfCpu = 0, selfDevice = 0;
    for (uint32_t i = 1; i < tree.size(); ++i) {
        selfByFrame[std::string(tree.frameOf(i).name)] += tree.node(i).selfCpu;
        selfCpu += tree.node(i).selfCpu;
        selfDevice += tree.node(i).selfDevice;
    }
    QCOMPARE(selfCpu, tree.node(0).cpu);
    QCOMPARE(selfDevice, tree.node(0).device);
    QCOMPARE(inv.node(0).cpu, tree.node(0).cpu);
    QCOMPARE(inv.node(0).device, tree.node(0).device);
    std::map<std::string, int64_t> firstLevel;
    for (uint32_t c : inv.node(0).children) {
        firstLevel[std::string(inv.frameOf(c).name)] += inv.node(c).cpu;
        QCOMPARE(inv.node(c).selfCpu, inv.node(c).cpu);
        // A caller's share is never more than its callee's.
        for (uint32_t cc : inv.node(c).children)
            QVERIFY(inv.node(cc).cpu <= inv.node(c).cpu);
    }
    for (const auto& [name, v] : selfByFrame)
        if (v != 0) QVERIFY2(firstLevel[name] == v, name.c_str());
}

// torch 1.8-era traces keep Python stacks as "Call stack" args: the frames sit above the outermost
// ops, outermost first, and carry those ops' time.
void TestCallTree::callStackFramesAboveOps()
{
    Loaded l;
    QVERIFY(load(sharedTrace(kResnetStacks), l));
    const CallTree tree = CallTree::build(l.trace(), l.links);
    size_t python = 0;
    for (uint32_t i = 1; i < tree.size(); ++i) {
        if (tree.frameOf(i).kind != FrameKind::Python) continue;
        ++python;
        // A stack frame's time is the time of what is below it.
        int64_t below = 0;
        for (uint32_t c : tree.node(i).children)
            below += tree.node(c).cpu;
        QCOMPARE(tree.node(i).cpu, below);
        QCOMPARE(tree.node(i).selfCpu, int64_t(0));
    }
    QVERIFY(python >= 3);
    // The script's own module frame is outermost.
    bool script = false;
    for (uint32_t c : tree.node(0).children)
        script |= tree.frameOf(c).name.find("resnet50_profiler_api.py") != std::string_view::npos;
    QVERIFY(script);
}

// Debian's torch 1.13 writes no stacks: the tree is the op tree, ranges and ops only.
void TestCallTree::opTreeWithoutStacks()
{
    Loaded l;
    QVERIFY(load(ownTrace("torch113_model.json.gz"), l));
    const CallTree tree = CallTree::build(l.trace(), l.links);
    bool step = false, linear = false;
    for (uint32_t i = 1; i < tree.size(); ++i) {
        const Frame& f = tree.frameOf(i);
        QVERIFY(f.kind != FrameKind::Python && f.kind != FrameKind::Module);
        // Below the step range (ProfilerStep*), as recorded.
        step |= f.name == "train_step" && tree.frameOf(tree.node(i).parent).name == "ProfilerStep*";
        linear |= f.name == "aten::linear" && tree.node(i).depth > 1;
    }
    QVERIFY(step);
    QVERIFY(linear);
}

// By line: below a Python function, one frame per line of it that called something; the function's
// own totals do not change.
void TestCallTree::byLineSplitsCallers()
{
    Loaded l;
    QVERIFY(load(ownTrace("torch2_model.json.gz"), l));
    CallTreeOptions o;
    const CallTree byFunction = CallTree::build(l.trace(), l.links, o);
    o.byLine = true;
    const CallTree byLine = CallTree::build(l.trace(), l.links, o);
    QCOMPARE(byLine.node(0).cpu, byFunction.node(0).cpu);
    QCOMPARE(byLine.node(0).memory, byFunction.node(0).memory);
    auto framesNamed = [](const CallTree& t, std::string_view name) {
        int64_t cpu = 0, self = 0;
        for (uint32_t i = 1; i < t.size(); ++i)
            if (t.frameOf(i).name == name) {
                cpu += t.node(i).cpu;
                self += t.node(i).selfCpu;
            }
        return std::make_pair(cpu, self);
    };
    QCOMPARE(framesNamed(byLine, "flame_model.py(35): step"),
             framesNamed(byFunction, "flame_model.py(35): step"));
    // step() enters its record_function range on line 36; inside the range it calls zero_grad, the
    // model, backward and the optimizer from lines 37-40.
    auto linesBelow = [&](std::string_view frame) {
        std::vector<std::string> lines;
        for (uint32_t i = 1; i < byLine.size(); ++i) {
            if (byLine.frameOf(i).name != frame) continue;
            for (uint32_t c : byLine.node(i).children)
                if (byLine.frameOf(c).kind == FrameKind::PythonLine)
                    lines.emplace_back(byLine.frameOf(c).name);
        }
        std::sort(lines.begin(), lines.end());
        lines.erase(std::unique(lines.begin(), lines.end()), lines.end());
        return lines;
    };
    QCOMPARE(linesBelow("flame_model.py(35): step"), (std::vector<std::string>{"flame_model.py:36"}));
    // (and record_function's own __enter__ from torch/autograd/profiler.py, which returns inside it).
    const std::vector<std::string> inRange = linesBelow("train_step");
    const std::vector<std::string> want{"flame_model.py:37", "flame_model.py:38", "flame_model.py:39",
                                        "flame_model.py:40"};
    QVERIFY(std::includes(inRange.begin(), inRange.end(), want.begin(), want.end()));
    for (const std::string& line : inRange)
        QVERIFY2(line.starts_with("flame_model.py:") || line.starts_with("torch/autograd/profiler.py:"),
                 line.c_str());
    // A line frame's time is the time of the calls made from it.
    for (uint32_t i = 1; i < byLine.size(); ++i) {
        if (byLine.frameOf(i).kind != FrameKind::PythonLine) continue;
        int64_t below = 0;
        for (uint32_t c : byLine.node(i).children)
            below += byLine.node(c).cpu;
        QCOMPARE(byLine.node(i).cpu, below);
    }
}

// A step's tree holds that step's CPU time only.
void TestCallTree::stepRangeCutsTime()
{
    Loaded l;
    QVERIFY(load(ownTrace("torch2_model.json.gz"), l));
    const Trace& t = l.trace();
    TimeWindow w;
    QVERIFY(stepWindow(t, 1, 1, w) || stepWindow(t, 0, 0, w));
    CallTreeOptions o;
    o.from = w.start;
    o.to = w.end;
    const CallTree step = CallTree::build(t, l.links, o);
    const CallTree all = CallTree::build(t, l.links);
    QVERIFY(step.node(0).cpu > 0);
    QVERIFY(step.node(0).cpu < all.node(0).cpu);
    // The step's own range is one call, cut to nothing but itself.
    for (uint32_t i = 1; i < step.size(); ++i)
        if (step.frameOf(i).name == "ProfilerStep*") QCOMPARE(step.node(i).cpu, w.end - w.start);
    // Every CPU thread counts at most the window's length per level.
    for (uint32_t c : step.node(0).children)
        QVERIFY(step.node(c).cpu <= (w.end - w.start) * int64_t(t.trackCount()));
}

// With keepSlices a node names its slices: as many as its calls, of its name, and (no recursion
// here) their durations add up to its time.
void TestCallTree::slicesOfNodes()
{
    Loaded l;
    QVERIFY(load(sharedTrace(kBert), l));
    const Trace& t = l.trace();
    CallTreeOptions o;
    QVERIFY(CallTree::build(t, l.links, o).slicesOf(1).empty());
    o.keepSlices = true;
    const CallTree tree = CallTree::build(t, l.links, o);
    size_t checkedCpu = 0, checkedDevice = 0;
    for (uint32_t i = 1; i < tree.size(); ++i) {
        const Frame& f = tree.frameOf(i);
        if (f.kind != FrameKind::Module && f.kind != FrameKind::Device && f.kind != FrameKind::Op) continue;
        const std::vector<SliceRef> refs = tree.slicesOf(i);
        QCOMPARE(int64_t(refs.size()), tree.node(i).calls);
        TimeNs sum = 0;
        for (SliceRef r : refs) {
            QCOMPARE(t.sliceName(r), f.name);
            sum += t.slices(r.track).duration(r.index);
        }
        if (f.kind == FrameKind::Device) {
            QCOMPARE(sum, tree.node(i).device);
            ++checkedDevice;
        } else if (f.kind == FrameKind::Module) {
            QCOMPARE(sum, tree.node(i).cpu);
            ++checkedCpu;
        }
    }
    QVERIFY(checkedCpu > 20);
    QVERIFY(checkedDevice > 20);
    QCOMPARE(tree.slicesOf(1, 0).size(), size_t(0));
}

// A frame's callers share its total; its callees hold its total minus its self time; recursion
// (a frame below itself) is counted once.
void TestCallTree::callersAndCallees()
{
    Loaded l;
    QVERIFY(load(sharedTrace(kBert), l));
    const CallTree tree = CallTree::build(l.trace(), l.links);
    size_t frames = 0;
    for (uint32_t f = 1; f < tree.frameCount(); ++f) {
        const CallTree::FrameLinks links = tree.linksOf(f);
        if (links.total.calls == 0) continue;
        ++frames;
        int64_t callerCpu = 0, callerCalls = 0, calleeCpu = 0;
        for (const auto& c : links.callers) {
            callerCpu += c.cpu;
            callerCalls += c.calls;
        }
        for (const auto& c : links.callees)
            calleeCpu += c.cpu;
        QCOMPARE(callerCpu, links.total.cpu);
        QCOMPARE(callerCalls, links.total.calls);
        // Self time of the outermost nodes = total minus what the callees took.
        int64_t self = 0;
        for (uint32_t i = 1; i < tree.size(); ++i) {
            if (tree.node(i).frame != f) continue;
            bool outer = true;
            for (uint32_t up = tree.node(i).parent; up; up = tree.node(up).parent)
                outer &= tree.node(up).frame != f;
            if (outer) self += tree.node(i).selfCpu;
        }
        QCOMPARE(links.total.cpu - calleeCpu, self);
        for (size_t i = 1; i < links.callees.size(); ++i)
            QVERIFY(links.callees[i - 1].cpu >= links.callees[i].cpu);
    }
    QVERIFY(frames > 100);
    // aten::linear is called from the Linear modules' forward, through torch's C binding, and calls
    // aten::addmm.
    uint32_t linear = 0;
    for (uint32_t f = 1; f < tree.frameCount() && !linear; ++f)
        if (tree.frame(f).name == "aten::linear") linear = f;
    QVERIFY(linear);
    const CallTree::FrameLinks links = tree.linksOf(linear);
    QVERIFY(!links.callers.empty());
    QCOMPARE(tree.frame(links.callers[0].frame).name, std::string_view("<built-in function linear>"));
    bool addmm = false;
    for (const auto& c : links.callees)
        addmm |= tree.frame(c.frame).name == "aten::addmm";
    QVERIFY(addmm);
}

// Frames name their file and line; a by-line tree gives each line of a file the time of the calls
// made from it; a path mapping moves a trace's paths to this machine.
void TestCallTree::sourceLines()
{
    SourceLocation loc;
    QVERIFY(parseFrameLocation("torch/nn/modules/linear.py(124): forward", loc));
    QCOMPARE(loc.file, std::string("torch/nn/modules/linear.py"));
    QCOMPARE(loc.line, 124);
    QCOMPARE(loc.function, std::string("forward"));
    QVERIFY(parseFrameLocation("<string>(1): <module>", loc));
    QCOMPARE(loc.file, std::string("<string>"));
    QVERIFY(!parseFrameLocation("aten::linear", loc));
    QVERIFY(!parseFrameLocation("<built-in method add of Tensor object at 0x7f>", loc));
    QVERIFY(!parseFrameLocation("f.py(x): g", loc));

    Loaded l;
    QVERIFY(load(ownTrace("torch2_model.json.gz"), l));
    CallTreeOptions o;
    o.byLine = true;
    const CallTree tree = CallTree::build(l.trace(), l.links, o);
    const std::map<int, TimeNs> lines = lineTimes(tree, "flame_model.py");
    // step(): its range on 36, zero_grad 37, forward 38, backward 39, optimizer 40.
    for (int line : {36, 37, 38, 39, 40})
        QVERIFY2(lines.count(line) && lines.at(line) > 0, std::to_string(line).c_str());
    // Line 38 (the forward) is the Net_0 module's whole time and what .sum() took.
    TimeNs net = 0;
    for (uint32_t i = 1; i < tree.size(); ++i)
        if (tree.frameOf(i).name == "nn.Module: Net_0") net += tree.node(i).cpu;
    QVERIFY(lines.at(38) >= net);
    QVERIFY(lineTimes(tree, "no_such_file.py").empty());

    QCOMPARE(mapSourcePath("/home/u/proj/m.py", "/home/u/", "/work/"), std::string("/work/proj/m.py"));
    QCOMPARE(mapSourcePath("m.py", "", "/src/"), std::string("/src/m.py"));
    QCOMPARE(mapSourcePath("/other/m.py", "/home/u/", "/work/"), std::string("/other/m.py"));
}

// A build reports its progress (non-decreasing, ending at 1) and stops when cancelled: the viewer
// builds on worker threads and drops builds a newer request made useless.
void TestCallTree::progressAndCancel()
{
    Loaded l;
    QVERIFY(load(sharedTrace(kBert), l));
    std::vector<double> seen;
    CallTreeOptions o;
    o.progress = [&seen](double f) { seen.push_back(f); };
    const CallTree full = CallTree::build(l.trace(), l.links, o);
    QVERIFY(seen.size() >= 2);
    for (size_t i = 1; i < seen.size(); ++i)
        QVERIFY(seen[i] >= seen[i - 1]);
    QVERIFY(seen.front() >= 0.0);
    QCOMPARE(seen.back(), 1.0);
    auto hasDevice = [](const CallTree& t) {
        for (uint32_t i = 1; i < t.size(); ++i)
            if (t.frameOf(i).kind == FrameKind::Device) return true;
        return false;
    };
    QVERIFY(hasDevice(full));
    // Cancelled from the start: it stops at its first look at the flag (the end of the first CPU
    // thread here), never reaching the GPU work, and never says it is done.
    std::atomic<bool> cancel{true};
    seen.clear();
    o.cancel = &cancel;
    const CallTree stopped = CallTree::build(l.trace(), l.links, o);
    QVERIFY(!hasDevice(stopped));
    QVERIFY(stopped.size() < full.size());
    QVERIFY(seen.empty() || seen.back() < 1.0);
    // Not cancelled: the flag changes nothing.
    cancel = false;
    const CallTree again = CallTree::build(l.trace(), l.links, o);
    QCOMPARE(again.size(), full.size());
    QCOMPARE(again.node(0).cpu, full.node(0).cpu);
    QCOMPARE(again.node(0).device, full.node(0).device);
    QCOMPARE(again.node(0).memory, full.node(0).memory);
}

QTEST_GUILESS_MAIN(TestCallTree)
#include "tst_calltree.moc"
