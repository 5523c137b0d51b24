#include "core/analysis/timeline/search.h"
#include "core/io/tracereader.h"

#include <QRegularExpression>
#include <QTest>

using namespace ks;
using namespace Qt::StringLiterals;

namespace {

// Counts matches by testing every slice's own name, without the name table the search uses.
size_t bruteForce(const Trace& t, const QString& text, bool regex)
{
    const QRegularExpression re(regex ? text : QRegularExpression::escape(text),
                                QRegularExpression::CaseInsensitiveOption);
    size_t n = 0;
    for (size_t i = 0; i < t.trackCount(); ++i) {
        const SliceTrack& st = t.slices(TrackId(uint32_t(i)));
        for (size_t r = 0; r < st.size(); ++r) {
            const std::string_view name = t.str(st.name(r));
            n += re.match(QString::fromUtf8(name.data(), qsizetype(name.size()))).hasMatch();
        }
    }
    return n;
}

} // namespace

class TestSearch : public QObject {
    Q_OBJECT
private slots:
    void matchesBruteForce_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("text");
        QTest::addColumn<bool>("regex");
        const QString qwen =
            u"AMD-AGI_TraceLens__tests__traces__h100__Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz"_s;
        const QString resnet =
            u"pytorch_kineto__tb_plugin__samples__resnet50_num_workers_0__worker0.pt.trace.json.gz"_s;
        QTest::newRow("qwen aten::") << qwen << "aten::" << false;
        QTest::newRow("qwen GEMM (case)") << qwen << "GEMM" << false;
        QTest::newRow("qwen regex") << qwen << "^aten::(mm|addmm|linear)$" << true;
        QTest::newRow("qwen launch") << qwen << "cudaLaunchKernel" << false;
        QTest::newRow("resnet conv") << resnet << "conv" << false;
        QTest::newRow("resnet regex") << resnet << "batch_?norm" << true;
    }
    void matchesBruteForce()
    {
        QFETCH(QString, file);
        QFETCH(QString, text);
        QFETCH(bool, regex);
        const LoadResult r = loadTraceFile(std::string(KS_SHARED_TRACES "/") + file.toStdString());
        QVERIFY(r.ok());
        SearchQuery q;
        q.text = text.toStdString();
        q.regex = regex;
        const SearchResult res = searchSlices(*r.trace, q);
        QVERIFY(res.error.empty());
        const size_t expected = bruteForce(*r.trace, text, regex);
        QVERIFY(expected > 0);
        QCOMPARE(res.matches.size(), expected);
        for (size_t i = 1; i < res.matches.size(); ++i) {
            const SliceRef a = res.matches[i - 1], b = res.matches[i];
            QVERIFY(r.trace->slices(a.track).start(a.index) <= r.trace->slices(b.track).start(b.index));
        }
    }

    void caseSensitiveAndBadRegex()
    {
        const LoadResult r =
            loadTraceFile(KS_SHARED_TRACES
                          "/AMD-AGI_TraceLens__tests__traces__h100__Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz");
        QVERIFY(r.ok());
        SearchQuery q;
        q.text = "ATEN::";
        q.caseSensitive = true;
        QCOMPARE(searchSlices(*r.trace, q).matches.size(), size_t(0));
        q.caseSensitive = false;
        QVERIFY(searchSlices(*r.trace, q).matches.size() > 0);
        q.text = "(unclosed";
        q.regex = true;
        const SearchResult bad = searchSlices(*r.trace, q);
        QVERIFY(!bad.error.empty());
        QVERIFY(bad.matches.empty());
    }
};

QTEST_GUILESS_MAIN(TestSearch)
#include "tst_search.moc"
