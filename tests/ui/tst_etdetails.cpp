// The details panel with an execution trace attached (panels/detailspanel, panels/etdetailshtml):
// an op linked to the trace shows its tensors, the op producing each input as a link to that op's
// slice, and the consumers of each output; a file that is no execution trace leaves a one-line
// reason in the panel.

#include "core/io/tracereader.h"
#include "core/io/tracewriter.h"
#include "ui/document/tracedocument.h"
#include "ui/panels/detailshtml.h"
#include "ui/panels/detailspanel.h"

#include <QTemporaryDir>
#include <QTest>
#include <fstream>

using namespace ks;
using namespace ks::ui;

namespace {

const std::string kFixture = std::string(KS_TEST_DATA_DIR) + "/et/linear_relu_torch113.json";

SliceRef sliceNamed(const Trace& t, std::string_view name, int nth = 0)
{
    for (size_t i = 0; i < t.trackCount(); ++i) {
        const SliceTrack& s = t.track(TrackId(uint32_t(i))).slices;
        for (size_t k = 0; k < s.size(); ++k)
            if (t.str(s.name(k)) == name && nth-- == 0) return SliceRef{TrackId(uint32_t(i)), uint32_t(k)};
    }
    return {};
}

} // namespace

class TestEtDetails : public QObject {
    Q_OBJECT

private slots:
    void showsTensorsAndEdges();
    void badFileLeavesReason();
    void theOneBesideTheTraceIsPairedOnOpen();
};

void TestEtDetails::theOneBesideTheTraceIsPairedOnOpen()
{
    // run.pt.trace.json (the execution trace's ops as a Kineto trace, with their record function
    // ids) and run.et.json beside it: loading the trace attaches the execution trace.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    LoadResult r = loadTraceFile(kFixture);
    QVERIFY2(r.ok(), r.error.c_str());
    const std::string tracePath = dir.filePath(QStringLiteral("run.pt.trace.json")).toStdString();
    QVERIFY(saveTraceFile(*r.trace, tracePath).ok);
    const std::atomic<bool> cancel{false};
    DocumentLoad alone = loadDocument(QString::fromStdString(tracePath), cancel, {});
    QVERIFY(alone.document && !alone.document->executionTrace);
    std::ifstream in(kFixture, std::ios::binary);
    std::ofstream(dir.filePath(QStringLiteral("run.et.json")).toStdString()) << in.rdbuf();
    DocumentLoad load = loadDocument(QString::fromStdString(tracePath), cancel, {});
    QVERIFY2(load.document, qPrintable(load.error));
    QVERIFY(load.document->executionTrace);
    DetailsPanel panel;
    panel.setDocument(load.document);
    panel.showSlice(sliceNamed(*load.document->trace, "aten::addmm"));
    const QString html = panel.toHtml();
    QVERIFY2(html.contains(QStringLiteral("run.et.json (found beside the trace): 26 of 26 ops linked")),
             qPrintable(html));
    QVERIFY(html.contains(QStringLiteral("tensor 13")));
}

void TestEtDetails::showsTensorsAndEdges()
{
    LoadResult r = loadTraceFile(kFixture);
    QVERIFY2(r.ok(), r.error.c_str());
    auto doc = makeDocument(std::move(r.trace), QString::fromStdString(kFixture));
    DetailsPanel panel;
    panel.setDocument(doc);
    QVERIFY(panel.attachExecutionTrace(QString::fromStdString(kFixture)));
    const SliceRef addmm = sliceNamed(*doc->trace, "aten::addmm");
    const SliceRef t = sliceNamed(*doc->trace, "aten::t");
    QVERIFY(addmm.valid() && t.valid());
    panel.showSlice(addmm);
    const QString html = panel.toHtml();
    QVERIFY(html.contains(QStringLiteral("Execution trace")));
    QVERIFY(html.contains(QStringLiteral("26 of 26 ops linked")));
    // The transposed weight (tensor 13, [8, 4]) comes from aten::t, whose slice is a link.
    QVERIFY2(html.contains(QStringLiteral("tensor 13")), qPrintable(html));
    QVERIFY(html.contains(QStringLiteral("[8, 4]")));
    QVERIFY(html.contains(sliceLink(t)));
    // aten::t's output is consumed by this addmm.
    panel.showSlice(t);
    QVERIFY(panel.toHtml().contains(sliceLink(addmm)));
}

void TestEtDetails::badFileLeavesReason()
{
    LoadResult r = loadTraceFile(kFixture);
    QVERIFY(r.ok());
    auto doc = makeDocument(std::move(r.trace));
    DetailsPanel panel;
    panel.setDocument(doc);
    QTemporaryDir dir;
    const QString bad = dir.filePath(QStringLiteral("kineto.json"));
    std::ofstream(bad.toStdString()) << "{\"traceEvents\": []}";
    QString error;
    QVERIFY(!panel.attachExecutionTrace(bad, &error));
    QVERIFY2(error.contains(QStringLiteral("no \"nodes\" array")), qPrintable(error));
    QVERIFY(!error.contains(QLatin1Char('\n')));
    panel.showSlice(sliceNamed(*doc->trace, "aten::addmm"));
    QVERIFY(!panel.toHtml().contains(QStringLiteral("tensor 13")));
}

QTEST_MAIN(TestEtDetails)
#include "tst_etdetails.moc"
