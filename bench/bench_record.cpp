// Cost of recording a range (begin+end pair) with our recorder against libtorch's RECORD_FUNCTION
// under torch's own profiler, and the event rate two threads sustain. Prints, in one run:
//   ours active/disabled   ns per pair with a Profiler started / not started
//   clock read             ns per Clock::ticks(), two of which every recorded pair pays
//   torch active/off       ns per RECORD_FUNCTION scope with torch's profiler enabled / not
//   ratio                  torch active / ours active
//   threads                events/s of 2 threads recording at once, then including stop(), twice:
//                          into fresh memory, then into chunks pooled by the first pass
// Per-range rows give the wall-time median and min over the rounds, and the median of the thread's
// CPU time, which leaves out time the scheduler gave to other processes on a shared machine.
// Usage: bench_record [pairs per thread for the threads part, default 2000000]. Run it a few times.

#include "core/record/api.h"
#include "core/record/profiler.h"

#ifdef KS_HAVE_TORCH
#include "torchref/torchref.h"
#endif

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <latch>
#include <string>
#include <thread>
#include <vector>

using namespace ks::record;

namespace {

constexpr int kRounds = 15;
constexpr int kPairs = 1'000'000;

using SteadyClock = std::chrono::steady_clock;

double seconds(SteadyClock::time_point a, SteadyClock::time_point b)
{
    return std::chrono::duration<double>(b - a).count();
}

double threadCpuSeconds()
{
    timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

struct Sample {
    double wallNs = 0;
    double cpuNs = 0;
};

// ns per iteration of `body(n)`, which runs n iterations on the calling thread.
template <typename F>
Sample timed(int n, F body)
{
    const double c0 = threadCpuSeconds();
    const auto t0 = SteadyClock::now();
    body(n);
    const auto t1 = SteadyClock::now();
    const double c1 = threadCpuSeconds();
    return {seconds(t0, t1) * 1e9 / n, (c1 - c0) * 1e9 / n};
}

void recordPairs(uint32_t name, int pairs)
{
    for (int i = 0; i < pairs; ++i) {
        rangeBegin(name);
        rangeEnd();
    }
}

struct Summary {
    double median = 0;
    double min = 0;
    double cpuMedian = 0;
    double first = 0; // the warm-up round
};

// Runs `round` kRounds times after one warm-up round: the first round pays for fresh memory (page
// faults) that later rounds reuse.
template <typename F>
Summary rounds(F round)
{
    Summary s;
    s.first = round().wallNs;
    std::vector<double> wall, cpu;
    for (int r = 0; r < kRounds; ++r) {
        const Sample x = round();
        wall.push_back(x.wallNs);
        cpu.push_back(x.cpuNs);
    }
    std::sort(wall.begin(), wall.end());
    std::sort(cpu.begin(), cpu.end());
    s.median = wall[wall.size() / 2];
    s.min = wall.front();
    s.cpuMedian = cpu[cpu.size() / 2];
    return s;
}

void printRow(const char* what, const Summary& s, const char* note, const char* per = "range")
{
    std::printf("%-22s median %7.2f  min %7.2f  cpu %7.2f ns/%s  %s\n", what, s.median, s.min, s.cpuMedian,
                per, note);
}

// Two threads each record `pairs` ranges at once while a Profiler is active; stop() then drains
// them and builds the trace. The first pass allocates and faults in its chunks as it goes, as a long
// profiling window does; the second reuses the chunks the first one gave back to the pool.
void threadsRate(uint32_t name, int pairs, const char* pass)
{
    Profiler prof;
    prof.start();
    std::latch go(1);
    double cpu[2] = {};
    std::vector<std::thread> threads;
    for (int t = 0; t < 2; ++t)
        threads.emplace_back([&, t] {
            Recorder::instance().registerCurrentThread(); // buffer setup stays out of the timing
            go.wait();
            const double c0 = threadCpuSeconds();
            recordPairs(name, pairs);
            cpu[t] = threadCpuSeconds() - c0;
        });
    const auto t0 = SteadyClock::now();
    go.count_down();
    for (auto& t : threads)
        t.join();
    const auto t1 = SteadyClock::now();
    prof.stop();
    const auto t2 = SteadyClock::now();
    const double events = 2.0 * 2.0 * pairs;
    std::printf("threads, %s\n", pass);
    std::printf(
        "  recording            %7.1f M events/s  (%.1f M ranges/s, %.0f ms; thread CPU %.0f + %.0f ms)\n",
        events / seconds(t0, t1) / 1e6, events / 2 / seconds(t0, t1) / 1e6, seconds(t0, t1) * 1e3,
        cpu[0] * 1e3, cpu[1] * 1e3);
    std::printf(
        "  incl. stop()         %7.1f M events/s  (stop = drain + trace build: %.0f ms, %zu slices)\n",
        events / seconds(t0, t2) / 1e6, seconds(t1, t2) * 1e3, prof.trace() ? prof.trace()->sliceCount() : 0);
}

} // namespace

int main(int argc, char** argv)
{
    const int threadPairs = argc > 1 ? std::atoi(argv[1]) : 2'000'000;
    const uint32_t name = internName("bench range");
    Recorder& rec = Recorder::instance();
    const auto pairs = [name](int n) { recordPairs(name, n); };

    const Summary oursOff = rounds([&] { return timed(kPairs, pairs); });
    Summary oursOn;
    {
        Profiler prof;
        prof.start();
        // Each round's records are dropped (untimed) so rounds reuse the same chunks.
        oursOn = rounds([&] {
            const Sample s = timed(kPairs, pairs);
            rec.discardAll();
            return s;
        });
        prof.stop();
    }
    const Summary clock = rounds([] {
        return timed(kPairs, [](int n) {
            uint64_t sum = 0;
            for (int i = 0; i < n; ++i)
                sum += Clock::ticks();
            asm volatile("" : : "r"(sum));
        });
    });
    std::printf("rounds: %d x %d begin+end pairs after a warm-up round\n", kRounds, kPairs);
    printRow("ours active", oursOn, "(goal <= 10)");
    std::printf("ours active 1st round  %7.2f ns/range  (fresh chunks: page faults)\n", oursOn.first);
    printRow("ours disabled", oursOff, "(goal <= 2)");
    printRow(Clock::usesTsc() ? "clock read (rdtsc)" : "clock read (gettime)", clock, "(2 per range)",
             "read");

#ifdef KS_HAVE_TORCH
    namespace tr = ks::bench::torchref;
    const Summary torchOff = rounds([] { return timed(kPairs, tr::recordScopes); });
    // Torch keeps every event until disableProfiler(), whose post-processing takes seconds per
    // million events: its rounds are smaller, each in its own profiler session.
    constexpr int kTorchScopes = 100'000;
    std::string mode, error;
    const Summary torchOn = rounds([&] {
        mode = tr::enableProfiler(error);
        if (mode.empty()) return Sample{};
        const Sample s = timed(kTorchScopes, tr::recordScopes);
        tr::disableProfiler();
        return s;
    });
    if (mode.empty()) {
        std::printf("torch profiler         could not be enabled: %s\n", error.c_str());
    } else {
        std::printf("torch profiler         %s; %d rounds x %d RECORD_FUNCTION scopes\n", mode.c_str(),
                    kRounds, kTorchScopes);
        printRow("torch active", torchOn, "(profiler on)");
        std::printf("torch active 1st round %7.2f ns/range  (first session in the process)\n", torchOn.first);
        printRow("torch off", torchOff, "(rounds as ours)");
        std::printf("ratio torch/ours       %7.1fx wall medians, %.1fx cpu medians (goal >= 50x)\n",
                    torchOn.median / oursOn.median, torchOn.cpuMedian / oursOn.cpuMedian);
    }
#else
    std::printf("torch                  not built: libtorch was not found at configure time, no reference\n");
#endif

    std::printf("threads: 2 x %d ranges with a Profiler active; events = records (2 per range)\n",
                threadPairs);
    threadsRate(name, threadPairs, "fresh chunks");
    threadsRate(name, threadPairs, "pooled chunks");
    return 0;
}
