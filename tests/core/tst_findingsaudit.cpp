// The findings audit (issue 26): on every shared trace, each number a finding states must agree with
// the header and the tables on the same page (the GPU timeline, the step time breakdown, the launch
// statistics, the roofline and the ops table). A finding is read as a person reads it: from its
// title and detail text, not from the values it was made from.

#include "core/analysis/overview/overviewreport.h"
#include "core/io/tracereader.h"

#include <QDir>
#include <QDirIterator>
#include <QFileInfo>
#include <QTest>
#include <cmath>
#include <regex>
#include <set>

using namespace ks;

namespace {

// A printed duration ("12.34 ms", "5.0 µs", "100 ns") in ns, and half its last digit: what printing
// it may have rounded away.
struct Printed {
    double ns = 0;
    double slack = 0;
};

Printed printedDuration(const std::string& number, const std::string& unit)
{
    const double v = std::stod(number);
    const size_t dot = number.find('.');
    const int decimals = dot == std::string::npos ? 0 : int(number.size() - dot - 1);
    const double scale = unit == "ms" ? 1e6 : unit == "ns" ? 1.0 : 1e3;
    return {v * scale, 0.5 * std::pow(10.0, -decimals) * scale + 1e-6 * v * scale};
}

bool near(const Printed& p, double ns)
{
    return std::abs(p.ns - ns) <= p.slack;
}

// A printed whole percentage agrees with a share when it is that share rounded.
bool samePercent(int printed, double share)
{
    return std::abs(double(printed) - share * 100) <= 0.5 + 1e-9;
}

std::string fmt(double v)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}

double stepShare(const StepBreakdown& b, std::initializer_list<StepCategory> cats, double& perStep)
{
    perStep = 0;
    for (StepCategory c : cats)
        perStep += b.average[size_t(c)];
    return b.averageTotal > 0 ? perStep / b.averageTotal : 0;
}

// Every disagreement between the findings of one report and the rest of its page.
std::vector<std::string> audit(const OverviewReport& r)
{
    std::vector<std::string> bad;
    const GpuTimelineMetrics& m = r.gpu.timeline;
    const std::regex duration(R"(([0-9]+(?:\.[0-9]+)?) (ms|µs|ns))");
    const std::regex gpuIdle(R"(GPU idle ([0-9]+)%)");
    const std::regex gpuSpan(R"(([0-9]+)% of the GPU span \(([0-9.]+) (ms|µs|ns) of ([0-9.]+) (ms|µs|ns))");
    const std::regex stepPart(
        R"(^(DataLoader|Memory copies|Runtime calls \(CUDA/HIP\)|Host-bound: no GPU work) )"
        R"(([0-9]+)% of the (?:step|trace)(?:.*?\(([0-9.]+) (ms|µs|ns) per step)?)");
    const std::regex variance(
        R"(step (\S+) took ([0-9.]+) (ms|µs|ns), the median step ([0-9.]+) (ms|µs|ns))");
    const std::regex shortKernels(R"(^([0-9]+) kernels under .* \(([0-9]+)% of launches\))");
    const std::regex delays(
        R"(^([0-9]+) launches waited over 100 µs to start on the GPU \(longest ([0-9.]+) (ms|µs|ns)\))");
    const std::regex roofShare(R"(\(.*, ([0-9]+)% of GPU time\)$)");
    const std::regex launchers(R"((?:from|most come from) ((?:[^,;.(]+ \([0-9]+\)(?:, )?)+))");
    const std::regex oneLauncher(R"(([^,]+?) \(([0-9]+)\))");
    std::set<std::string> opNames;
    for (const OpsSummaryRow& o : r.gpu.kernelsByCode.ops)
        opNames.insert(o.name);
    for (const KernelSummaryRow& k : r.gpu.kernelsByCode.kernels)
        opNames.insert(k.parentOp);

    for (const Finding& f : r.findings) {
        const std::string& t = f.title;
        auto fail = [&](const std::string& why) { bad.push_back("\"" + t + "\": " + why); };
        std::smatch s;
        // No duration that rounds a nonzero value to nothing.
        for (auto it = std::sregex_iterator(t.begin(), t.end(), duration); it != std::sregex_iterator(); ++it)
            if (std::stod((*it)[1].str()) == 0) fail("prints a zero duration");
        // "GPU idle P%" is the header's idle share, whichever finding says it.
        if (std::regex_search(t, s, gpuIdle) && m.valid && m.total > 0 &&
            !samePercent(std::stoi(s[1].str()), double(m.idle) / double(m.total)))
            fail("the header's idle is " + fmt(100.0 * double(m.idle) / double(m.total)) + "%");
        if (std::regex_search(t, s, gpuSpan)) {
            if (!m.valid || m.total <= 0) {
                fail("a GPU span share without a GPU timeline");
            } else {
                const bool comm = f.kind == Finding::Kind::Communication;
                const double part = double(comm ? m.exposedComm : m.idle);
                const double whole = double(comm ? m.totalComm : m.total);
                if (!samePercent(std::stoi(s[1].str()), part / double(m.total)))
                    fail("the header's share is " + fmt(100 * part / double(m.total)) + "%");
                if (!near(printedDuration(s[2].str(), s[3].str()), part))
                    fail("the header's time is " + fmt(part) + " ns");
                if (!near(printedDuration(s[4].str(), s[5].str()), whole))
                    fail("the header's whole is " + fmt(whole) + " ns");
            }
        }
        if (std::regex_search(t, s, stepPart)) {
            const std::string what = s[1].str();
            double perStep = 0;
            const double share =
                what == "DataLoader"      ? stepShare(r.steps, {StepCategory::DataLoader}, perStep)
                : what == "Memory copies" ? stepShare(r.steps, {StepCategory::Memcpy}, perStep)
                : what.rfind("Runtime", 0) == 0
                    ? stepShare(r.steps, {StepCategory::Runtime}, perStep)
                    : stepShare(r.steps, {StepCategory::CpuExec, StepCategory::Other}, perStep);
            if (!samePercent(std::stoi(s[2].str()), share))
                fail("the step table's share is " + fmt(100 * share) + "%");
            if (s[3].matched && !near(printedDuration(s[3].str(), s[4].str()), perStep))
                fail("the step table's time per step is " + fmt(perStep) + " ns");
        }
        if (std::regex_search(t, s, variance)) {
            bool found = false;
            for (const StepCosts& c : r.steps.steps)
                found |=
                    c.name == s[1].str() && near(printedDuration(s[2].str(), s[3].str()), double(c.total()));
            if (!found) fail("no step " + s[1].str() + " of that length in the step table");
        }
        if (std::regex_search(t, s, shortKernels)) {
            const size_t n = std::stoul(s[1].str());
            if (r.launches.launches.empty() ||
                !samePercent(std::stoi(s[2].str()), double(n) / double(r.launches.launches.size())))
                fail("not that share of the " + std::to_string(r.launches.launches.size()) + " launches");
        }
        if (std::regex_search(t, s, delays)) {
            TimeNs longest = 0;
            for (const Launch& l : r.launches.launches)
                longest = std::max(longest, l.launchDelay);
            if (std::stoull(s[1].str()) != r.launches.longDelays)
                fail("the launch statistics count " + std::to_string(r.launches.longDelays));
            if (!near(printedDuration(s[2].str(), s[3].str()), double(longest)))
                fail("the longest launch delay is " + fmt(double(longest)) + " ns");
        }
        if (f.kind == Finding::Kind::LowEfficiency && std::regex_search(t, s, roofShare)) {
            bool found = false;
            for (const RooflinePoint& p : r.roofline)
                if (t.find(p.label) != std::string::npos && m.busy > 0 &&
                    samePercent(std::stoi(s[1].str()), p.kernelUs * 1e3 / double(m.busy)))
                    found = true;
            if (!found) fail("no roofline point with that share of the GPU busy time");
        }
        // The ops a finding names as launchers are the ops of the page's tables.
        const std::string& d = f.detail;
        if (std::regex_search(d, s, launchers)) {
            const std::string list = s[1].str();
            for (auto it = std::sregex_iterator(list.begin(), list.end(), oneLauncher);
                 it != std::sregex_iterator(); ++it) {
                std::string name = (*it)[1].str();
                name.erase(0, name.find_first_not_of(' '));
                if (!opNames.count(name)) fail("names " + name + ", which is in no op table");
            }
        }
    }
    return bad;
}

} // namespace

class TestFindingsAudit : public QObject {
    Q_OBJECT
private slots:
    void everySharedTrace()
    {
        const QString dir = QStringLiteral(KS_SHARED_TRACES);
        if (!QDir(dir).exists()) QSKIP("shared traces folder not present");
        QDirIterator it(dir, {QStringLiteral("*.json"), QStringLiteral("*.json.gz")}, QDir::Files,
                        QDirIterator::Subdirectories);
        QStringList files;
        while (it.hasNext())
            files << it.next();
        files.sort();
        QVERIFY(!files.isEmpty());
        std::vector<std::string> problems;
        size_t findings = 0, traces = 0;
        for (const QString& file : files) {
            LoadResult loaded = loadTraceFile(file.toStdString());
            if (!loaded.trace) continue; // not a trace (tests of the reader cover these)
            ++traces;
            LinkIndex links;
            links.build(*loaded.trace);
            const OverviewReport r = buildOverview(*loaded.trace, links);
            findings += r.findings.size();
            for (const std::string& p : audit(r))
                problems.push_back(QFileInfo(file).fileName().toStdString() + ": " + p);
        }
        for (const std::string& p : problems)
            qWarning("%s", p.c_str());
        QVERIFY2(problems.empty(),
                 (std::to_string(problems.size()) + " findings disagree with their page").c_str());
        qInfo("%zu traces, %zu findings audited", traces, findings);
        QVERIFY(traces > 0 && findings > 0); // the audit read something
    }

    // The trace of issue 26's defect 2: the header says idle 0.00%, and no finding may say otherwise.
    void beforeFixTraceAgreesWithItself()
    {
        const std::string path = KS_SHARED_TRACES "/pytorch_kineto__docs__traces__before_fix_trace.json";
        if (!QFile::exists(QString::fromStdString(path))) QSKIP("shared traces not present");
        LoadResult loaded = loadTraceFile(path);
        QVERIFY(loaded.trace);
        LinkIndex links;
        links.build(*loaded.trace);
        const OverviewReport r = buildOverview(*loaded.trace, links);
        // By hand from the file: one 20 ns kernel is all the GPU work, so TraceLens's span is those
        // 20 ns and idle 0; the CPU ops cover 130 ns, of which 100 ns run with no GPU work (77%).
        QCOMPARE(r.gpu.timeline.total, TimeNs(20));
        QCOMPARE(r.gpu.timeline.idle, TimeNs(0));
        bool hostBound = false;
        for (const Finding& f : r.findings) {
            QVERIFY2(f.title.find("GPU idle 77%") == std::string::npos, f.title.c_str());
            if (f.kind == Finding::Kind::CpuBound) {
                hostBound = true;
                QVERIFY2(f.title.find("no GPU work 77% of the trace") != std::string::npos, f.title.c_str());
                QVERIFY2(f.title.find("(100 ns per step") != std::string::npos, f.title.c_str());
            }
        }
        QVERIFY(hostBound);
        const std::vector<std::string> bad = audit(r);
        QVERIFY2(bad.empty(), bad.empty() ? "" : bad.front().c_str());
    }
};

QTEST_GUILESS_MAIN(TestFindingsAudit)
#include "tst_findingsaudit.moc"
