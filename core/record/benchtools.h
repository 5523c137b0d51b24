#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ks::record::bench {

// Times a scope, like torch_geometric.profile.timeit: the duration is available after the scope
// ends (and printed when log is set); avgDivisor > 0 divides it (the scope ran that many
// iterations). The scope is also recorded as a range named `name` when a profiler is recording.
class Timeit {
public:
    explicit Timeit(bool log = true, int avgDivisor = 0, const char* name = "timeit", double* out = nullptr);
    ~Timeit();
    Timeit(const Timeit&) = delete;
    Timeit& operator=(const Timeit&) = delete;

private:
    std::chrono::steady_clock::time_point m_t0;
    bool m_log;
    int m_divisor;
    double* m_out;
};

struct Stats {
    double seconds = 0;
    int64_t peakRssBytes = 0; // resident-set high-water mark during the call (reset before it)
};

struct StatsSummary {
    double timeMean = 0;
    double timeStd = 0; // sample standard deviation (n - 1), as torch's std()
    double timeMax = 0;
    int64_t peakRssMax = 0;
};

// Runs fn once and measures it.
Stats profileit(const std::function<void()>& fn);
StatsSummary summarize(const std::vector<Stats>& runs);

// CSV with a header row; written atomically. Labels (optional) become a first "name" column.
bool writeCsv(const std::string& path, const std::vector<Stats>& rows, const std::vector<std::string>& labels,
              std::string* error = nullptr);
bool writeCsv(const std::string& path, const std::vector<StatsSummary>& rows,
              const std::vector<std::string>& labels, std::string* error = nullptr);

// Resets the kernel's per-process RSS high-water mark; false where unsupported.
bool resetPeakRss();
int64_t peakRssBytes();

} // namespace ks::record::bench
