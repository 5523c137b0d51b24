// Live streaming benchmarks (docs/live-protocol.md, "Performance"):
//   ingest     frames already in memory -> LiveIngest -> model: the viewer's ceiling (events/s)
//   latency    a C target (ks_c_stream latency) launched through LiveSession, as Run > Launch does:
//              step end in the target (shared CLOCK_MONOTONIC) -> step in the model
//   oplatency  an op's end in the target (a range, no step to hurry the sender) -> its slice in the
//              model, seen by polling the model every 1 ms; plus the GUI's redraw (30 Hz) on top
//   throughput the same C target streaming ranges at a fixed rate over the socket: events/s that
//              reach the model, and drops (goal: >= 2M events/s, none dropped)
//   torch      Debian's torch 1.13 training loop (tests/data/live/train_mlp.py): steps/s without
//              Kinetoscope, then launched natively and in windows mode in the same run
// usage: bench_live [ingest|latency|oplatency|throughput|torch]... (default: all)

#include "core/live/framestream.h"
#include "core/live/liveingest.h"
#include "core/live/livesession.h"
#include "core/record/clock.h"
#include "core/record/recordtypes.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace ks;
using namespace ks::live;

namespace {

using Clock = std::chrono::steady_clock;

std::string exeDir()
{
    char buf[4096];
    const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0) return ".";
    std::string p(buf, size_t(n));
    return p.substr(0, p.find_last_of('/'));
}

LiveResources resources()
{
    return findLiveResources(KS_SOURCE_DIR, {});
}

void benchIngest()
{
    // 10M events: 5M ranges on 4 threads, nested two deep, in 8192-record frames.
    std::string bytes;
    HelloFrame h;
    h.pid = 1;
    encodeHello(bytes, h);
    encodeStrings(bytes, {{1, "outer"}, {2, "inner"}});
    const int threads = 4;
    const size_t perThread = 2'500'000;
    std::vector<WireRecord> batch;
    int64_t t = 1'000'000'000;
    for (int th = 0; th < threads; ++th) {
        for (size_t i = 0; i < perThread; i += 4) {
            batch.push_back({t, uint8_t(record::RecordType::Begin), 0, 0, 1, 0, 0});
            batch.push_back({t + 10, uint8_t(record::RecordType::Begin), 0, 0, 2, 0, 0});
            batch.push_back({t + 20, uint8_t(record::RecordType::End), 0, 0, 0, 0, 0});
            batch.push_back({t + 30, uint8_t(record::RecordType::End), 0, 0, 0, 0, 0});
            t += 40;
            if (batch.size() >= 8192) {
                encodeEvents(bytes, uint64_t(100 + th), batch.data(), uint32_t(batch.size()));
                batch.clear();
            }
        }
        if (!batch.empty()) encodeEvents(bytes, uint64_t(100 + th), batch.data(), uint32_t(batch.size()));
        batch.clear();
    }
    Trace trace;
    LiveIngest in(trace);
    const auto c = in.open(1);
    const auto t0 = Clock::now();
    FrameStream s;
    const size_t piece = 256 * 1024;
    std::string error;
    for (size_t off = 0; off < bytes.size(); off += piece) {
        s.feed(bytes.data() + off, std::min(piece, bytes.size() - off));
        Frame f;
        while (s.next(f))
            if (!in.apply(c, f, error)) {
                std::printf("ingest: error %s\n", error.c_str());
                return;
            }
    }
    in.publish();
    const double sec = std::chrono::duration<double>(Clock::now() - t0).count();
    const double events = double(in.counters().events);
    std::printf("ingest: %.0f events in %.3f s = %.2f M events/s (%.1f MB/s of frames), %zu slices\n", events,
                sec, events / sec / 1e6, double(bytes.size()) / sec / 1e6, trace.sliceCount());
}

struct Run {
    SessionStatus status;
    std::vector<StepArrival> steps;
    std::string output;
    double seconds = 0;
};

Run launch(const std::vector<std::string>& argv, const CaptureOptions& capture = {})
{
    Run run;
    Trace trace;
    LiveSession session(trace);
    LaunchRequest r;
    r.argv = argv;
    r.capture = capture;
    r.resources = resources();
    std::string error;
    const auto t0 = Clock::now();
    if (!session.launch(r, error)) {
        std::printf("cannot launch %s: %s\n", argv[0].c_str(), error.c_str());
        return run;
    }
    while (!session.finished()) {
        for (const OutputLine& l : session.takeOutput())
            run.output += l.text + "\n";
        for (const StepArrival& s : session.takeSteps())
            run.steps.push_back(s);
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    for (const OutputLine& l : session.takeOutput())
        run.output += l.text + "\n";
    for (const StepArrival& s : session.takeSteps())
        run.steps.push_back(s);
    run.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    run.status = session.status();
    return run;
}

std::string target()
{
    return exeDir() + "/bench_live_target";
}

void benchLatency()
{
    const Run r = launch({target(), "latency", "300", "10"});
    std::vector<double> ms;
    for (const StepArrival& s : r.steps)
        ms.push_back(double(s.arrivedMonoNs - s.endMonoNs) / 1e6);
    if (ms.empty()) {
        std::printf("latency: no steps arrived\n%s", r.output.c_str());
        return;
    }
    std::sort(ms.begin(), ms.end());
    std::printf(
        "latency: step end in the target -> in the model over %zu steps: median %.3f ms, p90 %.3f ms, p99 "
        "%.3f ms, max %.3f ms (goal: median <= 50 ms)\n",
        ms.size(), ms[ms.size() / 2], ms[ms.size() * 9 / 10], ms[ms.size() * 99 / 100], ms.back());
}

void benchOpLatency()
{
    Trace trace;
    LiveSession session(trace);
    LaunchRequest r;
    r.argv = {target(), "oplatency", "300", "10"};
    r.resources = resources();
    std::string error;
    if (!session.launch(r, error)) {
        std::printf("oplatency: cannot launch: %s\n", error.c_str());
        return;
    }
    // Per track, the "op" slices already seen closed.
    std::vector<size_t> seen;
    std::vector<double> ms;
    while (!session.finished()) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
        auto lock = session.holdIngest();
        const int64_t now = int64_t(record::Clock::monotonicNs());
        const int64_t monoToTrace = session.ingest().monoToTrace();
        seen.resize(trace.trackCount(), 0);
        for (size_t t = 0; t < trace.trackCount(); ++t) {
            const SliceTrack& s = trace.track(TrackId(uint32_t(t))).slices;
            for (size_t i = seen[t]; i < s.size(); ++i) {
                if (s.isOpen(i)) break;
                seen[t] = i + 1;
                if (trace.str(s.name(i)) != "op") continue;
                ms.push_back(double(now - (s.end(i) - monoToTrace)) / 1e6);
            }
        }
    }
    (void)session.takeOutput();
    if (ms.empty()) {
        std::printf("oplatency: no ops arrived\n");
        return;
    }
    std::sort(ms.begin(), ms.end());
    const double median = ms[ms.size() / 2];
    // The GUI looks at the model at most 30 times a second: on average half a frame more.
    std::printf(
        "oplatency: op end in the target -> its slice in the model over %zu ops: median %.3f ms, p90 %.3f "
        "ms, "
        "p99 %.3f ms, max %.3f ms; with the GUI's 30 Hz redraw: median about %.1f ms, at most %.1f ms more "
        "(goal: median <= 50 ms)\n",
        ms.size(), median, ms[ms.size() * 9 / 10], ms[ms.size() * 99 / 100], ms.back(), median + 1000.0 / 60,
        1000.0 / 30);
}

// Operators as the torch observer writes them (Begin + OpInfo + End), at a fixed ops/s: how many
// reach the model as cpu_op slices, how many were dropped.
void benchOpThroughput(double rate, double seconds)
{
    char r[32], s[32];
    std::snprintf(r, sizeof r, "%.0f", rate);
    std::snprintf(s, sizeof s, "%.1f", seconds);
    Trace trace;
    LiveSession session(trace);
    LaunchRequest req;
    req.argv = {target(), "opflood", s, r};
    req.resources = resources();
    std::string error;
    if (!session.launch(req, error)) {
        std::printf("op throughput: cannot launch: %s\n", error.c_str());
        return;
    }
    std::string out;
    while (!session.waitFinished(100))
        for (const OutputLine& l : session.takeOutput())
            out += l.text + "\n";
    for (const OutputLine& l : session.takeOutput())
        out += l.text + "\n";
    size_t ops = 0;
    {
        auto lock = session.holdIngest();
        for (size_t t = 0; t < trace.trackCount(); ++t) {
            const SliceTrack& sl = trace.track(TrackId(uint32_t(t))).slices;
            for (size_t i = 0; i < sl.size(); ++i)
                ops += trace.str(sl.name(i)) == "op";
        }
    }
    const size_t g = out.find("generated ");
    const unsigned long long generated =
        g == std::string::npos ? 0 : std::strtoull(out.c_str() + g + 10, nullptr, 10);
    const SessionStatus st = session.status();
    std::printf(
        "op throughput: offered %.2f M ops/s for %s s: %llu ops generated, %zu op slices in the model "
        "(%.2f M/s), %llu events dropped by the target, %llu over budget\n",
        rate / 1e6, s, generated, ops, double(ops) / seconds / 1e6,
        (unsigned long long)st.counters.senderDropped, (unsigned long long)st.counters.overBudget);
}

void benchThroughput(double rate, double seconds)
{
    char r[32], s[32];
    std::snprintf(r, sizeof r, "%.0f", rate);
    std::snprintf(s, sizeof s, "%.1f", seconds);
    const Run run = launch({target(), "flood", s, r});
    const uint64_t events = run.status.counters.events;
    const uint64_t dropped = run.status.counters.senderDropped;
    std::printf(
        "throughput: offered %.2f M events/s for %s s: %llu events reached the model (%.2f M/s over the "
        "target's run), %llu dropped%s\n",
        rate / 1e6, s, (unsigned long long)events, double(events) / seconds / 1e6,
        (unsigned long long)dropped, rate == 0 ? " (as fast as the target can record)" : "");
}

double stepsPerSecond(const std::string& out)
{
    const size_t p = out.rfind("steps/s ");
    return p == std::string::npos ? 0 : std::atof(out.c_str() + p + 8);
}

double median(std::vector<double> v)
{
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

void benchTorch()
{
    const std::string py = "/usr/bin/python3";
    if (::access(py.c_str(), X_OK) != 0) {
        std::printf("torch: /usr/bin/python3 not found\n");
        return;
    }
    const std::string script = KS_SOURCE_DIR "/tests/data/live/train_mlp.py";
    const std::vector<std::string> argv = {py, script, "400"};
    CaptureOptions native;
    CaptureOptions stepsOnly;
    stepsOnly.cpu = false;
    CaptureOptions windows;
    windows.mode = CaptureOptions::Mode::Windows;
    windows.schedule = record::Schedule{5, 1, 3, 0, 0, 0};
    // Rounds alternate plain / native / windows so that a busy machine slows all three alike.
    std::vector<double> plain, attached, bare, windowed;
    uint64_t steps = 0, windowCount = 0;
    for (int round = 0; round < 5; ++round) {
        std::string out;
        if (FILE* f = ::popen((py + " " + script + " 400 2>/dev/null").c_str(), "r")) {
            char line[512];
            while (std::fgets(line, sizeof line, f))
                out += line;
            ::pclose(f);
        }
        plain.push_back(stepsPerSecond(out));
        const Run n = launch(argv, native);
        attached.push_back(stepsPerSecond(n.output));
        steps = n.status.counters.steps;
        bare.push_back(stepsPerSecond(launch(argv, stepsOnly).output));
        const Run w = launch(argv, windows);
        windowed.push_back(stepsPerSecond(w.output));
        windowCount = w.status.counters.windows;
    }
    const double p = median(plain), n = median(attached), b = median(bare), w = median(windowed);
    auto cost = [p](double x) { return p > 0 && x > 0 ? (1e6 / x - 1e6 / p) : 0.0; };
    std::printf(
        "torch 1.13 MLP, 400 steps, median of 5 alternating rounds: %.1f steps/s plain; attached natively "
        "with module and optimizer ranges %.1f (%+.1f%%, %+.0f us/step, %llu steps received); steps only "
        "%.1f (%+.1f%%, %+.0f us/step); windows mode 5/1/3 %.1f (%+.1f%%, %llu windows)\n",
        p, n, p > 0 ? (n / p - 1) * 100 : 0.0, cost(n), (unsigned long long)steps, b,
        p > 0 ? (b / p - 1) * 100 : 0.0, cost(b), w, p > 0 ? (w / p - 1) * 100 : 0.0,
        (unsigned long long)windowCount);
}

} // namespace

int main(int argc, char** argv)
{
    std::vector<std::string> what(argv + 1, argv + argc);
    if (what.empty()) what = {"ingest", "latency", "oplatency", "throughput", "torch"};
    for (const std::string& w : what) {
        if (w == "ingest") {
            benchIngest();
        } else if (w == "latency") {
            benchLatency();
        } else if (w == "oplatency") {
            benchOpLatency();
        } else if (w == "throughput") {
            benchThroughput(2'000'000, 5);
            benchThroughput(2'500'000, 5);
            benchThroughput(0, 3);
            benchOpThroughput(1'000'000, 5);
        } else if (w == "torch") {
            benchTorch();
        } else {
            std::fprintf(stderr, "unknown benchmark %s\n", w.c_str());
            return 2;
        }
    }
    return 0;
}
