// bench_job [--ranks 64] [--mb 100] [--dir DIR] [-j N] [--dask-workers 2] [--no-dask]
//
// The job summary of a generated job (jobgen's layout: one trace per rank), measured in one run:
//   one rank      `kinetoscope analyze-rank`: the reference for memory (one rank loaded)
//   local cores   `kinetoscope analyze-job DIR -j N`: wall time and peak RSS (N ranks loaded at most)
//   Dask          `kinetoscope analyze-job DIR --dask local:W`: wall time, the peak RSS of each
//                 analyze-rank task (measured through this program as the workers' kinetoscope) and
//                 of the driver's process tree
// and checks that both ways give the same rank summaries.
#include "core/analysis/ranks/kjob.h"
#include "rankgen.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

struct Run {
    int code = -1;
    double seconds = 0;
    long maxRssKb = 0; // the child and the descendants it waited for
};

Run run(std::vector<std::string> argv, bool quiet = true)
{
    const auto t0 = std::chrono::steady_clock::now();
    const pid_t pid = fork();
    if (pid == 0) {
        if (quiet) {
            const int null = open("/dev/null", O_WRONLY);
            dup2(null, 1);
        }
        std::vector<char*> args;
        for (std::string& a : argv)
            args.push_back(a.data());
        args.push_back(nullptr);
        execv(args[0], args.data());
        _exit(127);
    }
    int status = 0;
    rusage ru{};
    wait4(pid, &status, 0, &ru);
    Run r;
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    r.maxRssKb = ru.ru_maxrss;
    return r;
}

std::string selfPath()
{
    return std::filesystem::read_symlink("/proc/self/exe").string();
}

// Workers' kinetoscope: runs the real one and appends its peak RSS (KiB) to the log.
int measureExec(int argc, char** argv)
{
    const std::string log = argv[2];
    std::vector<std::string> args(argv + 3, argv + argc);
    const pid_t pid = fork();
    if (pid == 0) {
        std::vector<char*> a;
        for (std::string& s : args)
            a.push_back(s.data());
        a.push_back(nullptr);
        execv(a[0], a.data());
        _exit(127);
    }
    int status = 0;
    rusage ru{};
    wait4(pid, &status, 0, &ru);
    const int fd = open(log.c_str(), O_WRONLY | O_APPEND | O_CREAT, 0644);
    const std::string line = std::to_string(ru.ru_maxrss) + "\n";
    if (fd >= 0) {
        (void)!write(fd, line.data(), line.size());
        close(fd);
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

long maxOfLog(const std::string& path, size_t& count)
{
    std::ifstream in(path);
    long v = 0, best = 0;
    count = 0;
    while (in >> v)
        best = std::max(best, v), ++count;
    return best;
}

} // namespace

int main(int argc, char** argv)
{
    if (argc >= 3 && std::strcmp(argv[1], "--measure-exec") == 0) return measureExec(argc, argv);
    int ranks = 64, jobs = 2, daskWorkers = 2;
    long mb = 100;
    bool dask = true;
    std::string dir = "/tmp/ks-bench-job";
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto next = [&] { return i + 1 < argc ? std::string(argv[++i]) : std::string(); };
        if (a == "--ranks")
            ranks = std::atoi(next().c_str());
        else if (a == "--mb")
            mb = std::atol(next().c_str());
        else if (a == "--dir")
            dir = next();
        else if (a == "-j")
            jobs = std::atoi(next().c_str());
        else if (a == "--dask-workers")
            daskWorkers = std::atoi(next().c_str());
        else if (a == "--no-dask")
            dask = false;
        else {
            std::fprintf(
                stderr,
                "usage: bench_job [--ranks N] [--mb MB] [--dir DIR] [-j N] [--dask-workers W] [--no-dask]\n");
            return 2;
        }
    }
    const std::string self = selfPath();
    const std::string ks = std::filesystem::path(self).parent_path().parent_path() / "app" / "kinetoscope";

    // Generate once; a marker says with which parameters.
    const std::string marker = dir + "/.params", params = std::to_string(ranks) + "x" + std::to_string(mb);
    std::string have;
    std::ifstream(marker) >> have;
    if (have != params) {
        std::filesystem::remove_all(dir);
        std::filesystem::create_directories(dir);
        ks::rankgen::Options o;
        o.world = ranks;
        o.steps = 8;
        o.straggler = ranks / 2 + 5 < ranks ? ranks / 2 + 5 : 0;
        o.padBytes = uint64_t(mb) << 20;
        const auto t0 = std::chrono::steady_clock::now();
        uint64_t bytes = 0;
        for (int r = 0; r < ranks; ++r) {
            const std::string text = ks::rankgen::rankTrace(o, r);
            bytes += text.size();
            std::ofstream(dir + "/rank-" + std::to_string(r) + ".pt.trace.json", std::ios::binary) << text;
        }
        std::ofstream(marker) << params;
        std::printf("generated %d ranks, %.1f GB in %.1f s\n", ranks, double(bytes) / 1e9,
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    uint64_t total = 0;
    for (const auto& e : std::filesystem::directory_iterator(dir))
        if (e.path().extension() == ".json") total += e.file_size();
    std::printf("job: %d ranks, %.2f GB of JSON (%.0f MB per rank), %u cores\n", ranks, double(total) / 1e9,
                double(total) / ranks / 1e6, std::thread::hardware_concurrency());

    const Run one = run({ks, "analyze-rank", dir + "/rank-0.pt.trace.json"});
    std::printf("%-34s %8.2f s  peak RSS %7.0f MB\n", "one rank (analyze-rank)", one.seconds,
                one.maxRssKb / 1024.0);

    const std::string localOut = dir + "/local.kjob";
    const Run local = run({ks, "analyze-job", dir, "-j", std::to_string(jobs), "-o", localOut});
    std::printf("%-34s %8.2f s  peak RSS %7.0f MB  (%.1fx one rank; exit %d)\n",
                ("local cores, -j " + std::to_string(jobs)).c_str(), local.seconds, local.maxRssKb / 1024.0,
                double(local.maxRssKb) / double(one.maxRssKb), local.code);

    if (dask) {
        const std::string log = dir + "/dask-rss.log", daskOut = dir + "/dask.kjob";
        std::filesystem::remove(log);
        // The workers run `self --measure-exec LOG KS ...`: a wrapper script passes the arguments on.
        const std::string wrapper = dir + "/measured-kinetoscope";
        std::ofstream(wrapper) << "#!/bin/sh\nexec \"" << self << "\" --measure-exec \"" << log << "\" \""
                               << ks << "\" \"$@\"\n";
        std::filesystem::permissions(wrapper, std::filesystem::perms::owner_all);
        const Run d = run({ks, "analyze-job", dir, "--dask", "local:" + std::to_string(daskWorkers),
                           "--worker-kinetoscope", wrapper, "-o", daskOut});
        size_t tasks = 0;
        const long taskRss = maxOfLog(log, tasks);
        std::printf("%-34s %8.2f s  peak RSS per task %7.0f MB (%zu tasks), driver tree %7.0f MB (exit %d)\n",
                    ("Dask LocalCluster, " + std::to_string(daskWorkers) + " workers").c_str(), d.seconds,
                    taskRss / 1024.0, tasks, d.maxRssKb / 1024.0, d.code);
        ks::JobSummary a, b;
        std::string error;
        if (ks::readJobFile(localOut, a, error) && ks::readJobFile(daskOut, b, error)) {
            bool same = a.ranks.size() == b.ranks.size();
            for (size_t i = 0; same && i < a.ranks.size(); ++i)
                same = ks::rankSummaryToJson(a.ranks[i]) == ks::rankSummaryToJson(b.ranks[i]);
            std::printf("rank summaries local == Dask: %s (%zu ranks)\n", same ? "yes" : "NO",
                        a.ranks.size());
        } else {
            std::printf("cannot compare: %s\n", error.c_str());
        }
    }
    return 0;
}
