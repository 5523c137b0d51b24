// Times the operator summary (KeyAverages + table) on a synthetic Kineto-shaped trace of about five
// million slices, built directly through the model API: several CPU threads of nested cpu_ops with
// runtime calls, each launch's kernel on its thread's stream, linked by External id / correlation.
//
// usage: bench_summary [slices (default 5000000)] [runs (default 7)] [threads (default 0 = all)]

#include "core/analysis/summary/eventmapping.h"
#include "core/analysis/summary/functioneventlist.h"
#include "core/analysis/summary/keyaverages.h"
#include "core/analysis/summary/summarytable.h"
#include "core/model/trace.h"
#include "core/util/parallelfor.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <memory>
#include <vector>

using namespace ks;

namespace {

constexpr int kThreads = 6;
// One step of a thread: linear > (t > transpose > as_strided), addmm > 2 launches, relu > launch;
// 9 CPU slices and 3 kernels.
constexpr int kSlicesPerBlock = 12;

struct Names {
    StringId linear, t, transpose, asStrided, addmm, relu, launch, gemm, gemm2, relu_k;
    StringId cpuOp, runtime, kernel;
};

void buildTrace(Trace& trace, size_t slices)
{
    StringPool& s = trace.strings();
    Names n;
    n.linear = s.intern("aten::linear");
    n.t = s.intern("aten::t");
    n.transpose = s.intern("aten::transpose");
    n.asStrided = s.intern("aten::as_strided");
    n.addmm = s.intern("aten::addmm");
    n.relu = s.intern("aten::relu");
    n.launch = s.intern("cudaLaunchKernel");
    n.gemm = s.intern("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64");
    n.gemm2 = s.intern("void splitKreduce_kernel<32, 16, int, float, float>(cublasSplitKParams<float>)");
    n.relu_k = s.intern("void at::native::vectorized_elementwise_kernel<4, at::native::relu>(int, ...)");
    n.cpuOp = trace.internCategory("cpu_op");
    n.runtime = trace.internCategory("cuda_runtime");
    n.kernel = trace.internCategory("kernel");

    const ProcessId cpu = trace.addProcess(RowKey::fromNumber(100), ProcessKind::Cpu);
    const ProcessId gpu = trace.addProcess(RowKey::fromNumber(0), ProcessKind::Gpu);
    std::vector<TrackId> cpuTracks, gpuTracks;
    for (int i = 0; i < kThreads; ++i)
        cpuTracks.push_back(trace.addTrack(cpu, RowKey::fromNumber(1000 + i), TrackKind::CpuThread));
    for (int i = 0; i < kThreads; ++i)
        gpuTracks.push_back(trace.addTrack(gpu, RowKey::fromNumber(7 + i), TrackKind::GpuStream));

    const size_t blocksPerThread = slices / kSlicesPerBlock / kThreads;
    int64_t nextExt = 1;
    int64_t nextCorr = 1000000;
    std::vector<std::vector<SliceLinkIds>> links(2 * kThreads);
    for (int th = 0; th < kThreads; ++th) {
        SliceTrack& c = trace.track(cpuTracks[th]).slices;
        SliceTrack& k = trace.track(gpuTracks[th]).slices;
        auto& cl = links[th];
        auto& kl = links[kThreads + th];
        TimeNs t = 1'000'000'000 + th * 3'517;
        for (size_t b = 0; b < blocksPerThread; ++b) {
            // Durations vary a little so sums are not all round numbers.
            const TimeNs j = TimeNs((b * 7919) % 997);
            auto cpuSlice = [&](TimeNs start, TimeNs dur, StringId name, StringId cat, int64_t ext,
                                int64_t corr) {
                const uint32_t row = c.append(start, dur, name, cat, ArgsRef());
                cl.push_back(SliceLinkIds{SliceRef{cpuTracks[th], row}, ext, corr});
            };
            auto kernel = [&](TimeNs start, TimeNs dur, StringId name, int64_t ext, int64_t corr) {
                const uint32_t row = k.append(start, dur, name, n.kernel, ArgsRef());
                kl.push_back(SliceLinkIds{SliceRef{gpuTracks[th], row}, ext, corr});
            };
            const int64_t eLinear = nextExt++, eT = nextExt++, eTr = nextExt++, eAs = nextExt++;
            const int64_t eAddmm = nextExt++, eRelu = nextExt++;
            const int64_t c1 = nextCorr++, c2 = nextCorr++, c3 = nextCorr++;
            cpuSlice(t, 100'000 + j, n.linear, n.cpuOp, eLinear, -1);
            cpuSlice(t + 1'000, 10'000, n.t, n.cpuOp, eT, -1);
            cpuSlice(t + 2'000, 8'000 + j, n.transpose, n.cpuOp, eTr, -1);
            cpuSlice(t + 3'000, 2'000, n.asStrided, n.cpuOp, eAs, -1);
            cpuSlice(t + 12'000, 78'000, n.addmm, n.cpuOp, eAddmm, -1);
            cpuSlice(t + 20'000, 10'000 + j, n.launch, n.runtime, eAddmm, c1);
            cpuSlice(t + 40'000, 10'000, n.launch, n.runtime, eAddmm, c2);
            cpuSlice(t + 91'000, 8'000, n.relu, n.cpuOp, eRelu, -1);
            cpuSlice(t + 92'000, 5'000 + j / 2, n.launch, n.runtime, eRelu, c3);
            kernel(t + 35'000, 40'000 + 3 * j, n.gemm, eAddmm, c1);
            kernel(t + 76'000 + 3 * j, 6'000, n.gemm2, eAddmm, c2);
            kernel(t + 95'000 + 3 * j, 4'321, n.relu_k, eRelu, c3);
            t += 103'000 + j;
        }
    }
    // Trace::linkIds() is sorted by slice reference: tracks in id order, rows in order.
    for (auto& l : links)
        trace.linkIds().append(l.data(), l.size());
    trace.updateBounds();
}

} // namespace

double cpuSeconds()
{
    timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return double(ts.tv_sec) + double(ts.tv_nsec) / 1e9;
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

int main(int argc, char** argv)
{
    const size_t slices = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 5'000'000;
    const int runs = std::max(1, argc > 2 ? std::atoi(argv[2]) : 7);
    const unsigned threads = argc > 3 ? unsigned(std::atoi(argv[3])) : 0;

    Trace trace;
    buildTrace(trace, slices);
    std::printf("trace: %zu slices on %zu tracks; %u worker threads\n", trace.sliceCount(),
                trace.trackCount(), workerCount(threads));

    EventListOptions listOptions;
    listOptions.threads = threads;
    TableOptions table;
    table.useDevice = true;
    table.rowLimit = -1;
    std::vector<double> total, build, group, cpu;
    std::string text;
    size_t events = 0;
    using Clock = std::chrono::steady_clock;
    auto ms = [](Clock::time_point a, Clock::time_point b) {
        return std::chrono::duration<double, std::milli>(b - a).count();
    };
    for (int r = 0; r < runs; ++r) {
        // The same steps as KeyAverages::compute(), timed one by one.
        const double c0 = cpuSeconds();
        const auto t0 = Clock::now();
        const EventMapping mapping(trace);
        std::unique_ptr<FunctionEventList> list = FunctionEventList::build(trace, mapping, listOptions);
        const auto t1 = Clock::now();
        const KeyAverages a = KeyAverages::fromEventList(*list, mapping, threads);
        list.reset();
        text = SummaryTable::format(a.rows(), table);
        const auto t2 = Clock::now();
        cpu.push_back((cpuSeconds() - c0) * 1e3);
        total.push_back(ms(t0, t2));
        build.push_back(ms(t0, t1));
        group.push_back(ms(t1, t2));
        events = a.eventCount();
    }
    std::printf("%s", text.c_str());
    std::printf("summary of %zu events: median %.1f ms wall (event list %.1f ms, grouping + table %.1f ms), "
                "%.1f ms CPU, min %.1f ms wall, over %d runs\n",
                events, median(total), median(build), median(group), median(cpu),
                *std::min_element(total.begin(), total.end()), runs);
    return 0;
}
