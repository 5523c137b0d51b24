// bench_load: how fast Kinetoscope loads one trace file, next to reference points measured on the
// same file in the same run.
//
//   bench_load FILE [--threads N] [--runs R] [--no-python] [--no-walk] [--cli PATH]
//
// Every measurement runs in a fresh child process (this binary re-executed, python3, zcat) so its
// peak resident memory comes from wait4() and does not include the other measurements. The file is
// read once first so all contenders find it in the page cache.
//
//   ours            loadTraceFile(): wall time, MB/s of JSON text, peak RSS, model bytes per event
//   walk (warm)     single-core simdjson On-Demand pass touching every key and value, on text already
//                   in memory (decompressed beforehand for .gz), with the parser's buffers already
//                   faulted in by an untimed first pass: the reference parsing limit of the CPU
//   walk (cold)     the same pass with a fresh parser (its buffers' page faults are timed)
//   read+walk       the same, also timing the read (and gunzip): a one-shot single-core load
//   python json     /usr/bin/python3 json.load (what HTA and tb_plugin do), gzip.open for .gz
//   zcat            zcat FILE >/dev/null, for .gz only
//   summary CLI     `kinetoscope summary --row-limit 1 FILE` (../app/kinetoscope next to this binary, or
//                   --cli PATH): a cold start of the whole process, load and operator table, as a
//                   user's first command on a trace. The file stays in the page cache (dropping it
//                   needs root), so this is cold for the process, not for the disk.
//
// Contenders run interleaved, one of each per round, --runs rounds (default 5); rows are medians.

#include "core/io/tracereader.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <simdjson.h>
#include <string>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>
#include <zlib.h>

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t0)
{
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

bool isGzip(const char* path)
{
    unsigned char m[2] = {0, 0};
    FILE* f = std::fopen(path, "rb");
    if (!f) return false;
    const size_t n = std::fread(m, 1, 2, f);
    std::fclose(f);
    return n == 2 && m[0] == 0x1f && m[1] == 0x8b;
}

uint64_t fileSize(const char* path)
{
    struct stat st {};
    return ::stat(path, &st) == 0 ? uint64_t(st.st_size) : 0;
}

// Reads (and gunzips) a whole file into a simdjson padded buffer.
bool readAll(const char* path, simdjson::padded_string& out)
{
    if (!isGzip(path)) {
        auto r = simdjson::padded_string::load(path);
        if (r.error()) return false;
        out = std::move(r).value_unsafe();
        return true;
    }
    gzFile f = gzopen(path, "rb");
    if (!f) return false;
    gzbuffer(f, 1 << 20);
    std::string text;
    std::vector<char> buf(4 << 20);
    int n;
    while ((n = gzread(f, buf.data(), unsigned(buf.size()))) > 0)
        text.append(buf.data(), size_t(n));
    gzclose(f);
    out = simdjson::padded_string(text);
    return n == 0;
}

using namespace simdjson;

// Touches every key and value; the sum keeps the compiler from skipping work.
uint64_t walk(ondemand::value v)
{
    uint64_t sum = 0;
    switch (v.type().value_unsafe()) {
    case ondemand::json_type::object:
        for (auto field : v.get_object().value_unsafe()) {
            sum += field.unescaped_key().value_unsafe().size();
            sum += walk(field.value().value_unsafe());
        }
        break;
    case ondemand::json_type::array:
        for (auto el : v.get_array().value_unsafe())
            sum += walk(el.value_unsafe());
        break;
    case ondemand::json_type::number: {
        ondemand::number n = v.get_number().value_unsafe();
        sum += n.is_double()  ? uint64_t(n.get_double())
               : n.is_int64() ? uint64_t(n.get_int64())
                              : n.get_uint64();
        break;
    }
    case ondemand::json_type::string:
        sum += v.get_string().value_unsafe().size();
        break;
    case ondemand::json_type::boolean:
        sum += v.get_bool().value_unsafe();
        break;
    case ondemand::json_type::null:
        sum += v.is_null();
        break;
    }
    return sum;
}

bool walkDocument(ondemand::parser& parser, const padded_string& text, uint64_t& sum)
{
    ondemand::document doc;
    if (parser.iterate(text).get(doc)) return false;
    try {
        ondemand::value root = doc.get_value().value();
        sum = walk(root);
    } catch (const simdjson_error&) {
        return false;
    }
    return true;
}

// --- child modes: print one line of key=value results -------------------------------------------

int childOurs(const char* path, unsigned threads)
{
    ks::LoadOptions opt;
    opt.threads = threads;
    const auto t0 = Clock::now();
    ks::LoadResult r = ks::loadTraceFile(path, opt);
    const double secs = since(t0);
    if (!r.ok()) {
        std::fprintf(stderr, "load failed: %s\n", r.error.c_str());
        return 1;
    }
    std::printf("seconds=%.6f parse=%.6f finish=%.6f events=%llu json=%llu model=%llu slices=%llu\n", secs,
                r.stats.parseSeconds, r.stats.finishSeconds, static_cast<unsigned long long>(r.stats.events),
                static_cast<unsigned long long>(r.stats.jsonBytes),
                static_cast<unsigned long long>(r.trace->bytesUsed()),
                static_cast<unsigned long long>(r.trace->sliceCount()));
    std::fflush(stdout);
    // Freeing a large model is not part of loading it.
    std::_Exit(0);
}

// warm: the text is in memory and the parser has already walked it once, so no page faults are
// timed (the CPU limit); cold: the parser's buffers are fresh; read: the read (and gunzip) is timed.
int childWalk(const char* path, const std::string& mode)
{
    const auto t0 = Clock::now();
    padded_string text;
    if (!readAll(path, text)) {
        std::fprintf(stderr, "cannot read %s\n", path);
        return 1;
    }
    ondemand::parser parser;
    uint64_t sum = 0;
    if (mode == "warm" && !walkDocument(parser, text, sum)) {
        std::fprintf(stderr, "simdjson walk failed\n");
        return 1;
    }
    const auto t1 = Clock::now();
    if (!walkDocument(parser, text, sum)) {
        std::fprintf(stderr, "simdjson walk failed\n");
        return 1;
    }
    const double secs = since(mode == "read" ? t0 : t1);
    std::printf("seconds=%.6f json=%zu sum=%llu\n", secs, text.size(), static_cast<unsigned long long>(sum));
    std::fflush(stdout);
    std::_Exit(0);
}

// --- parent ---------------------------------------------------------------------------------------

struct Run {
    bool ok = false;
    double wall = 0;
    double maxRssMiB = 0;
    double cpu = 0; // user + system seconds of the child
    std::string out;
};

Run spawn(const std::vector<std::string>& argv, bool discardStdout)
{
    Run run;
    int pipefd[2];
    if (::pipe(pipefd) != 0) return run;
    const auto t0 = Clock::now();
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::close(pipefd[0]);
        if (discardStdout) {
            const int devnull = ::open("/dev/null", O_WRONLY);
            ::dup2(devnull, 1);
        } else {
            ::dup2(pipefd[1], 1);
        }
        std::vector<char*> args;
        for (const auto& a : argv)
            args.push_back(const_cast<char*>(a.c_str()));
        args.push_back(nullptr);
        ::execv(args[0], args.data());
        std::_Exit(127);
    }
    ::close(pipefd[1]);
    char buf[4096];
    ssize_t n;
    while ((n = ::read(pipefd[0], buf, sizeof buf)) > 0)
        run.out.append(buf, size_t(n));
    ::close(pipefd[0]);
    int status = 0;
    struct rusage ru {};
    ::wait4(pid, &status, 0, &ru);
    run.wall = since(t0);
    run.maxRssMiB = double(ru.ru_maxrss) / 1024.0;
    run.cpu = double(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
              1e-6 * double(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
    run.ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    return run;
}

double field(const std::string& out, const char* key)
{
    const std::string k = std::string(key) + "=";
    const size_t at = out.find(k);
    return at == std::string::npos ? 0 : std::atof(out.c_str() + at + k.size());
}

std::string selfPath()
{
    char buf[4096];
    const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
    return n > 0 ? std::string(buf, size_t(n)) : std::string();
}

// Several runs of each contender, interleaved (one of each per round) so a machine that gets busier
// or quieter during the benchmark shifts all of them alike; each row reports the median run.
struct Contender {
    std::vector<std::string> argv;
    bool discard = false;
    const char* timeKey = nullptr; // the child's own timer; null: wall time of the whole process
    std::vector<Run> runs;

    double seconds(const Run& r) const { return timeKey ? field(r.out, timeKey) : r.wall; }
    // The median run (by time), with its memory; not ok when any run failed.
    Run median() const
    {
        Run none;
        if (runs.empty()) return none;
        for (const Run& r : runs)
            if (!r.ok) return r;
        std::vector<const Run*> order;
        for (const Run& r : runs)
            order.push_back(&r);
        std::sort(order.begin(), order.end(),
                  [this](const Run* a, const Run* b) { return seconds(*a) < seconds(*b); });
        Run m = *order[order.size() / 2];
        std::vector<double> rss;
        for (const Run& r : runs)
            rss.push_back(r.maxRssMiB);
        std::sort(rss.begin(), rss.end());
        m.maxRssMiB = rss[rss.size() / 2];
        return m;
    }
};

void runInterleaved(std::vector<Contender*> contenders, int runs)
{
    for (int i = 0; i < runs; ++i)
        for (Contender* c : contenders)
            if (c->runs.empty() || c->runs.back().ok) c->runs.push_back(spawn(c->argv, c->discard));
}

void warmPageCache(const char* path)
{
    const int fd = ::open(path, O_RDONLY);
    if (fd < 0) return;
    std::vector<char> buf(8 << 20);
    while (::read(fd, buf.data(), buf.size()) > 0) {
    }
    ::close(fd);
}

} // namespace

int main(int argc, char** argv)
{
    if (argc >= 4 && !std::strcmp(argv[1], "--child")) {
        const std::string mode = argv[2];
        const unsigned threads = argc >= 5 ? unsigned(std::atoi(argv[4])) : 0;
        if (mode == "ours") return childOurs(argv[3], threads);
        if (mode == "warm" || mode == "cold" || mode == "read") return childWalk(argv[3], mode);
        return 2;
    }
    if (argc < 2) {
        std::fprintf(
            stderr,
            "usage: bench_load FILE [--threads N] [--runs R] [--no-python] [--no-walk] [--cli PATH]\n");
        return 2;
    }
    const char* path = argv[1];
    unsigned threads = 0;
    int runs = 5;
    std::string cliPath;
    bool python = true, walkRef = true;
    for (int i = 2; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--threads") && i + 1 < argc)
            threads = unsigned(std::atoi(argv[++i]));
        else if (!std::strcmp(argv[i], "--runs") && i + 1 < argc)
            runs = std::max(1, std::atoi(argv[++i]));
        else if (!std::strcmp(argv[i], "--no-python"))
            python = false;
        else if (!std::strcmp(argv[i], "--no-walk"))
            walkRef = false;
        else if (!std::strcmp(argv[i], "--cli") && i + 1 < argc)
            cliPath = argv[++i];
    }
    const bool gz = isGzip(path);
    const double fileMB = double(fileSize(path)) / 1e6;
    warmPageCache(path);
    const std::string self = selfPath();
    // The CLI next to this benchmark in the build tree, unless named.
    if (cliPath.empty() && self.rfind('/') != std::string::npos)
        cliPath = self.substr(0, self.rfind('/')) + "/../app/kinetoscope";

    Contender ours{{self, "--child", "ours", path, std::to_string(threads)}, false, "seconds"};
    Contender warm{{self, "--child", "warm", path}, false, "seconds"};
    Contender cold{{self, "--child", "cold", path}, false, "seconds"};
    Contender read{{self, "--child", "read", path}, false, "seconds"};
    Contender cli{{cliPath, "summary", "--row-limit", "1", path}, true, nullptr};
    std::vector<Contender*> all{&ours};
    if (walkRef) all.insert(all.end(), {&warm, &cold, &read});
    const bool haveCli = !cliPath.empty() && ::access(cliPath.c_str(), X_OK) == 0;
    if (haveCli) all.push_back(&cli);
    runInterleaved(all, runs);

    const Run o = ours.median();
    if (!o.ok) {
        std::fprintf(stderr, "bench_load: our load failed\n");
        return 1;
    }
    const double secs = field(o.out, "seconds");
    const double jsonMB = field(o.out, "json") / 1e6;
    const double events = field(o.out, "events");
    std::printf(
        "%s\n  %.1f MB on disk%s, %.1f MB JSON, %.0f events, %u cores; medians of %d interleaved runs; "
        "the file is in the page cache for every run (dropping it needs root)\n",
        path, fileMB, gz ? " (gzip)" : "", jsonMB, events, unsigned(::sysconf(_SC_NPROCESSORS_ONLN)), runs);
    std::printf("  %-22s %9s %11s %11s %12s %9s %9s\n", "", "seconds", "MB/s JSON", "MB/s file",
                "peak RSS MB", "RSS/JSON", "child CPU");
    auto row = [&](const char* name, double s, const Run& r) {
        std::printf("  %-22s %9.3f %11.0f %11.0f %12.0f %9.2f %9.2f\n", name, s, jsonMB / s, fileMB / s,
                    r.maxRssMiB, r.maxRssMiB * 1.048576 / jsonMB, r.cpu);
    };
    row("kinetoscope", secs, o);
    std::printf("  %-22s parse+merge %.3f s, finish %.3f s; model %.1f B/event, peak RSS %.1f B/event\n", "",
                field(o.out, "parse"), field(o.out, "finish"), field(o.out, "model") / events,
                o.maxRssMiB * 1048576.0 / events);
    Run c;
    if (haveCli) {
        // A fresh process doing what a user does first: load, then the operator table.
        c = cli.median();
        if (c.ok) row("summary CLI, cold start", c.wall, c);
    }

    if (walkRef) {
        const Run w = warm.median(), k = cold.median(), lw = read.median();
        if (w.ok) row("simdjson walk (warm)", field(w.out, "seconds"), w);
        if (k.ok) row("simdjson walk (cold)", field(k.out, "seconds"), k);
        if (lw.ok) row(gz ? "simdjson gunzip+walk" : "simdjson read+walk", field(lw.out, "seconds"), lw);
        if (w.ok && k.ok && lw.ok)
            std::printf(
                "  %-22s ours vs walk: %.2fx warm, %.2fx cold, %.2fx with the read (higher is better)\n", "",
                field(w.out, "seconds") / secs, field(k.out, "seconds") / secs,
                field(lw.out, "seconds") / secs);
        if (c.ok && k.ok)
            std::printf("  %-22s summary CLI vs walk (cold): %.2fx (higher is better)\n", "",
                        field(k.out, "seconds") / c.wall);
    }
    if (gz) {
        Contender zc{{"/bin/sh", "-c", std::string("exec zcat '") + path + "'"}, true, nullptr};
        runInterleaved({&zc}, runs);
        const Run z = zc.median();
        if (z.ok) {
            row("zcat >/dev/null", z.wall, z);
            std::printf("  %-22s ours / zcat = %.2fx (higher is better)\n", "", z.wall / secs);
        }
    }
    if (python) {
        const char* script = "import gzip, json, sys\n"
                             "p = sys.argv[1]\n"
                             "op = gzip.open if open(p, 'rb').read(2) == b'\\x1f\\x8b' else open\n"
                             "with op(p, 'rb') as f:\n"
                             "    json.load(f)\n";
        Contender py{{"/usr/bin/python3", "-c", script, path}, true, nullptr};
        runInterleaved({&py}, 1);
        const Run p = py.median();
        if (p.ok) row("python3 json.load", p.wall, p);
    }
    return 0;
}
