// Findings (analysis/overview/findings): each rule fires on its measured cause, names the numbers,
// links the events, and stays silent below its threshold.

#include "core/analysis/overview/findings.h"
#include "kinetoevents.h"

#include <QTest>
#include <cmath>

using namespace ks;
using namespace ks::test;

namespace {

const Finding* findingOf(const std::vector<Finding>& fs, Finding::Kind k)
{
    for (const Finding& f : fs)
        if (f.kind == k) return &f;
    return nullptr;
}

} // namespace

class TestFindings : public QObject {
    Q_OBJECT
private slots:
    // Three 100 µs steps, each with a 30 µs DataLoader op, a 20 µs memcpy launched by aten::to and
    // a 10 µs kernel; the third step is twice as long (step variation).
    void dataLoaderMemcpyAndStepVariation()
    {
        std::string e;
        int corr = 1;
        for (int s = 0; s < 3; ++s) {
            const int64_t t0 = s * 1000;
            const int64_t len = s == 2 ? 200 : 100;
            e += x("user_annotation", ("ProfilerStep#" + std::to_string(s)).c_str(), t0, len, 1);
            e += x("cpu_op", "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", t0, 30, 1,
                   "{\"External id\":" + std::to_string(100 + s) + "}");
            e += x("cpu_op", "aten::to", t0 + 40, 10, 1, "{\"External id\":" + std::to_string(200 + s) + "}");
            e += x("cuda_runtime", "cudaMemcpyAsync", t0 + 41, 5, 1,
                   "{\"correlation\":" + std::to_string(corr) +
                       ",\"External id\":" + std::to_string(200 + s) + "}");
            e += kernel("Memcpy HtoD (Pageable -> Device)", t0 + 50, 20, corr, 200 + s, "gpu_memcpy");
            ++corr;
            e += launch(t0 + 60, 5, corr, 0);
            e += kernel("gemm", t0 + 75, 10, corr, 0);
            ++corr;
        }
        auto t = loadEvents(e);
        LinkIndex links;
        links.build(*t);
        StepBreakdownAnalysis::Options noTail;
        noTail.removeTailSteps = false;
        const StepBreakdown b = StepBreakdownAnalysis(*t, links).compute(noTail);
        QCOMPARE(b.steps.size(), size_t(3));
        FindingsBuilder fb(*t, links);
        fb.addSteps(b);
        const std::vector<Finding> fs = fb.findings();
        const Finding* dl = findingOf(fs, Finding::Kind::DataLoader);
        QVERIFY(dl);
        QVERIFY(std::abs(dl->weight - 30.0 / (400.0 / 3)) < 1e-9); // 30 µs of a 133.3 µs mean step
        QVERIFY2(dl->title.find("DataLoader 22% of the step (0.03 ms per step)") == 0, dl->title.c_str());
        const Finding* mc = findingOf(fs, Finding::Kind::Memcpy);
        QVERIFY(mc);
        QVERIFY2(mc->detail.find("aten::to (1)") != std::string::npos, mc->detail.c_str());
        QCOMPARE(mc->events.size(), size_t(1)); // the slowest step's memcpy
        const Finding* var = findingOf(fs, Finding::Kind::StepVariance);
        QVERIFY(var);
        QVERIFY2(var->title.find("step 2 took 0.20 ms") != std::string::npos, var->title.c_str());
        QCOMPARE(var->from, us(2000));
        // Heaviest first.
        for (size_t i = 1; i < fs.size(); ++i)
            QVERIFY(fs[i - 1].weight >= fs[i].weight);
        // No communication, no launch-bound claims without their causes.
        QVERIFY(!findingOf(fs, Finding::Kind::Communication));
        QVERIFY(!findingOf(fs, Finding::Kind::LaunchBound));
    }

    // 1500 kernels of 2 µs from one op: launch-bound; 10 of 2 µs are not.
    void manyShortKernelsAreLaunchBound()
    {
        for (int n : {1500, 10}) {
            std::string e = x("cpu_op", "aten::add_", 0, 100000, 1, "{\"External id\":5}");
            for (int i = 0; i < n; ++i) {
                e += launch(1 + i * 10, 3, i + 1, 5);
                e += kernel("vectorized_elementwise_kernel", 5 + i * 10, 2, i + 1, 5);
            }
            auto t = loadEvents(e);
            LinkIndex links;
            links.build(*t);
            FindingsBuilder fb(*t, links);
            fb.addLaunches(LaunchStatsAnalysis(*t, links).compute());
            const std::vector<Finding> fs = fb.findings();
            const Finding* lb = findingOf(fs, Finding::Kind::LaunchBound);
            if (n == 10) {
                QVERIFY(!lb);
                continue;
            }
            QVERIFY(lb);
            QVERIFY2(lb->title.find("1500 kernels under 5.0 µs") == 0, lb->title.c_str());
            QVERIFY2(lb->detail.find("aten::add_ (1500)") != std::string::npos, lb->detail.c_str());
        }
    }
};

QTEST_GUILESS_MAIN(TestFindings)
#include "tst_findings.moc"
