#include "app/cli/commands.h"
#include "core/io/tracewriter.h"
#include "core/live/launchenv.h"
#include "core/live/livesession.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

namespace ks::cli {

namespace {

const char* kUsage = "usage: kinetoscope record [OPTIONS] -o OUT.pt.trace.json[.gz] -- COMMAND [ARGS...]\n";

void printHelp()
{
    std::printf("%s", kUsage);
    std::printf("\n"
                "Runs COMMAND (usually `python train.py ...`, unmodified) with live recording, the same way\n"
                "the viewer's Run > Launch does: prints each training step as it finishes, forwards the\n"
                "program's output, and writes everything received as a Kineto-style trace when it ends.\n"
                "Ctrl+C stops the program gracefully (SIGINT, then SIGTERM, then SIGKILL) and still writes.\n"
                "\n"
                "options:\n"
                "  -o, --output FILE       trace to write; gzip when it ends in .gz\n"
                "  --mode native|windows   native: steps, ranges and aten ops (libkinetoscope_torch.so;\n"
                "                          shapes and memory too when captured) streamed as they happen\n"
                "                          (default);\n"
                "                          windows: torch.profiler windows (CPU ops, shapes, memory) merged\n"
                "  --capture LIST          cpu,cuda,xpu,shapes,memory,stack (default cpu,memory)\n"
                "  --schedule W,WU,A[,R[,S]]  torch.profiler schedule: wait, warmup, active, repeat,\n"
                "                          skip_first (windows mode; default 1,1,3)\n"
                "  -C, --cwd DIR           working directory of COMMAND\n"
                "  --env KEY=VALUE         set a variable for COMMAND (repeatable); --unset KEY removes one\n"
                "  --stop-after SECONDS    stop COMMAND gracefully after this long\n"
                "  --budget-mb N           keep at most about N MB of trace in memory (default 8192)\n"
                "  --quiet                 do not echo COMMAND's output or the steps\n"
                "  --latency               print step delivery latency (target end -> model) at the end\n"
                "  -h, --help              show this help\n"
                "\n"
                "exit status: COMMAND's own (128+N when killed by signal N); 1 when recording failed (no\n"
                "trace written, or the stream was corrupt); 2 usage error\n");
}

std::atomic<int> g_interrupts{0};

void onInterrupt(int)
{
    g_interrupts.fetch_add(1);
}

const char* sourcePrefix(const live::OutputLine& l)
{
    if (l.level == live::LogLevel::Error) return "error: ";
    if (l.level == live::LogLevel::Warning) return "warning: ";
    return "";
}

void printLatency(std::vector<double>& ms)
{
    if (ms.empty()) {
        std::fprintf(stderr, "step latency: no steps\n");
        return;
    }
    std::sort(ms.begin(), ms.end());
    auto q = [&](double p) { return ms[std::min(ms.size() - 1, size_t(p * double(ms.size())))]; };
    std::fprintf(stderr,
                 "step latency (target step end -> in the model): median %.2f ms, p90 %.2f ms, max %.2f ms "
                 "over %zu steps\n",
                 q(0.5), q(0.9), ms.back(), ms.size());
}

// Whether OUT can be written, before a run that may take hours: its directory must exist and
// take a new file (a probe file is created and removed; access() would say yes to root even on a
// read-only file system). Empty when fine, else a one-line reason.
std::string checkOutputWritable(const std::string& output)
{
    const size_t slash = output.rfind('/');
    const std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : output.substr(0, slash);
    struct stat st;
    if (::stat(output.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) return output + " is a directory";
    if (::stat(dir.c_str(), &st) != 0)
        return "cannot write " + output + ": " + dir + ": " + std::strerror(errno);
    if (!S_ISDIR(st.st_mode)) return "cannot write " + output + ": " + dir + " is not a directory";
    std::string probe = dir + "/.kinetoscope-probe-XXXXXX";
    const int fd = ::mkstemp(probe.data());
    if (fd < 0) return "cannot write " + output + ": " + dir + ": " + std::strerror(errno);
    ::close(fd);
    ::unlink(probe.c_str());
    return {};
}

// The final write failed (the directory went away, the disk is full...): the recording is not
// lost, it goes next to where it was meant to be, or into $TMPDIR. Returns where, empty if nowhere.
std::string saveRecovery(const Trace& trace, const std::string& output, std::string& errors)
{
    const bool gz = output.size() > 3 && output.compare(output.size() - 3, 3, ".gz") == 0;
    const std::string suffix =
        ".recovered-" + std::to_string(::getpid()) + ".pt.trace.json" + (gz ? ".gz" : "");
    const size_t slash = output.rfind('/');
    const std::string base = slash == std::string::npos ? output : output.substr(slash + 1);
    const char* tmp = std::getenv("TMPDIR");
    const std::string tmpDir = tmp && *tmp ? tmp : "/tmp";
    for (const std::string& path : {output + suffix, tmpDir + "/" + base + suffix}) {
        const SaveResult saved = saveTraceFile(trace, path);
        if (saved.ok) return path;
        errors += "; " + saved.error;
    }
    return {};
}

} // namespace

int runRecord(const Args& args)
{
    live::LaunchRequest req;
    std::string output;
    double stopAfter = 0;
    bool quiet = false, latency = false;
    uint64_t budgetMb = 8192;
    size_t i = 0;
    auto need = [&](const char* opt) -> const std::string* {
        if (i + 1 >= args.size()) {
            std::fprintf(stderr, "kinetoscope record: %s needs a value\n%s", opt, kUsage);
            return nullptr;
        }
        return &args[++i];
    };
    for (; i < args.size(); ++i) {
        const std::string& a = args[i];
        std::string error;
        if (a == "-h" || a == "--help") {
            printHelp();
            return 0;
        } else if (a == "--") {
            ++i;
            break;
        } else if (a == "-o" || a == "--output") {
            const std::string* v = need(a.c_str());
            if (!v) return 2;
            output = *v;
        } else if (a == "--mode" || a == "--capture" || a == "--schedule") {
            const std::string* v = need(a.c_str());
            if (!v) return 2;
            const bool ok = a == "--mode"      ? req.capture.parseMode(*v, error)
                            : a == "--capture" ? req.capture.parseCapture(*v, error)
                                               : req.capture.parseSchedule(*v, error);
            if (!ok) {
                std::fprintf(stderr, "kinetoscope record: %s\n", error.c_str());
                return 2;
            }
        } else if (a == "-C" || a == "--cwd") {
            const std::string* v = need(a.c_str());
            if (!v) return 2;
            req.workdir = *v;
        } else if (a == "--env") {
            const std::string* v = need(a.c_str());
            if (!v) return 2;
            const size_t eq = v->find('=');
            if (eq == std::string::npos || eq == 0) {
                std::fprintf(stderr, "kinetoscope record: --env needs KEY=VALUE, got %s\n", v->c_str());
                return 2;
            }
            req.env.emplace_back(v->substr(0, eq), v->substr(eq + 1));
        } else if (a == "--unset") {
            const std::string* v = need(a.c_str());
            if (!v) return 2;
            req.env.emplace_back(*v, std::nullopt);
        } else if (a == "--stop-after") {
            const std::string* v = need(a.c_str());
            if (!v) return 2;
            stopAfter = std::atof(v->c_str());
        } else if (a == "--budget-mb") {
            const std::string* v = need(a.c_str());
            if (!v) return 2;
            budgetMb = std::strtoull(v->c_str(), nullptr, 10);
        } else if (a == "--quiet") {
            quiet = true;
        } else if (a == "--latency") {
            latency = true;
        } else if (!a.empty() && a[0] == '-') {
            std::fprintf(stderr, "kinetoscope record: unknown option %s\n%s", a.c_str(), kUsage);
            return 2;
        } else {
            break; // COMMAND without "--"
        }
    }
    req.argv.assign(args.begin() + long(std::min(i, args.size())), args.end());
    if (req.argv.empty() || output.empty()) {
        std::fprintf(stderr, "kinetoscope record: %s\n%s",
                     output.empty() ? "-o OUT is required" : "no COMMAND given", kUsage);
        return 2;
    }
    if (const std::string why = checkOutputWritable(output); !why.empty()) {
        // Nothing is started: a recording that cannot be kept is not worth running.
        std::fprintf(stderr, "kinetoscope record: %s\n", why.c_str());
        return 1;
    }
    req.resources = liveResources();

    Trace trace;
    live::LiveSession session(trace, live::programLabel(req.argv));
    session.setBudget(budgetMb << 20);
    std::string error;
    if (!session.launch(req, error)) {
        std::fprintf(stderr, "kinetoscope record: %s\n", error.c_str());
        return 1;
    }
    const auto previousInt = std::signal(SIGINT, onInterrupt);
    const auto previousTerm = std::signal(SIGTERM, onInterrupt);
    const auto started = std::chrono::steady_clock::now();
    std::vector<double> latencies;
    bool stopping = false;
    auto drain = [&] {
        for (const live::OutputLine& l : session.takeOutput()) {
            switch (l.source) {
            case live::OutputLine::Source::Stdout:
                if (!quiet) std::fprintf(stdout, "%s\n", l.text.c_str());
                break;
            case live::OutputLine::Source::Stderr:
                if (!quiet) std::fprintf(stderr, "%s\n", l.text.c_str());
                break;
            case live::OutputLine::Source::Target:
                std::fprintf(stderr, "[kinetoscope] pid %u: %s%s\n", l.pid, sourcePrefix(l), l.text.c_str());
                break;
            case live::OutputLine::Source::Session:
                std::fprintf(stderr, "[kinetoscope] %s%s\n", sourcePrefix(l), l.text.c_str());
                break;
            }
        }
        const std::vector<live::StepArrival> steps = session.takeSteps();
        // GPU work arrives after the launches that queued it: the count received so far shows it
        // streaming in while the program runs, not only at its end.
        const uint64_t gpuOps = steps.empty() || quiet ? 0 : session.status().counters.deviceSlices;
        for (const live::StepArrival& s : steps) {
            latencies.push_back(double(s.arrivedMonoNs - s.endMonoNs) / 1e6);
            if (quiet) continue;
            std::fprintf(stdout, "[kinetoscope] step %lld: %.3f ms (pid %u)", (long long)s.number,
                         double(s.end - s.start) / 1e6, s.pid);
            if (gpuOps) std::fprintf(stdout, ", %llu GPU ops received", (unsigned long long)gpuOps);
            std::fputc('\n', stdout);
        }
        std::fflush(stdout);
    };
    while (!session.finished()) {
        drain();
        const bool timeUp = stopAfter > 0 && std::chrono::steady_clock::now() - started >
                                                 std::chrono::duration<double>(stopAfter);
        if (!stopping && (g_interrupts.load() > 0 || timeUp)) {
            stopping = true;
            session.stop();
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    drain();
    // Back to what main installed: a second signal while the trace is written removes its temporary.
    std::signal(SIGINT, previousInt);
    std::signal(SIGTERM, previousTerm);
    const live::SessionStatus st = session.status();
    if (latency) printLatency(latencies);

    // The file holds no more call-stack text than the session was allowed to keep in memory: one
    // stack shared by many ops is written once per op.
    SaveOptions saveOptions;
    saveOptions.maxStackBytes = budgetMb << 20;
    const SaveResult saved = saveTraceFile(trace, output, saveOptions);
    for (const std::string& w : saved.warnings)
        std::fprintf(stderr, "kinetoscope record: warning: %s\n", w.c_str());
    if (!saved.ok) {
        std::string errors;
        const std::string recovered = saveRecovery(trace, output, errors);
        if (!recovered.empty())
            std::fprintf(stderr, "kinetoscope record: %s; the recording was saved to %s instead\n",
                         saved.error.c_str(), recovered.c_str());
        else
            std::fprintf(stderr,
                         "kinetoscope record: %s; the recording is lost (no recovery file either%s)\n",
                         saved.error.c_str(), errors.c_str());
        return 1;
    }
    std::fprintf(stderr, "[kinetoscope] wrote %s: %llu events, %llu steps, %llu windows, %llu dropped\n",
                 output.c_str(), (unsigned long long)saved.stats.events,
                 (unsigned long long)st.counters.steps, (unsigned long long)st.counters.windows,
                 (unsigned long long)(st.counters.senderDropped + st.counters.overBudget));
    if (!st.error.empty()) return 1;
    if (st.exitSignal) return 128 + st.exitSignal;
    return st.exitCode >= 0 ? st.exitCode : 1;
}

} // namespace ks::cli
