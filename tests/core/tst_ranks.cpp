// Many-rank analysis: per-rank summaries, the job runner, stragglers, collectives and the .kjob
// file, on generated jobs whose numbers are known (bench/rankgen.h) and on HTA's real rank pair.

#include "core/analysis/ranks/jobrunner.h"
#include "core/analysis/ranks/kjob.h"
#include "core/io/jobfiles.h"
#include "core/io/tracereader.h"
#include "jsonfile.h"
#include "rankgen.h"

#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>
#include <fstream>
#include <limits>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>
#include <tuple>

using namespace Qt::StringLiterals;
using namespace ks;

namespace {

LoadedRank loadRank(const std::string& path, unsigned threads)
{
    LoadOptions o;
    o.threads = threads;
    LoadResult r = loadTraceFile(path, o);
    return LoadedRank{std::move(r.trace), r.error, r.warnings};
}

void writeFile(const std::string& path, const std::string& text)
{
    std::ofstream(path, std::ios::binary) << text;
}

// Writes every rank of a generated job into dir; returns the inputs in rank order.
std::vector<RankInput> writeJob(const QTemporaryDir& dir, const rankgen::Options& o)
{
    std::vector<RankInput> inputs;
    for (int r = 0; r < o.world; ++r) {
        const std::string path = dir.filePath(QStringLiteral("rank-%1.json").arg(r)).toStdString();
        writeFile(path, rankgen::rankTrace(o, r));
        inputs.push_back(RankInput{path, -1});
    }
    return inputs;
}

constexpr TimeNs us(int64_t v)
{
    return v * 1000;
}

const CollectiveRow* findRow(const std::vector<CollectiveRow>& rows, const std::string& op)
{
    for (const CollectiveRow& r : rows)
        if (r.op == op) return &r;
    return nullptr;
}

// HTA's NCCL test trace: rank 0 of 2, three ProfilerSteps, NCCL allreduces on stream 40.
const char* const kNcclTrace =
    "facebookresearch_HolisticTraceAnalysis__tests__data__nccl_parser_config__nccl_data.json.gz";

// A job of `world` copies of one real trace, each claiming its rank; the copy of rank `slow` runs
// `stretch` times slower: every timestamp and duration scaled from the trace's first timestamp, so
// each of its steps (and the collective in it) starts later than on the other ranks.
std::vector<RankInput> writeCopies(const QTemporaryDir& dir, const nlohmann::json& doc, int world,
                                   int slow = -1, double stretch = 1.0)
{
    double t0 = std::numeric_limits<double>::max();
    for (const auto& e : doc["traceEvents"])
        if (e.contains("ts") && e["ts"].is_number()) t0 = std::min(t0, e["ts"].get<double>());
    std::vector<RankInput> inputs;
    for (int r = 0; r < world; ++r) {
        nlohmann::json copy = doc;
        copy["distributedInfo"]["rank"] = r;
        copy["distributedInfo"]["world_size"] = world;
        if (r == slow) {
            for (auto& e : copy["traceEvents"]) {
                if (e.contains("ts") && e["ts"].is_number())
                    e["ts"] = t0 + (e["ts"].get<double>() - t0) * stretch;
                if (e.contains("dur") && e["dur"].is_number()) e["dur"] = e["dur"].get<double>() * stretch;
            }
        }
        const std::string path = dir.filePath(QStringLiteral("rank-%1.json").arg(r)).toStdString();
        writeFile(path, copy.dump());
        inputs.push_back(RankInput{path, -1});
    }
    return inputs;
}

} // namespace

class TestRanks : public QObject {
    Q_OBJECT
private slots:
    void collectiveNamesNormalizeToNcclTestsOps();
    void generatedJobHasExactStepsOverlapAndCollectives();
    void stragglerIsTheRankWhoseComputationEndsLate();
    void fewerRanksThanWorldSizeIsWarned();
    void identicalRealRanksHaveNoStraggler();
    void stretchedRealRankIsTheOnlyStraggler_data();
    void stretchedRealRankIsTheOnlyStraggler();
    void slowRankShowsInTheStepMatrix();
    void jobFileRoundTripsEveryNumber();
    void corruptRankIsReportedAndTheOthersKept();
    void atMostNRanksAreLoadedAtOnce();
    void jobDirectoryIsRecognisedByRankAndWorkerNames();
    void realHtaRankPairMatchesIndependentComputation();
    void realTracesCarryTheCollectiveArgsOnTheKernel();
};

void TestRanks::collectiveNamesNormalizeToNcclTestsOps()
{
    QCOMPARE(normalizeCollectiveOp("nccl:all_reduce"), std::string("allreduce"));
    QCOMPARE(normalizeCollectiveOp("_allgather_base"), std::string("allgather"));
    QCOMPARE(normalizeCollectiveOp("all_gather_into_tensor_coalesced"), std::string("allgather"));
    QCOMPARE(normalizeCollectiveOp("c10d::_reduce_scatter_base_"), std::string("reducescatter"));
    QCOMPARE(normalizeCollectiveOp("nccl:all_to_all"), std::string("alltoall"));
    QCOMPARE(normalizeCollectiveOp("aten::mm"), std::string());
    QCOMPARE(collectiveOpFromKernelName("ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*)"),
             std::string("allreduce"));
    QCOMPARE(collectiveOpFromKernelName("ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)"),
             std::string("sendrecv"));
    QCOMPARE(busBandwidthFactor("allreduce", 8), 2.0 * 7 / 8);
    QCOMPARE(busBandwidthFactor("allgather", 8), 7.0 / 8);
    QCOMPARE(busBandwidthFactor("reducescatter", 4), 3.0 / 4);
    QCOMPARE(busBandwidthFactor("alltoall", 4), 3.0 / 4);
    QCOMPARE(busBandwidthFactor("broadcast", 8), 1.0);
    QCOMPARE(dtypeSize("c10::BFloat16"), 2);
    QCOMPARE(dtypeSize("unsigned char"), 1);
    QCOMPARE(dtypeSize("Float"), 4);
}

void TestRanks::generatedJobHasExactStepsOverlapAndCollectives()
{
    QTemporaryDir dir;
    rankgen::Options o;
    o.world = 8;
    o.steps = 3;
    const JobSummary job = runJob(writeJob(dir, o), loadRank);
    QCOMPARE(job.ranks.size(), size_t(8));
    QVERIFY(job.failures.empty());
    for (int r = 0; r < o.world; ++r) {
        const RankSummary& s = job.ranks[size_t(r)];
        QCOMPARE(s.rank, int64_t(r));
        QCOMPARE(s.worldSize, int64_t(8));
        QCOMPARE(s.backend, std::string("nccl"));
        QCOMPARE(s.steps.size(), size_t(3));
        for (int k = 0; k < 3; ++k) {
            const RankStep& st = s.steps[size_t(k)];
            QCOMPARE(st.number, int64_t(k + 1));
            QCOMPARE(st.start, us(o.t0 + k * o.period));
            QCOMPARE(st.total(), us(o.period));
            // HTA overlap inside the step: the allreduce overlaps the gemm by `overlap` µs; the
            // allgather overlaps nothing.
            QCOMPARE(st.overlapTime, us(o.overlap));
            QCOMPARE(st.commTime, us(rankgen::allreduceUs(o, r) + 50));
        }
        QCOMPARE(s.overlapTime, us(3 * o.overlap));
        QCOMPARE(s.commTime, us(3 * (rankgen::allreduceUs(o, r) + 50)));
        QCOMPARE(s.collectives.size(), size_t(6));
        const Collective& ar = s.collectives[0];
        QCOMPARE(ar.op, std::string("allreduce"));
        QCOMPARE(ar.bytes, int64_t(4) << 20);
        QCOMPARE(ar.groupSize, int64_t(8));
        QCOMPARE(ar.step, int64_t(1));
        QCOMPARE(ar.duration, us(rankgen::allreduceUs(o, r)));
        const Collective& ag = s.collectives[1];
        QCOMPARE(ag.op, std::string("allgather"));
        QCOMPARE(ag.bytes, int64_t(1000 * 8 * 2));
        QCOMPARE(ag.dtype, std::string("BFloat16"));
    }

    const std::vector<CollectiveRow> rows = collectiveTable(job);
    const CollectiveRow* ar = findRow(rows, "allreduce");
    const CollectiveRow* ag = findRow(rows, "allgather");
    QVERIFY(ar && ag);
    QCOMPARE(ar->calls, size_t(24));
    QCOMPARE(ar->ranks, size_t(8));
    double arTime = 0;
    for (int r = 0; r < 8; ++r)
        arTime += double(us(rankgen::allreduceUs(o, r)));
    QCOMPARE(ar->meanLatency, arTime / 8);
    QCOMPARE(ar->algBandwidth, double(4 << 20) * 8 / arTime);
    QCOMPARE(ar->busBandwidth, ar->algBandwidth * 2.0 * 7 / 8);
    // Every instance: rank 7 computes longest (compute + rank), so it starts its allreduce last.
    QCOMPARE(ar->maxSkew, us(7));
    QCOMPARE(ar->lateRank, int64_t(7));
    QCOMPARE(ag->meanLatency, double(us(50)));
    QCOMPARE(ag->algBandwidth, 16000.0 / 50000.0);
    QCOMPARE(ag->busBandwidth, 16000.0 / 50000.0 * 7 / 8);
    QCOMPARE(ag->maxSkew, us(7));

    const std::vector<RankCollectiveRow> perRank = rankCollectiveTable(job);
    QCOMPARE(perRank.size(), size_t(16)); // 8 ranks × 2 ops
    QCOMPARE(perRank[0].rank, int64_t(0));
    QCOMPARE(perRank[0].calls, size_t(3));
}

void TestRanks::stragglerIsTheRankWhoseComputationEndsLate()
{
    QTemporaryDir dir;
    rankgen::Options o;
    o.world = 16;
    o.steps = 4;
    o.straggler = 5;
    const JobSummary job = runJob(writeJob(dir, o), loadRank);
    QCOMPARE(job.ranks.size(), size_t(16));
    const StragglerReport s = findStragglers(job);
    QVERIFY2(s.available, s.why.c_str());
    // The allgather (50 µs) is under 1% of the 10 ms step: the allreduce is the metric kernel.
    QVERIFY(s.kernel.starts_with("ncclDevKernel_AllReduce"));
    QCOMPARE(s.stream, int64_t(20));
    QCOMPARE(s.steps.size(), size_t(4));
    for (const auto& row : s.steps) {
        QCOMPARE(row.latestRank, int64_t(5));
        QCOMPARE(row.spread, us(o.stragglerDelay + 5));
        // HTA's two latest are the straggler and the next latest rank (15: compute + rank), but rank
        // 15 starts 15 us after the earliest, within the tolerance (1% of the 10 ms step): on time.
        QCOMPARE(row.stragglers, (std::vector<int64_t>{5}));
    }
    QCOMPARE(s.tolerance, us(100));
    QCOMPARE(s.counts.size(), size_t(1));
    QCOMPARE(s.counts[0], (std::pair<int64_t, int>{5, 4}));
    QCOMPARE(s.stragglers, (std::vector<int64_t>{5}));
    QCOMPARE(collectiveTable(job).front().lateRank, int64_t(5));
}

void TestRanks::fewerRanksThanWorldSizeIsWarned()
{
    JobSummary job;
    for (int64_t rank : {3, 0, 1}) {
        RankSummary r;
        r.rank = rank;
        r.worldSize = 8;
        r.path = "rank" + std::to_string(rank) + ".json";
        job.ranks.push_back(r);
    }
    job.failures.push_back(RankFailure{"rank4.json", 4, "truncated", 1});
    job.normalize();
    QCOMPARE(job.warnings.size(), size_t(1));
    QCOMPARE(job.warnings[0],
             std::string("the traces say world_size 8 but 4 ranks were given (missing: ranks 2, 5, "
                         "6, 7); job-wide results cover only these ranks"));
    job.normalize(); // as a job file read back: once
    QCOMPARE(job.warnings.size(), size_t(1));

    JobSummary whole;
    for (int64_t rank : {0, 1}) {
        RankSummary r;
        r.rank = rank;
        r.worldSize = 2;
        whole.ranks.push_back(r);
    }
    whole.normalize();
    QVERIFY(whole.warnings.empty());
}

void TestRanks::identicalRealRanksHaveNoStraggler()
{
    const std::string trace = std::string(KS_SHARED_TRACES "/") + kNcclTrace;
    if (!QFile::exists(QString::fromStdString(trace))) QSKIP("shared traces not present");
    QTemporaryDir dir;
    const JobSummary job = runJob(writeCopies(dir, test::readJson(trace), 4), loadRank);
    QCOMPARE(job.ranks.size(), size_t(4));
    const StragglerReport s = findStragglers(job);
    QVERIFY2(s.available, s.why.c_str());
    QVERIFY(s.kernel.starts_with("ncclKernel_AllReduce"));
    QCOMPARE(s.steps.size(), size_t(3));
    for (const auto& row : s.steps) {
        QCOMPARE(row.spread, TimeNs(0));
        QVERIFY2(row.stragglers.empty(), std::to_string(row.stragglers.size()).c_str());
    }
    // HTA would name its first two candidates of a four-way tie; the ranks start together: none.
    QVERIFY(s.counts.empty());
    QVERIFY(s.stragglers.empty());
    QVERIFY2(s.verdict().starts_with("no straggler"), s.verdict().c_str());
}

void TestRanks::stretchedRealRankIsTheOnlyStraggler_data()
{
    QTest::addColumn<int>("world");
    QTest::addColumn<int>("slow");
    QTest::newRow("4 ranks, rank 2 slow") << 4 << 2;
    QTest::newRow("8 ranks, rank 5 slow") << 8 << 5;
}

void TestRanks::stretchedRealRankIsTheOnlyStraggler()
{
    QFETCH(int, world);
    QFETCH(int, slow);
    const std::string trace = std::string(KS_SHARED_TRACES "/") + kNcclTrace;
    if (!QFile::exists(QString::fromStdString(trace))) QSKIP("shared traces not present");
    QTemporaryDir dir;
    const JobSummary job = runJob(writeCopies(dir, test::readJson(trace), world, slow, 1.3), loadRank);
    QCOMPARE(job.ranks.size(), size_t(world));
    const StragglerReport s = findStragglers(job);
    QVERIFY2(s.available, s.why.c_str());
    QCOMPARE(s.steps.size(), size_t(3));
    int compared = 0;
    for (const auto& row : s.steps) {
        QCOMPARE(row.latestRank, int64_t(slow));
        if (row.ranks == 1) {
            // The slow rank's allreduces last 30% longer: in a step where only its own pass the
            // 1%-of-a-step length test it has no one to be late against (HTA's top-2 would index
            // past its one-row list here).
            QVERIFY(row.stragglers.empty());
            continue;
        }
        ++compared;
        QCOMPARE(row.ranks, size_t(world));
        QVERIFY(row.spread > s.tolerance);
        // The other ranks tie for HTA's second place, all at the earliest start: on time.
        QCOMPARE(row.stragglers, (std::vector<int64_t>{slow}));
    }
    QVERIFY(compared >= 2);
    QCOMPARE(s.counts, (std::vector<std::pair<int64_t, int>>{{slow, compared}}));
    QCOMPARE(s.stragglers, (std::vector<int64_t>{slow}));
    QCOMPARE(s.verdict(),
             "straggler: rank " + std::to_string(slow) + " (" + std::to_string(compared) + " of 3 steps)");
}

void TestRanks::slowRankShowsInTheStepMatrix()
{
    QTemporaryDir dir;
    rankgen::Options o;
    o.world = 4;
    o.steps = 3;
    o.slowRank = 2;
    o.slowExtra = 1500;
    const JobSummary job = runJob(writeJob(dir, o), loadRank, JobRunOptions{2, {}, nullptr});
    const StepMatrix m = stepMatrix(job);
    QCOMPARE(m.ranks, (std::vector<int64_t>{0, 1, 2, 3}));
    QCOMPARE(m.steps, (std::vector<int64_t>{1, 2, 3}));
    for (size_t r = 0; r < 4; ++r)
        for (size_t c = 0; c < 3; ++c)
            QCOMPARE(m.at(r, c), us(r == 2 ? o.period + o.slowExtra : o.period));
    // The kernel category is the gemm: kernels outrank communication where they overlap.
    const StepMatrix kernel = stepMatrix(job, int(StepCategory::Kernel));
    for (size_t r = 0; r < 4; ++r)
        QCOMPARE(kernel.at(r, 1), us(rankgen::computeUs(o, int(r))));
}

void TestRanks::jobFileRoundTripsEveryNumber()
{
    QTemporaryDir dir;
    rankgen::Options o;
    o.world = 3;
    o.steps = 2;
    JobSummary job = runJob(writeJob(dir, o), loadRank);
    job.failures.push_back(RankFailure{"/x/rank-9.json", 9, "bad \"file\"", 3});
    const std::string path = dir.filePath(u"job.kjob"_s).toStdString();
    std::string error;
    QVERIFY2(writeJobFile(path, job, error), error.c_str());
    JobSummary back;
    QVERIFY2(readJobFile(path, back, error), error.c_str());
    QCOMPARE(jobSummaryToJson(back), jobSummaryToJson(job));
    QCOMPARE(back.ranks.size(), size_t(3));
    QCOMPARE(back.ranks[1].collectives.size(), job.ranks[1].collectives.size());
    QCOMPARE(back.ranks[1].collectives[0].bytes, int64_t(4) << 20);
    QCOMPARE(back.ranks[2].steps[1].cost, job.ranks[2].steps[1].cost);
    QCOMPARE(back.failures.size(), size_t(1));
    QCOMPARE(back.failures[0].attempts, 3);

    // One rank's JSON (what analyze-rank --json prints for the Dask workers) reads back alone.
    RankSummary one;
    QVERIFY2(rankSummaryFromJson(rankSummaryToJson(job.ranks[0]), one, error), error.c_str());
    QCOMPARE(rankSummaryToJson(one), rankSummaryToJson(job.ranks[0]));

    // Damaged or foreign files give one line, never a crash.
    for (const char* bad :
         {"", "{", "[]", "{\"format\":\"kinetoscope-job\",\"version\":99}",
          "{\"format\":\"kinetoscope-job\",\"version\":1,\"ranks\":[{\"format\":1}]}",
          "{\"format\":\"kinetoscope-job\",\"version\":1,\"ranks\":[{\"format\":\"kinetoscope-rank\","
          "\"version\":1,\"collective_columns\":[\"op\"],\"collectives\":[[1]]}]}"}) {
        JobSummary j;
        error.clear();
        QVERIFY(!jobSummaryFromJson(bad, j, error));
        QVERIFY(!error.empty());
        QVERIFY(error.find('\n') == std::string::npos);
    }
    QVERIFY(!readJobFile(dir.filePath(u"missing.kjob"_s).toStdString(), back, error));
    QVERIFY(error.find("missing.kjob") != std::string::npos);
}

void TestRanks::corruptRankIsReportedAndTheOthersKept()
{
    QTemporaryDir dir;
    rankgen::Options o;
    o.world = 4;
    o.steps = 2;
    std::vector<RankInput> inputs = writeJob(dir, o);
    const std::string bad = dir.filePath(u"rank-4.json"_s).toStdString();
    writeFile(bad, "{\"traceEvents\": [ {\"ph\": \"X\", \"name\": ");
    inputs.push_back(RankInput{bad, 4});
    inputs.push_back(RankInput{dir.filePath(u"rank-5.json"_s).toStdString(), 5}); // missing
    const JobSummary job = runJob(inputs, loadRank);
    QCOMPARE(job.ranks.size(), size_t(4));
    QCOMPARE(job.failures.size(), size_t(2));
    QCOMPARE(job.failures[0].rank, int64_t(4));
    QCOMPARE(job.failures[0].path, bad);
    QVERIFY(!job.failures[0].error.empty());
    QCOMPARE(job.failures[1].rank, int64_t(5));
}

void TestRanks::atMostNRanksAreLoadedAtOnce()
{
    QTemporaryDir dir;
    rankgen::Options o;
    o.world = 12;
    o.steps = 2;
    const std::vector<RankInput> inputs = writeJob(dir, o);
    std::mutex m;
    int loaded = 0, peak = 0;
    // Each load waits a little, so that loads would pile up if the runner let more than N run.
    RankLoader counting = [&](const std::string& path, unsigned threads) {
        {
            std::lock_guard lock(m);
            peak = std::max(peak, ++loaded);
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        LoadedRank r = loadRank(path, threads);
        std::lock_guard lock(m);
        --loaded;
        return r;
    };
    JobRunOptions options;
    options.maxLoaded = 3;
    size_t progressCalls = 0;
    options.progress = [&](size_t, size_t total, const std::string&, bool failed) {
        std::lock_guard lock(m);
        ++progressCalls;
        QCOMPARE(total, size_t(12));
        QVERIFY(!failed);
    };
    const JobSummary job = runJob(inputs, counting, options);
    QCOMPARE(job.ranks.size(), size_t(12));
    QVERIFY(peak <= 3);
    QCOMPARE(progressCalls, size_t(12));

    // A memory budget that holds two ranks' estimates: at most two at a time, though 4 may run.
    const uint64_t one = estimateRankBytes(inputs[0].path);
    QVERIFY(one > 0);
    options.maxLoaded = 4;
    options.memoryBudget = one * 5 / 2;
    options.progress = {};
    peak = 0;
    QCOMPARE(runJob(inputs, counting, options).ranks.size(), size_t(12));
    QVERIFY2(peak <= 2, std::to_string(peak).c_str());
    // A budget smaller than one rank still analyses every rank, one at a time.
    options.memoryBudget = 1;
    peak = 0;
    QCOMPARE(runJob(inputs, counting, options).ranks.size(), size_t(12));
    QCOMPARE(peak, 1);
}

void TestRanks::jobDirectoryIsRecognisedByRankAndWorkerNames()
{
    QTemporaryDir dir;
    rankgen::Options o;
    o.world = 3;
    o.steps = 1;
    // Names say nothing; distributedInfo says the ranks (written in reverse order of name).
    for (int r = 0; r < 3; ++r)
        writeFile(dir.filePath(QStringLiteral("trace_%1.json").arg(char('c' - r))).toStdString(),
                  rankgen::rankTrace(o, r));
    QVERIFY(looksLikeJobDirectory(dir.path().toStdString()));
    const JobFiles files = findJobFiles({dir.path().toStdString()});
    QCOMPARE(files.files.size(), size_t(3));
    QCOMPARE(files.files[0].rank, int64_t(0));
    QVERIFY(files.files[0].path.ends_with("trace_c.json"));
    QVERIFY(files.files[2].rankFromInfo);

    // tensorboard's layout: worker names, no distributedInfo; the newest capture of each worker.
    QTemporaryDir tb;
    const std::string plain = "{\"traceEvents\":[]}";
    writeFile(tb.filePath(u"worker0.100.pt.trace.json"_s).toStdString(), plain);
    writeFile(tb.filePath(u"worker0.200.pt.trace.json"_s).toStdString(), plain);
    writeFile(tb.filePath(u"worker1.200.pt.trace.json"_s).toStdString(), plain);
    QVERIFY(looksLikeJobDirectory(tb.path().toStdString()));
    const JobFiles w = findJobFiles({tb.path().toStdString()});
    QCOMPARE(w.files.size(), size_t(2));
    QVERIFY(w.files[0].path.ends_with("worker0.200.pt.trace.json"));
    QCOMPARE(w.files[1].rank, int64_t(1));

    // A folder of unrelated traces: two claim rank 0.
    QTemporaryDir mixed;
    writeFile(mixed.filePath(u"a.json"_s).toStdString(), rankgen::rankTrace(o, 0));
    writeFile(mixed.filePath(u"b.json"_s).toStdString(), rankgen::rankTrace(o, 0));
    writeFile(mixed.filePath(u"c.json"_s).toStdString(), rankgen::rankTrace(o, 1));
    QVERIFY(!looksLikeJobDirectory(mixed.path().toStdString()));
    if (QFile::exists(QStringLiteral(KS_SHARED_TRACES "/INDEX.md")))
        QVERIFY(!looksLikeJobDirectory(KS_SHARED_TRACES));

    // One trace is not a job; a missing path is one line.
    QTemporaryDir single;
    writeFile(single.filePath(u"rank-0.json"_s).toStdString(), plain);
    QVERIFY(!looksLikeJobDirectory(single.path().toStdString()));
    QVERIFY(!findJobFiles({"/nonexistent/dir"}).error.empty());
    QCOMPARE(rankFromFileName("/a/sampled_rank-12.json.gz"), int64_t(12));
    QCOMPARE(rankFromFileName("/a/worker_3.pt.trace.json"), int64_t(3));
}

void TestRanks::realHtaRankPairMatchesIndependentComputation()
{
    const std::string base =
        KS_SHARED_TRACES "/facebookresearch_HolisticTraceAnalysis__tests__data__trace_filter__sampled_rank-";
    if (!QFile::exists(QString::fromStdString(base + "0.json.gz"))) QSKIP("shared HTA traces not present");
    // Given in reverse order: distributedInfo decides the ranks.
    const JobSummary job = runJob({{base + "1.json.gz", -1}, {base + "0.json.gz", -1}}, loadRank);
    QCOMPARE(job.ranks.size(), size_t(2));
    QCOMPARE(job.ranks[0].rank, int64_t(0));
    QCOMPARE(job.ranks[1].worldSize, int64_t(128));
    // HTA's comm_comp_overlap, recomputed from the files with Python (merge the nccl kernels and the
    // other kernels, intersect): rank 0 14.95%, rank 1 19.93%.
    QCOMPARE(job.ranks[0].commTime, TimeNs(396199000));
    QCOMPARE(job.ranks[0].overlapTime, TimeNs(59216000));
    QCOMPARE(job.ranks[1].commTime, TimeNs(379053000));
    QCOMPARE(job.ranks[1].overlapTime, TimeNs(75530000));
    const StepMatrix m = stepMatrix(job);
    QCOMPARE(m.steps, (std::vector<int64_t>{551, 552}));
    for (const RankSummary& r : job.ranks)
        QCOMPARE(r.collectives.size(), size_t(10));
    // Rank 0's four allreduces: nccl:all_reduce's Input Dims × 4 bytes (float), found by walking from
    // the SendRecv kernel's launch to the ops around it.
    std::vector<int64_t> sizes;
    for (const Collective& c : job.ranks[0].collectives)
        if (c.op == "allreduce") sizes.push_back(c.bytes);
    std::sort(sizes.begin(), sizes.end());
    QCOMPARE(sizes, (std::vector<int64_t>{int64_t(5716654) * 4, int64_t(19618307) * 4, int64_t(26258430) * 4,
                                          int64_t(26955536) * 4}));
    const StragglerReport s = findStragglers(job);
    QVERIFY(s.available);
    QCOMPARE(s.steps.size(), size_t(2));
}

void TestRanks::realTracesCarryTheCollectiveArgsOnTheKernel()
{
    const std::string nccl = KS_SHARED_TRACES
        "/facebookresearch_HolisticTraceAnalysis__tests__data__nccl_parser_config__nccl_data.json.gz";
    const std::string b200 = KS_SHARED_TRACES "/AMD-AGI_TraceLens__tests__traces__b200__eager_trace.json.gz";
    if (!QFile::exists(QString::fromStdString(nccl))) QSKIP("shared traces not present");
    // Kineto >= 2.4 copies record_param_comms' args onto the kernel: 21 NCCL kernels, counted per
    // (op, elements, dtype) with Python from the file.
    RankSummary r;
    std::string error;
    QVERIFY2(analyzeRank({nccl, -1}, loadRank, 0, r, error), error.c_str());
    QCOMPARE(r.rank, int64_t(0));
    QCOMPARE(r.worldSize, int64_t(2));
    QCOMPARE(r.collectives.size(), size_t(21));
    std::map<std::tuple<std::string, int64_t, std::string>, int> counts;
    for (const Collective& c : r.collectives) {
        ++counts[{c.op, c.elements, c.dtype}];
        QCOMPARE(c.groupSize, int64_t(2));
        QCOMPARE(c.bytes, c.elements * (c.dtype == "Long" ? 8 : 4));
    }
    const std::map<std::tuple<std::string, int64_t, std::string>, int> expected = {
        {{"allreduce", 6637568, "Float"}, 3}, {{"allreduce", 2431040, "Float"}, 3},
        {{"broadcast", 53120, "Float"}, 3},   {{"broadcast", 53, "Long"}, 3},
        {{"allreduce", 2049000, "Float"}, 3}, {{"allreduce", 7875584, "Float"}, 3},
        {{"allreduce", 6563840, "Float"}, 3}};
    QCOMPARE(counts, expected);

    // An 8-GPU B200 job's one NCCL kernel: _allgather_base, 25136 in, 201088 out, BFloat16.
    QVERIFY2(analyzeRank({b200, -1}, loadRank, 0, r, error), error.c_str());
    QCOMPARE(r.collectives.size(), size_t(1));
    QCOMPARE(r.collectives[0].op, std::string("allgather"));
    QCOMPARE(r.collectives[0].bytes, int64_t(201088 * 2));
    QCOMPARE(r.collectives[0].groupSize, int64_t(8));
    QCOMPARE(r.worldSize, int64_t(8));
}

QTEST_GUILESS_MAIN(TestRanks)
#include "tst_ranks.moc"
