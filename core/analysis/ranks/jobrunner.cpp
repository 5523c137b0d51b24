#include "core/analysis/ranks/jobrunner.h"

#include "core/analysis/timeline/linkindex.h"

#include <algorithm>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <thread>

namespace ks {

uint64_t estimateRankBytes(const std::string& path)
{
    std::error_code ec;
    const uint64_t size = std::filesystem::file_size(path, ec);
    if (ec) return 0;
    const bool gz = path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0;
    return (gz ? size * 20 : size) * 3 / 2;
}

bool analyzeRank(const RankInput& input, const RankLoader& loader, unsigned threads, RankSummary& out,
                 std::string& error)
{
    LoadedRank loaded;
    try {
        loaded = loader(input.path, threads);
    } catch (const std::exception& e) {
        loaded.error = e.what();
    }
    if (!loaded.trace) {
        error = loaded.error.empty() ? std::string("could not be read") : loaded.error;
        return false;
    }
    try {
        LinkIndex links;
        links.build(*loaded.trace);
        out = summarizeRank(*loaded.trace, links, input.path);
    } catch (const std::exception& e) {
        error = std::string("analysis failed: ") + e.what();
        return false;
    }
    if (out.rank < 0) out.rank = input.rankHint;
    out.warnings.insert(out.warnings.begin(), loaded.warnings.begin(), loaded.warnings.end());
    return true;
}

JobSummary runJob(const std::vector<RankInput>& inputs, const RankLoader& loader,
                  const JobRunOptions& options)
{
    const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
    const unsigned workers =
        std::max(1u, std::min<unsigned>(options.maxLoaded ? options.maxLoaded : std::min(hw, 4u),
                                        unsigned(inputs.size())));
    // Each rank's reader gets its share of the cores.
    const unsigned parserThreads = std::max(1u, hw / workers);

    JobSummary job;
    std::mutex mutex;
    std::atomic<size_t> next{0}, done{0};
    // The memory budget: bytes of the ranks in flight, and a wait until a new one fits.
    std::mutex budgetMutex;
    std::condition_variable budgetFreed;
    uint64_t inFlight = 0;
    auto work = [&] {
        for (;;) {
            if (options.cancel && options.cancel->load()) return;
            const size_t i = next.fetch_add(1);
            if (i >= inputs.size()) return;
            RankInput in = inputs[i];
            if (in.rankHint < 0) in.rankHint = int64_t(i);
            const uint64_t cost = options.memoryBudget ? estimateRankBytes(in.path) : 0;
            if (options.memoryBudget) {
                std::unique_lock lock(budgetMutex);
                budgetFreed.wait(lock, [&] {
                    return inFlight == 0 || inFlight + cost <= options.memoryBudget ||
                           (options.cancel && options.cancel->load());
                });
                inFlight += cost;
            }
            RankSummary summary;
            std::string error;
            const bool ok = analyzeRank(in, loader, parserThreads, summary, error);
            if (options.memoryBudget) {
                std::lock_guard lock(budgetMutex);
                inFlight -= cost;
                budgetFreed.notify_all();
            }
            {
                std::lock_guard lock(mutex);
                if (ok)
                    job.ranks.push_back(std::move(summary));
                else
                    job.failures.push_back(RankFailure{in.path, in.rankHint, error, 1});
            }
            const size_t n = done.fetch_add(1) + 1;
            if (options.progress) options.progress(n, inputs.size(), in.path, !ok);
        }
    };
    std::vector<std::thread> pool;
    for (unsigned w = 1; w < workers; ++w)
        pool.emplace_back(work);
    work();
    for (std::thread& t : pool)
        t.join();
    if (options.cancel && options.cancel->load() && next.load() < inputs.size())
        job.warnings.push_back("cancelled after " + std::to_string(done.load()) + " of " +
                               std::to_string(inputs.size()) + " ranks");
    std::sort(job.failures.begin(), job.failures.end(),
              [](const RankFailure& a, const RankFailure& b) { return a.rank < b.rank; });
    job.normalize();
    return job;
}

} // namespace ks
