#include "app/cli/commands.h"
#include "app/cli/jobreport.h"
#include "core/analysis/ranks/jobrunner.h"
#include "core/analysis/ranks/kjob.h"
#include "core/io/jobfiles.h"
#include "core/io/tracereader.h"
#include "core/util/paths.h"
#include "core/util/textescape.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <netdb.h>
#include <poll.h>
#include <spawn.h>
#include <string>
#include <sys/socket.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char** environ;

namespace ks::cli {

namespace {

const char* const kJobUsage =
    "usage: kinetoscope analyze-job DIR|FILES... [-o JOB.kjob] [--json] [-j N] [--memory GB]\n"
    "                               [--dask SCHEDULER_ADDRESS|local:N] [--worker-kinetoscope PATH]\n"
    "\n"
    "Analyses a distributed job: one trace per rank (a directory of rank traces, tensorboard's\n"
    "worker*.pt.trace.json[.gz], or the files given). Each rank is loaded, summarized (steps and\n"
    "their breakdown, HTA's communication/computation overlap, collectives) and dropped, so only\n"
    "summaries stay in memory. Prints the rank x step table, HTA's stragglers and the collectives\n"
    "with nccl-tests' algorithm and bus bandwidth (docs/ranks.md).\n"
    "\n"
    "options:\n"
    "  -o FILE       write the job summary (.kjob) for the GUI or a later run\n"
    "  --json        print the job summary as JSON instead of the report\n"
    "  -j N          ranks loaded at a time on this machine (the memory bound; default min(cores, 4))\n"
    "  --memory GB   at most this much memory for the loaded ranks (estimated from their files)\n"
    "  --dask ADDR   run one task per rank on a Dask cluster (tcp://host:8786), or local:N for a\n"
    "                local cluster of N worker processes; needs /usr/bin/python3 with distributed\n"
    "  --worker-kinetoscope PATH  the kinetoscope executable as the workers see it (default: this one)\n"
    "  --row-limit N rows of the collectives table (default 15)\n"
    "A .kjob file given instead of traces is read and reported. Exit code 3: some ranks failed\n"
    "(listed in the report and the .kjob); the others are analysed.\n";

const char* const kRankUsage =
    "usage: kinetoscope analyze-rank TRACE [--json] [--rank-hint N] [--threads N]\n"
    "One rank's summary (what analyze-job gathers per rank).\n";

LoadedRank loadRank(const std::string& path, unsigned threads)
{
    LoadOptions options;
    options.threads = threads;
    LoadResult r = loadTraceFile(path, options);
    LoadedRank out;
    out.trace = std::move(r.trace);
    out.error = r.error;
    out.warnings = std::move(r.warnings);
    return out;
}

bool parseCount(const std::string& v, int64_t& out)
{
    const auto r = std::from_chars(v.data(), v.data() + v.size(), out);
    return r.ec == std::errc() && r.ptr == v.data() + v.size() && out >= 0;
}

// A Dask scheduler given as local:N: N workers on this machine, from 1 to four per core (more would
// only fight over the cores, and each is a process). False with the reason otherwise.
bool checkLocalScheduler(const std::string& scheduler, std::string& why)
{
    const std::string n = scheduler.substr(6);
    int64_t workers = 0;
    const int64_t most = std::max<int64_t>(4, 4 * int64_t(std::thread::hardware_concurrency()));
    if (!parseCount(n, workers) || workers < 1 || workers > most) {
        why =
            "local:N needs N workers from 1 to " + std::to_string(most) + " (four per core), got '" + n + "'";
        return false;
    }
    return true;
}

// Whether a TCP connection to the scheduler opens within kConnectSeconds, so that a wrong address
// fails at once with the system's reason (Dask retries a refused port for its whole timeout).
// Addresses with another scheme (tls://, ucx://) are left to Dask.
constexpr int kConnectSeconds = 10;
bool checkSchedulerReachable(const std::string& scheduler, std::string& why)
{
    std::string address = scheduler;
    if (address.starts_with("tcp://"))
        address = address.substr(6);
    else if (address.find("://") != std::string::npos)
        return true;
    while (!address.empty() && address.back() == '/')
        address.pop_back();
    std::string host, port;
    if (address.starts_with('[')) {
        const size_t close = address.find(']');
        if (close == std::string::npos || address.compare(close + 1, 1, ":") != 0) {
            why = "not an address (tcp://HOST:PORT or local:N)";
            return false;
        }
        host = address.substr(1, close - 1);
        port = address.substr(close + 2);
    } else {
        const size_t colon = address.rfind(':');
        if (colon == std::string::npos) {
            host = address;
            port = "8786"; // Dask's default scheduler port
        } else {
            host = address.substr(0, colon);
            port = address.substr(colon + 1);
        }
    }
    int64_t portNumber = 0;
    if (host.empty() || !parseCount(port, portNumber) || portNumber < 1 || portNumber > 65535) {
        why = "not an address (tcp://HOST:PORT or local:N)";
        return false;
    }
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* found = nullptr;
    if (const int rc = ::getaddrinfo(host.c_str(), port.c_str(), &hints, &found); rc != 0) {
        why = std::string("cannot resolve ") + host + ": " + ::gai_strerror(rc);
        return false;
    }
    std::string reason = "no address";
    bool ok = false;
    for (addrinfo* a = found; a && !ok; a = a->ai_next) {
        const int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
        if (fd < 0) {
            reason = std::strerror(errno);
            continue;
        }
        int err = 0;
        if (::connect(fd, a->ai_addr, a->ai_addrlen) != 0) {
            err = errno;
            if (err == EINPROGRESS) {
                pollfd p{fd, POLLOUT, 0};
                const int n = ::poll(&p, 1, kConnectSeconds * 1000);
                socklen_t len = sizeof err;
                if (n == 0)
                    err = ETIMEDOUT;
                else if (n < 0 || ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0)
                    err = errno;
            }
        }
        ::close(fd);
        if (err == 0)
            ok = true;
        else
            reason = err == ETIMEDOUT ? "no answer after " + std::to_string(kConnectSeconds) + " s"
                                      : std::string(std::strerror(err));
    }
    ::freeaddrinfo(found);
    if (!ok) why = "cannot connect: " + reason;
    return ok;
}

std::string selfExecutable()
{
    std::error_code ec;
    const auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
    return ec ? std::string("kinetoscope") : p.string();
}

// Runs the Python driver (resources/python/kinetoscope/cluster.py) and waits for it.
int runDask(const std::string& scheduler, const std::string& worker, const std::vector<JobFile>& files,
            const std::string& outPath)
{
    const std::string pkg = findExisting(
        {"../share/kinetoscope/python", KS_INSTALL_DATADIR "/python", KS_SOURCE_DIR "/resources/python"});
    if (pkg.empty()) {
        std::fprintf(stderr, "kinetoscope analyze-job: the kinetoscope Python package is not installed\n");
        return 1;
    }
    // By path, not -m: the package's __init__ loads libkinetoscope, which the driver does not need.
    std::vector<std::string> argv = {"/usr/bin/python3",
                                     pkg + "/kinetoscope/cluster.py",
                                     "--scheduler",
                                     scheduler,
                                     "--kinetoscope",
                                     worker,
                                     "-o",
                                     outPath};
    // One argument each: a rank the file does not tell is -1, which as a separate argument
    // argparse would take for an option.
    for (const JobFile& f : files)
        argv.push_back("--file=" + std::to_string(f.rank) + ":" + f.path);
    std::string pythonPath = "PYTHONPATH=" + pkg;
    if (const char* old = std::getenv("PYTHONPATH"); old && *old) pythonPath += std::string(":") + old;
    std::vector<char*> env;
    for (char** e = environ; *e; ++e)
        if (std::string_view(*e).substr(0, 11) != "PYTHONPATH=") env.push_back(*e);
    env.push_back(pythonPath.data());
    env.push_back(nullptr);
    std::vector<char*> args;
    for (std::string& a : argv)
        args.push_back(a.data());
    args.push_back(nullptr);
    pid_t pid = -1;
    if (posix_spawn(&pid, args[0], nullptr, nullptr, args.data(), env.data()) != 0) {
        std::fprintf(stderr, "kinetoscope analyze-job: cannot run /usr/bin/python3\n");
        return 1;
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

} // namespace

int runAnalyzeRank(const Args& args)
{
    std::string path;
    bool json = false;
    int64_t hint = -1, threads = 0;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "--help" || a == "-h") {
            std::fputs(kRankUsage, stdout);
            return 0;
        } else if (a == "--json") {
            json = true;
        } else if ((a == "--rank-hint" || a == "--threads") && i + 1 < args.size()) {
            if (!parseCount(args[++i], a == "--threads" ? threads : hint)) {
                std::fprintf(stderr, "kinetoscope analyze-rank: %s needs a number\n", a.c_str());
                return 2;
            }
        } else if (a.empty() || a[0] == '-' || !path.empty()) {
            std::fputs(kRankUsage, stderr);
            return 2;
        } else {
            path = a;
        }
    }
    if (path.empty()) {
        std::fputs(kRankUsage, stderr);
        return 2;
    }
    RankSummary summary;
    std::string error;
    RankInput in{path, hint < 0 ? rankFromFileName(path) : hint};
    if (!analyzeRank(in, loadRank, unsigned(threads), summary, error)) {
        std::fprintf(stderr, "kinetoscope: %s: %s\n", escapeText(path).c_str(), escapeText(error).c_str());
        return 1;
    }
    if (json)
        std::printf("%s\n", rankSummaryToJson(summary).c_str());
    else
        printRankReport(stdout, summary);
    return 0;
}

int runAnalyzeJob(const Args& args)
{
    std::vector<std::string> inputs;
    std::string outPath, dask, worker;
    bool json = false;
    int64_t parallel = 0, rowLimit = 15;
    double memoryGb = 0;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        auto value = [&](std::string& out) {
            if (i + 1 >= args.size()) {
                std::fprintf(stderr, "kinetoscope analyze-job: %s needs a value\n", a.c_str());
                return false;
            }
            out = args[++i];
            return true;
        };
        std::string v;
        if (a == "--help" || a == "-h") {
            std::fputs(kJobUsage, stdout);
            return 0;
        } else if (a == "--json") {
            json = true;
        } else if (a == "-o" || a == "--output") {
            if (!value(outPath)) return 2;
        } else if (a == "--dask") {
            if (!value(dask)) return 2;
        } else if (a == "--worker-kinetoscope") {
            if (!value(worker)) return 2;
        } else if (a == "--memory") {
            if (!value(v)) return 2;
            char* end = nullptr;
            memoryGb = std::strtod(v.c_str(), &end);
            // nan, inf and anything past an exabyte are not a budget (GB × 1e9 must fit a uint64).
            if (end == v.c_str() || *end || !(memoryGb > 0 && memoryGb <= 1e9)) {
                std::fprintf(stderr,
                             "kinetoscope analyze-job: --memory needs GB (above 0, at most 1e9), got '%s'\n",
                             escapeText(v).c_str());
                return 2;
            }
        } else if (a == "-j" || a == "--row-limit") {
            if (!value(v)) return 2;
            int64_t& target = a == "-j" ? parallel : rowLimit;
            if (!parseCount(v, target)) {
                std::fprintf(stderr, "kinetoscope analyze-job: %s needs a count, got '%s'\n", a.c_str(),
                             v.c_str());
                return 2;
            }
        } else if (!a.empty() && a[0] == '-') {
            std::fprintf(stderr, "kinetoscope analyze-job: unknown option '%s'\n", a.c_str());
            std::fputs(kJobUsage, stderr);
            return 2;
        } else {
            inputs.push_back(a);
        }
    }
    if (inputs.empty()) {
        std::fputs(kJobUsage, stderr);
        return 2;
    }

    JobSummary job;
    std::string error;
    if (inputs.size() == 1 && inputs[0].ends_with(".kjob")) {
        if (!readJobFile(inputs[0], job, error)) {
            std::fprintf(stderr, "kinetoscope: %s\n", escapeText(error).c_str());
            return 1;
        }
    } else {
        const JobFiles files = findJobFiles(inputs);
        if (!files.error.empty()) {
            std::fprintf(stderr, "kinetoscope analyze-job: %s\n", escapeText(files.error).c_str());
            return 1;
        }
        for (const std::string& w : files.warnings)
            std::fprintf(stderr, "kinetoscope analyze-job: warning: %s\n", escapeText(w).c_str());
        if (!dask.empty()) {
            std::string why;
            if (dask.starts_with("local:") ? !checkLocalScheduler(dask, why)
                                           : !checkSchedulerReachable(dask, why)) {
                std::fprintf(stderr, "kinetoscope analyze-job: --dask %s: %s\n", escapeText(dask).c_str(),
                             escapeText(why).c_str());
                return dask.starts_with("local:") ? 2 : 1;
            }
            // The driver writes the .kjob; without -o it goes to a temporary file read back here.
            std::string target = outPath;
            if (target.empty())
                target = (std::filesystem::temp_directory_path() /
                          ("kinetoscope-" + std::to_string(getpid()) + ".kjob"))
                             .string();
            const int rc = runDask(dask, worker.empty() ? selfExecutable() : worker, files.files, target);
            if (rc != 0) return rc;
            const bool ok = readJobFile(target, job, error);
            if (outPath.empty()) std::filesystem::remove(target);
            if (!ok) {
                std::fprintf(stderr, "kinetoscope: %s\n", escapeText(error).c_str());
                return 1;
            }
            outPath.clear(); // already written by the driver
        } else {
            std::vector<RankInput> ranks;
            for (const JobFile& f : files.files)
                ranks.push_back(RankInput{f.path, f.rank});
            JobRunOptions options;
            options.maxLoaded = unsigned(parallel);
            options.memoryBudget = uint64_t(memoryGb * 1e9);
            if (isatty(STDERR_FILENO))
                options.progress = [](size_t done, size_t total, const std::string& path, bool failed) {
                    std::fprintf(stderr, "\r[%zu/%zu] %s%s\x1b[K", done, total, failed ? "FAILED " : "",
                                 escapeText(std::filesystem::path(path).filename().string()).c_str());
                    if (done == total) std::fputc('\n', stderr);
                };
            job = runJob(ranks, loadRank, options);
        }
    }
    if (!outPath.empty() && !writeJobFile(outPath, job, error)) {
        std::fprintf(stderr, "kinetoscope: %s\n", escapeText(error).c_str());
        return 1;
    }
    if (json)
        std::printf("%s\n", jobSummaryToJson(job).c_str());
    else
        printJobReport(stdout, job, size_t(rowLimit));
    // Partial results are still results; the exit code says some ranks are missing.
    return job.ranks.empty() ? 1 : (job.failures.empty() ? 0 : 3);
}

} // namespace ks::cli
