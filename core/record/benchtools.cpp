#include "core/record/benchtools.h"

#include "core/record/api.h"
#include "core/util/atomicfile.h"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace ks::record::bench {

Timeit::Timeit(bool log, int avgDivisor, const char* name, double* out)
    : m_log(log), m_divisor(avgDivisor), m_out(out)
{
    rangeBegin(internName(name));
    m_t0 = std::chrono::steady_clock::now();
}

Timeit::~Timeit()
{
    double d = std::chrono::duration<double>(std::chrono::steady_clock::now() - m_t0).count();
    rangeEnd();
    if (m_divisor > 0) d /= m_divisor;
    if (m_out) *m_out = d;
    if (m_log) std::fprintf(stderr, "Time: %.8fs\n", d);
}

bool resetPeakRss()
{
    std::ofstream f("/proc/self/clear_refs");
    if (!f) return false;
    f << "5";
    return bool(f);
}

int64_t peakRssBytes()
{
    std::ifstream f("/proc/self/status");
    std::string line;
    while (std::getline(f, line)) {
        if (line.rfind("VmHWM:", 0) == 0) return std::stoll(line.substr(6)) * 1024;
    }
    return 0;
}

Stats profileit(const std::function<void()>& fn)
{
    resetPeakRss();
    Stats s;
    {
        const auto t0 = std::chrono::steady_clock::now();
        KS_RANGE("profileit");
        fn();
        s.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }
    s.peakRssBytes = peakRssBytes();
    return s;
}

StatsSummary summarize(const std::vector<Stats>& runs)
{
    StatsSummary out;
    if (runs.empty()) {
        out.timeMean = out.timeStd = out.timeMax = std::nan("");
        return out;
    }
    double sum = 0;
    for (const Stats& s : runs) {
        sum += s.seconds;
        out.timeMax = std::max(out.timeMax, s.seconds);
        out.peakRssMax = std::max(out.peakRssMax, s.peakRssBytes);
    }
    out.timeMean = sum / double(runs.size());
    if (runs.size() < 2) {
        out.timeStd = 0;
    } else {
        double sq = 0;
        for (const Stats& s : runs)
            sq += (s.seconds - out.timeMean) * (s.seconds - out.timeMean);
        out.timeStd = std::sqrt(sq / double(runs.size() - 1));
    }
    return out;
}

namespace {

std::string number(double v)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.9g", v);
    return buf;
}

// RFC 4180 quoting for free-text cells.
std::string cell(const std::string& s)
{
    if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
    std::string out = "\"";
    for (char c : s) {
        if (c == '"') out += '"';
        out += c;
    }
    return out + "\"";
}

bool write(const std::string& path, const std::string& text, std::string* error)
{
    AtomicFile f(path);
    if (!f.open() || !f.write(text) || !f.commit()) {
        if (error) *error = f.error();
        return false;
    }
    return true;
}

} // namespace

bool writeCsv(const std::string& path, const std::vector<Stats>& rows, const std::vector<std::string>& labels,
              std::string* error)
{
    std::ostringstream out;
    const bool named = !labels.empty();
    out << (named ? "name," : "") << "time,peak_rss\n";
    for (size_t i = 0; i < rows.size(); ++i)
        out << (named ? cell(labels.at(i)) + "," : "") << number(rows[i].seconds) << ","
            << rows[i].peakRssBytes << "\n";
    return write(path, out.str(), error);
}

bool writeCsv(const std::string& path, const std::vector<StatsSummary>& rows,
              const std::vector<std::string>& labels, std::string* error)
{
    std::ostringstream out;
    const bool named = !labels.empty();
    out << (named ? "name," : "") << "time_mean,time_std,time_max,peak_rss_max\n";
    for (size_t i = 0; i < rows.size(); ++i)
        out << (named ? cell(labels.at(i)) + "," : "") << number(rows[i].timeMean) << ","
            << number(rows[i].timeStd) << "," << number(rows[i].timeMax) << "," << rows[i].peakRssMax << "\n";
    return write(path, out.str(), error);
}

} // namespace ks::record::bench
