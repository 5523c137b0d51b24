// The execution-trace reader (io/etreader.h), the op graph (model/executiontrace.h) and its links to
// trace ops (analysis/etlinker.h) on a real torch 1.13 ExecutionGraphObserver file, and bad input:
// cut files (complete nodes kept, with a warning), other JSON, wrong field types, parent cycles and
// flipped bytes, which must give one-line errors or warnings, never a crash or a hang. The golden
// comparison with torch 1.13 itself is tests/scripts/test_et_golden.sh.

#include "core/analysis/timeline/etlinker.h"
#include "core/io/etcompanion.h"
#include "core/io/etreader.h"
#include "core/io/tracereader.h"
#include "loadmessages.h"

#include <QTemporaryDir>
#include <QTest>
#include <fstream>
#include <random>

using namespace ks;

namespace {

using test::oneLine;

std::string fixture()
{
    std::ifstream in(std::string(KS_TEST_DATA_DIR) + "/et/linear_relu_torch113.json", std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

uint32_t nodeIndex(const ExecutionTrace& et, int64_t id)
{
    const int64_t i = et.indexOf(id);
    if (i < 0) qFatal("no node %lld", (long long)id);
    return uint32_t(i);
}

// Offsets just past each complete node object, by a plain scan (the file has no braces in strings).
std::vector<size_t> nodeEnds(const std::string& text)
{
    std::vector<size_t> ends;
    int depth = 0;
    for (size_t i = text.find('[', text.find("\"nodes\"")) + 1; i < text.size(); ++i) {
        if (text[i] == '{') ++depth;
        if (text[i] == '}' && --depth == 0) ends.push_back(i + 1);
        if (depth < 0) break;
    }
    return ends;
}

} // namespace

class TestEtReader : public QObject {
    Q_OBJECT

private slots:
    void readsTorch113();
    void producersAndConsumers();
    void opensAloneAndLinksByRecordFunctionId();
    void linksByNameAndOrder();
    void truncatedKeepsCompleteNodes();
    void otherJsonIsOneLineError();
    void badFieldsAndCyclesAreSurvived();
    void flippedBytesNeverCrash();
    void foundBesideItsTraceByName();
};

void TestEtReader::foundBesideItsTraceByName()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string d = dir.path().toStdString() + "/";
    auto write = [&](const std::string& name, const std::string& text) { std::ofstream(d + name) << text; };
    const std::string et = fixture();
    write("run.pt.trace.json", "{\"traceEvents\": []}");
    QCOMPARE(findExecutionTraceBeside(d + "run.pt.trace.json"), std::string());
    // A JSON file with a matching name that is no execution trace does not count.
    write("run.et.json", "{\"traceEvents\": [], \"schema\": 1, \"nodes\": []}");
    QCOMPARE(findExecutionTraceBeside(d + "run.pt.trace.json"), std::string());
    write("run_et.json", et);
    QCOMPARE(findExecutionTraceBeside(d + "run.pt.trace.json"), d + "run_et.json");
    QCOMPARE(findExecutionTraceBeside(d + "run.pt.trace.json.gz"), d + "run_et.json");
    QCOMPARE(findExecutionTraceBeside(d + "run.json"), d + "run_et.json");
    write("run.et.json", et); // the first name tried wins
    QCOMPARE(findExecutionTraceBeside(d + "run.pt.trace.json"), d + "run.et.json");
    // Chakra's naming, per rank.
    write("pytorch_et_3.json", et);
    QCOMPARE(findExecutionTraceBeside(d + "kineto_trace_3.json"), d + "pytorch_et_3.json");
    QCOMPARE(findExecutionTraceBeside(d + "kineto_trace_4.json"), std::string());
    // An execution trace is not its own companion; a name without a trace suffix has none.
    QCOMPARE(findExecutionTraceBeside(d + "run.et.json"), std::string());
    QCOMPARE(findExecutionTraceBeside(d + "run"), std::string());
}

void TestEtReader::readsTorch113()
{
    const EtLoadResult r = readExecutionTrace(fixture());
    QVERIFY2(r.ok(), r.error.c_str());
    QVERIFY(r.warnings.empty());
    const ExecutionTrace& et = *r.trace;
    QCOMPARE(et.schema, std::string("1.0.1"));
    QCOMPARE(et.nodes().size(), size_t(28));
    QCOMPARE(et.opCount(), size_t(26));
    const EtNode& asStrided = et.nodes()[nodeIndex(et, 12)];
    QCOMPARE(asStrided.name, std::string("aten::as_strided"));
    QCOMPARE(asStrided.rfId, int64_t(4));
    QCOMPARE(asStrided.parent, int64_t(11));
    QCOMPARE(asStrided.inputs.size(), size_t(4));
    const EtTensor& in = asStrided.inputs[0].tensors.at(0);
    QCOMPARE(in.id, int64_t(5));
    QCOMPARE(in.storage, int64_t(6));
    QCOMPARE(in.numel, int64_t(32));
    QCOMPARE(in.itemSize, int64_t(4));
    QCOMPARE(in.device, std::string("cpu"));
    QCOMPARE(in.dtype, std::string("float"));
    QCOMPARE(in.shape, (std::vector<int64_t>{4, 8}));
    QVERIFY(!in.hasStrides); // 1.0.1 has no strides
    QVERIFY(asStrided.inputs[1].tensors.empty());
    QCOMPARE(asStrided.inputs[1].text, std::string("[8,4]"));
    QCOMPARE(asStrided.inputs[3].type, std::string("None"));
    QCOMPARE(asStrided.outputs.at(0).tensors.at(0).shape, (std::vector<int64_t>{8, 4}));
    QVERIFY(et.nodes()[nodeIndex(et, 1)].structural);
    QVERIFY(et.nodes()[nodeIndex(et, 2)].structural);
}

void TestEtReader::producersAndConsumers()
{
    const EtLoadResult r = readExecutionTrace(fixture());
    QVERIFY(r.ok());
    const ExecutionTrace& et = *r.trace;
    // addmm(bias, x, weight.t()): the transposed weight comes from aten::t (id 10), the outermost
    // of t > transpose > as_strided that outputs tensor 13; x and the bias come from outside.
    const uint32_t addmm = nodeIndex(et, 14);
    QCOMPARE(et.producerOf(addmm, 2), int64_t(nodeIndex(et, 10)));
    QCOMPARE(et.producerOf(addmm, 1), int64_t(-1));
    // aten::t's output is used by that addmm only: the second layer's aten::t outputs the same id
    // later (ids follow TensorImpl addresses), which ends the first tensor's uses.
    const auto users = et.consumersOf(nodeIndex(et, 10), 0);
    QCOMPARE(users.size(), size_t(1));
    QCOMPARE(et.nodes()[users[0]].id, int64_t(14));
    // relu's input is the first linear's output.
    QCOMPARE(et.producerOf(nodeIndex(et, 23), 0), int64_t(nodeIndex(et, 9)));
    QVERIFY(et.isAncestor(nodeIndex(et, 9), addmm));
    QVERIFY(!et.isAncestor(addmm, nodeIndex(et, 9)));
}

void TestEtReader::opensAloneAndLinksByRecordFunctionId()
{
    const std::string text = fixture();
    const LoadResult r = loadTraceData(text);
    QVERIFY2(r.ok(), r.error.c_str());
    QVERIFY(r.executionTrace);
    QVERIFY(!r.warnings.empty());
    QVERIFY(r.warnings.back().find("no times") != std::string::npos);
    QCOMPARE(r.trace->sliceCount(), size_t(26));
    const EtLinks links = EtLinks::link(*r.trace, *r.executionTrace);
    QCOMPARE(links.ops(), size_t(26));
    QCOMPARE(links.byRecordFunctionId(), size_t(26));
    QCOMPARE(links.byNameAndOrder(), size_t(0));
    const uint32_t addmm = nodeIndex(*r.executionTrace, 14);
    const SliceRef s = links.sliceOf(addmm);
    QVERIFY(s.valid());
    QCOMPARE(r.trace->sliceName(s), std::string_view("aten::addmm"));
    QCOMPARE(links.nodeOf(s), int64_t(addmm));
}

void TestEtReader::linksByNameAndOrder()
{
    // A profiler trace of the same ops without record-function ids (torch 1.13 writes none), one
    // op short: every op but the last aten::sum links, each to the op of its name and rank.
    std::string trace = "{\"traceEvents\":[";
    const EtLoadResult r = readExecutionTrace(fixture());
    QVERIFY(r.ok());
    int64_t ts = 0;
    bool first = true;
    size_t written = 0;
    for (const EtNode& n : r.trace->nodes()) {
        if (n.structural || (n.name == "aten::sum" && n.id == 43)) continue;
        trace += std::string(first ? "" : ",") + "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"" + n.name +
                 "\",\"pid\":1,\"tid\":1,\"ts\":" + std::to_string(ts) +
                 ",\"dur\":0.5,\"args\":{\"Record function id\":0}}";
        ts += 1;
        first = false;
        ++written;
    }
    trace += "]}";
    const LoadResult t = loadTraceData(trace);
    QVERIFY2(t.ok(), t.error.c_str());
    const EtLinks links = EtLinks::link(*t.trace, *r.trace);
    QCOMPARE(links.byRecordFunctionId(), size_t(0));
    QCOMPARE(links.byNameAndOrder(), written);
    QVERIFY(!links.sliceOf(nodeIndex(*r.trace, 43)).valid());
    // The second aten::linear (id 30) is the second slice of that name.
    const SliceRef second = links.sliceOf(nodeIndex(*r.trace, 30));
    QVERIFY(second.valid());
    QVERIFY(t.trace->slices(second.track).start(second.index) > 0);
}

void TestEtReader::truncatedKeepsCompleteNodes()
{
    const std::string text = fixture();
    const std::vector<size_t> ends = nodeEnds(text);
    QCOMPARE(ends.size(), size_t(28));
    for (size_t cut = 1; cut < text.size(); cut += 97) {
        const EtLoadResult r = readExecutionTrace(std::string_view(text).substr(0, cut));
        const size_t complete =
            size_t(std::count_if(ends.begin(), ends.end(), [&](size_t e) { return e <= cut; }));
        const std::string where = "cut at " + std::to_string(cut) + ": " + r.error;
        if (complete == 0) {
            QVERIFY2(!r.ok(), where.c_str());
            QVERIFY2(oneLine(r.error), where.c_str());
            QVERIFY2(r.error.find("truncated") != std::string::npos, where.c_str());
            continue;
        }
        QVERIFY2(r.ok(), where.c_str());
        QVERIFY(r.truncated);
        QCOMPARE(r.trace->nodes().size(), complete);
        QCOMPARE(r.warnings.at(0), "truncated at byte " + std::to_string(cut) + ", " +
                                       std::to_string(complete) + " nodes loaded");
    }
}

void TestEtReader::otherJsonIsOneLineError()
{
    for (const char* text : {"{\"schema\": \"1.0.1\", \"pid\": 1}", "[1, 2, 3]", "{\"nodes\": 7}", "nonsense",
                             "{\"schema\": \"1.0.1\", \"nodes\": [{\"id\": 2, \"name\": \"x\"} ,, ]}"}) {
        const EtLoadResult r = readExecutionTrace(text);
        QVERIFY2(!r.ok(), text);
        QVERIFY2(oneLine(r.error), r.error.c_str());
    }
    const EtLoadResult keys = readExecutionTrace("{\"schema\": \"1.0.1\", \"pid\": 1}");
    QVERIFY2(keys.error.find("no \"nodes\" array (its keys: pid, schema)") != std::string::npos,
             keys.error.c_str());
    // Found by fuzz_et: a number beyond double's range is an out_of_range, not a parse_error.
    const EtLoadResult huge = readExecutionTrace("{\"schema\": 888888E88888888888888, \"nodes\": []}");
    QVERIFY(!huge.ok());
    QVERIFY2(oneLine(huge.error), huge.error.c_str());
    QVERIFY2(huge.error.find("malformed execution trace") != std::string::npos, huge.error.c_str());
    const EtLoadResult bad = readExecutionTrace("{\"schema\": \"1.0.1\", \"nodes\": [{\"id\": 2,, }]}");
    QVERIFY2(bad.error.find("malformed execution trace at byte") != std::string::npos, bad.error.c_str());
    // Keys from the file reach the message without their control bytes.
    const EtLoadResult esc = readExecutionTrace("{\"schema\": \"1.0.1\", \"\\u001b[31m\": 1}");
    QVERIFY(esc.error.find('\x1b') == std::string::npos);
    QVERIFY2(esc.error.find("\\x1b[31m") != std::string::npos, esc.error.c_str());
    // Nesting without bound is refused before parsing (printing values recurses per level).
    const std::string deep =
        "{\"schema\": \"1.0.1\", \"nodes\": [" + std::string(5000, '[') + std::string(5000, ']') + "]}";
    const EtLoadResult d = readExecutionTrace(deep);
    QVERIFY2(d.error.find("nested deeper than 256 levels at byte") != std::string::npos, d.error.c_str());
    // A Kineto trace is not taken for an execution trace.
    QVERIFY(!looksLikeExecutionTrace("{\"schemaVersion\": 1, \"traceEvents\": [], \"nodes\": []}"));
    QVERIFY(looksLikeExecutionTrace(" {\"schema\": \"1.0.1\", \"pid\": 3, \"nodes\": ["));
}

void TestEtReader::badFieldsAndCyclesAreSurvived()
{
    const char* text = R"JSON({"schema": "1.1.1-chakra.0.0.4", "nodes": [
        {"id": "3", "name": "aten::bad_id"},
        {"id": 4, "name": "aten::a", "ctrl_deps": 5, "inputs": {"values": [[9, 1, 0, 4, 4, "cpu"]],
         "shapes": [[2, 2]], "types": ["Tensor(float)"], "strides": [[2, 1]]},
         "outputs": {"values": 17, "shapes": "x", "types": null}},
        {"id": 5, "name": "aten::b", "ctrl_deps": 4, "attrs": [{"name": "rf_id", "value": "seven"}, 3],
         "inputs": {"values": [[9, 1, 0, 4, 4, "cpu"], [1, 2]], "shapes": [[2], []], "types": ["Tensor(half)"]}},
        {"id": 5, "name": "aten::dup"}
    ]})JSON";
    const EtLoadResult r = readExecutionTrace(text);
    QVERIFY2(r.ok(), r.error.c_str());
    QCOMPARE(r.warnings.size(), size_t(2)); // one node skipped, one id twice
    const ExecutionTrace& et = *r.trace;
    QCOMPARE(et.nodes().size(), size_t(3));
    const uint32_t a = nodeIndex(et, 4);
    // 4 and 5 name each other as parent: only the earlier one can be a parent, so no cycle.
    QCOMPARE(et.parentIndex(a), int64_t(-1));
    QVERIFY(et.nodes()[a].inputs[0].tensors.at(0).hasStrides);
    QCOMPARE(et.nodes()[a].inputs[0].tensors.at(0).strides, (std::vector<int64_t>{2, 1}));
    QVERIFY(et.nodes()[a].outputs.empty());
    QCOMPARE(et.producerOf(a, 0), int64_t(-1));
    QVERIFY(et.consumersOf(a, 0).empty());
}

void TestEtReader::flippedBytesNeverCrash()
{
    const std::string text = fixture();
    std::mt19937 rng(13);
    for (int round = 0; round < 300; ++round) {
        std::string bad = text;
        for (int k = 0; k < 4; ++k)
            bad[rng() % bad.size()] = "{}[],:\"0123456789-ae \\"[rng() % 22];
        const EtLoadResult r = readExecutionTrace(bad);
        if (!r.ok()) QVERIFY2(oneLine(r.error), r.error.c_str());
        const LoadResult t = loadTraceData(bad);
        if (!t.ok()) QVERIFY2(oneLine(t.error), t.error.c_str());
    }
}

QTEST_GUILESS_MAIN(TestEtReader)
#include "tst_etreader.moc"
