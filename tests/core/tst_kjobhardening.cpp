// .kjob files (job summaries) built to break the reader: numbers that no int holds, and nesting far
// deeper than any job file has. Each gives a one-line error, never undefined behaviour or a crash.

#include "core/analysis/ranks/jobsummary.h"
#include "core/analysis/ranks/kjob.h"

#include <QTest>
#include <string>

using namespace ks;

namespace {

std::string rankWith(const std::string& members)
{
    return "{\"format\":\"kinetoscope-rank\",\"version\":1" + members + "}";
}

std::string jobWith(const std::string& version, const std::string& ranks = "[]")
{
    return "{\"format\":\"kinetoscope-job\",\"version\":" + version + ",\"ranks\":" + ranks + "}";
}

const char* kColumns = ",\"collective_columns\":[\"op\",\"name\",\"dtype\",\"elements\",\"bytes\","
                       "\"group_size\",\"stream\",\"step\",\"start_ns\",\"duration_ns\",\"on_device\"],"
                       "\"collective_names\":[\"nccl\"]";

std::string collectiveWith(const std::string& elements, const std::string& name = "0")
{
    return rankWith(std::string(kColumns) + ",\"collectives\":[[\"allreduce\"," + name + ",\"Float\"," +
                    elements + ",4,2,7,0,1,2,true]]");
}

} // namespace

class TestKjobHardening : public QObject {
    Q_OBJECT
private slots:
    // The version as the file wrote it, whatever it is; only whole numbers in range are versions.
    void versionIsShownAsWritten()
    {
        struct Case {
            const char* version;
            const char* shown;
        };
        for (const Case c :
             {Case{"1e300", "1e+300"}, Case{"-1e300", "-1e+300"}, Case{"2147483648", "2147483648"},
              Case{"4294967297", "4294967297"}, Case{"1.5", "1.5"}, Case{"\"1\"", "\"1\""},
              Case{"18446744073709551615", "18446744073709551615"}, Case{"-1", "-1"}}) {
            JobSummary job;
            std::string error;
            QVERIFY2(!jobSummaryFromJson(jobWith(c.version), job, error), c.version);
            QVERIFY2(error.find(std::string("job file version ") + c.shown + " ") != std::string::npos,
                     error.c_str());
            RankSummary rank;
            const std::string r =
                "{\"format\":\"kinetoscope-rank\",\"version\":" + std::string(c.version) + "}";
            QVERIFY(!rankSummaryFromJson(r, rank, error));
            QVERIFY2(error.find(std::string("rank summary version ") + c.shown + " ") != std::string::npos,
                     error.c_str());
        }
    }

    // Fields that hold integers refuse doubles no integer holds (a cast would be undefined) and
    // integers out of their type's range.
    void integerFieldsRefuseOutOfRangeNumbers()
    {
        for (const std::string& bad :
             {rankWith(",\"rank\":1e300"), rankWith(",\"slices\":-1"), rankWith(",\"start_ns\":9.3e18"),
              rankWith(",\"rank\":nan"), rankWith(",\"steps\":[{\"number\":-1e19}]"),
              rankWith(",\"categories\":[\"Kernel\"],\"steps\":[{\"cost_ns\":[1e300]}]"),
              collectiveWith("1e300"), collectiveWith("1", "1e300"), collectiveWith("1", "-1"),
              collectiveWith("0.5")}) {
            RankSummary r;
            std::string error;
            QVERIFY2(!rankSummaryFromJson(bad, r, error), bad.c_str());
            QVERIFY(!error.empty());
            QVERIFY(error.find('\n') == std::string::npos);
        }
        // Whole doubles in range still read (older writers, hand-edited files).
        RankSummary r;
        std::string error;
        QVERIFY2(rankSummaryFromJson(rankWith(",\"rank\":3.0,\"start_ns\":-9.2e18"), r, error),
                 error.c_str());
        QCOMPARE(r.rank, int64_t(3));
        QCOMPARE(r.start, int64_t(-9200000000000000000));
        QVERIFY2(rankSummaryFromJson(collectiveWith("2e3"), r, error), error.c_str());
        QCOMPARE(r.collectives.size(), size_t(1));
        QCOMPARE(r.collectives[0].elements, int64_t(2000));
    }

    // Arrays and objects nested 300k deep wherever a job file holds a value: a one-line error, not a
    // stack overflow in a recursive copy. Real nesting (a few levels) still reads.
    void deepNestingIsRefused()
    {
        const size_t n = 300000;
        const std::string arrays = std::string(n, '[') + std::string(n, ']');
        std::string objects;
        for (size_t i = 0; i < n; ++i)
            objects += "{\"k\":";
        objects += "1" + std::string(n, '}');
        for (const std::string& deep : {arrays, objects}) {
            for (const std::string& text :
                 {jobWith("1", deep), jobWith("1", "[" + rankWith(",\"steps\":" + deep) + "]"),
                  jobWith("1", "[" + rankWith(",\"warnings\":" + deep) + "]"),
                  "{\"format\":\"kinetoscope-job\",\"version\":1,\"warnings\":" + deep + "}",
                  "{\"x\":" + deep + ",\"format\":\"kinetoscope-job\",\"version\":1}"}) {
                JobSummary job;
                std::string error;
                QVERIFY(!jobSummaryFromJson(text, job, error));
                QVERIFY2(error.find("nested more than") != std::string::npos, error.c_str());
            }
            RankSummary rank;
            std::string error;
            QVERIFY(!rankSummaryFromJson(rankWith(",\"categories\":" + deep), rank, error));
            QVERIFY2(error.find("nested more than") != std::string::npos, error.c_str());
        }
        JobSummary job;
        std::string error;
        QVERIFY2(
            jobSummaryFromJson(jobWith("1", "[" + rankWith(",\"x\":[[[[[[[[1]]]]]]]]") + "]"), job, error),
            error.c_str());
    }

    // Found by fuzz_kjob: nlohmann quotes the text it stopped at, and passes DEL and bytes that are
    // not UTF-8 through; the error is one escaped line.
    void errorsQuotingTheFileAreEscaped()
    {
        for (const std::string& text :
             {jobWith("1", "[1 \x7f]"), jobWith("1", "[1 \xff\x1b[2J]"), jobWith("\"\x7f\"")}) {
            JobSummary job;
            std::string error;
            QVERIFY(!jobSummaryFromJson(text, job, error));
            QVERIFY(!error.empty());
            for (unsigned char c : error)
                QVERIFY2(c >= 0x20 && c != 0x7f && c < 0x80, error.c_str());
            RankSummary rank;
            error.clear();
            QVERIFY(!rankSummaryFromJson(text, rank, error));
            for (unsigned char c : error)
                QVERIFY2(c >= 0x20 && c != 0x7f && c < 0x80, error.c_str());
        }
    }

    // Found by fuzz_kjob: the job views subtract and add times of different ranks; at the ends of
    // the int64 range they saturate instead of overflowing (a release build wrapped them negative).
    void jobViewsSaturate()
    {
        constexpr int64_t kMax = INT64_MAX, kMin = INT64_MIN;
        JobSummary job;
        for (int64_t r : {kMax, int64_t(0)}) {
            RankSummary rank;
            rank.rank = r;
            RankStep step;
            step.number = 1;
            step.start = kMin;
            step.end = kMax;
            rank.steps.push_back(step);
            for (int i = 0; i < 2; ++i) {
                Collective c;
                c.op = "allreduce";
                c.name = "ncclKernel";
                c.dtype = "Float";
                c.bytes = 4;
                c.groupSize = 2;
                c.stream = 7;
                c.step = 1;
                c.start = job.ranks.empty() ? kMin : kMax;
                c.duration = kMax;
                c.onDevice = true;
                rank.collectives.push_back(c);
            }
            job.ranks.push_back(rank);
        }
        job.normalize();
        QCOMPARE(job.ranks.size(), size_t(2));
        const std::vector<CollectiveRow> rows = collectiveTable(job);
        QCOMPARE(rows.size(), size_t(1));
        QCOMPARE(rows[0].maxSkew, kMax);
        for (const RankCollectiveRow& r : rankCollectiveTable(job))
            QCOMPARE(r.time, kMax);
        const StragglerReport s = findStragglers(job);
        QVERIFY2(s.available, s.why.c_str());
        for (const StragglerReport::StepRow& row : s.steps)
            QCOMPARE(row.spread, kMax);
    }
};

QTEST_GUILESS_MAIN(TestKjobHardening)
#include "tst_kjobhardening.moc"
