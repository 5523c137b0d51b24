#include "core/analysis/ranks/kjob.h"

#include "core/util/atomicfile.h"
#include "core/util/textescape.h"

#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

namespace ks {

namespace {

using J = nlohmann::ordered_json;

// Collectives are stored as columns of one array per collective; names (long kernel signatures that
// repeat) go into a table and are referenced by index.
const char* const kCollectiveColumns[] = {"op",       "name",        "dtype",    "elements",
                                          "bytes",    "group_size",  "stream",   "step",
                                          "start_ns", "duration_ns", "on_device"};

J rankJson(const RankSummary& r)
{
    J j;
    j["format"] = "kinetoscope-rank";
    j["version"] = kJobFormatVersion;
    j["rank"] = r.rank;
    j["world_size"] = r.worldSize;
    j["backend"] = r.backend;
    j["path"] = r.path;
    j["slices"] = r.slices;
    j["time_offset_ns"] = r.timeOffset;
    j["start_ns"] = r.start;
    j["end_ns"] = r.end;
    j["on_device"] = r.onDevice;
    j["whole_trace"] = r.wholeTrace;
    j["comm_ns"] = r.commTime;
    j["overlap_ns"] = r.overlapTime;
    J cats = J::array();
    for (size_t c = 0; c < kStepCategoryCount; ++c)
        cats.push_back(stepCategoryName(StepCategory(c)));
    j["categories"] = cats;
    J steps = J::array();
    for (const RankStep& s : r.steps) {
        J cost = J::array();
        for (TimeNs v : s.cost)
            cost.push_back(v);
        steps.push_back({{"number", s.number},
                         {"start_ns", s.start},
                         {"end_ns", s.end},
                         {"cost_ns", cost},
                         {"comm_ns", s.commTime},
                         {"overlap_ns", s.overlapTime}});
    }
    j["steps"] = steps;
    std::map<std::string, size_t> nameIndex;
    J names = J::array(), rows = J::array();
    for (const Collective& c : r.collectives) {
        auto [it, added] = nameIndex.emplace(c.name, nameIndex.size());
        if (added) names.push_back(c.name);
        rows.push_back(J::array({c.op, it->second, c.dtype, c.elements, c.bytes, c.groupSize, c.stream,
                                 c.step, c.start, c.duration, c.onDevice}));
    }
    J columns = J::array();
    for (const char* c : kCollectiveColumns)
        columns.push_back(c);
    j["collective_columns"] = columns;
    j["collective_names"] = names;
    j["collectives"] = rows;
    j["warnings"] = r.warnings;
    return j;
}

// A whole number of the file as T: a float is taken only when it is whole and T holds it (nlohmann
// would cast any double, and a double out of T's range is undefined behaviour).
template <typename T>
T integer(const J& v)
{
    if (v.is_number_float()) {
        const double d = v.get<double>();
        // [min, 2^digits): both bounds are exact as doubles.
        const double lo = double(std::numeric_limits<T>::min());
        const double hi = std::ldexp(1.0, std::numeric_limits<T>::digits);
        if (!(d >= lo && d < hi) || d != std::trunc(d))
            throw std::out_of_range("not a whole number in range: " + v.dump());
        return T(d);
    }
    if (v.is_number_integer()) {
        // nlohmann converts between its int64 and uint64 and T without checking the range either.
        if (v.is_number_unsigned()) {
            const uint64_t u = v.get<uint64_t>();
            if (u > uint64_t(std::numeric_limits<T>::max()))
                throw std::out_of_range("number out of range: " + v.dump());
            return T(u);
        }
        const int64_t i = v.get<int64_t>();
        if (i < int64_t(std::numeric_limits<T>::min()) ||
            (i > 0 && uint64_t(i) > uint64_t(std::numeric_limits<T>::max())))
            throw std::out_of_range("number out of range: " + v.dump());
        return T(i);
    }
    return v.get<T>(); // a type error with nlohmann's message
}

template <typename T>
T field(const J& j, const char* key, T fallback)
{
    const auto it = j.find(key);
    if (it == j.end() || it->is_null()) return fallback;
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>)
        return integer<T>(*it);
    else
        return it->get<T>();
}

// The format version, or 0 with `shown` holding what the file wrote when it is not a whole number
// (1e300, "2", -1.5).
int formatVersion(const J& j, std::string& shown)
{
    const auto it = j.find("version");
    if (it == j.end()) {
        shown = "missing";
        return 0;
    }
    shown = it->dump(-1, ' ', false, J::error_handler_t::replace);
    if (shown.size() > 40) shown = shown.substr(0, 40) + "...";
    if (!it->is_number_integer()) return 0;
    if (it->is_number_unsigned()) return it->get<uint64_t>() > 1000 ? 0 : int(it->get<uint64_t>());
    const int64_t v = it->get<int64_t>();
    return v < 1 || v > 1000 ? 0 : int(v);
}

bool rankFromJson(const J& j, RankSummary& r, std::string& error)
{
    if (!j.is_object() || field<std::string>(j, "format", "") != "kinetoscope-rank") {
        error = "not a kinetoscope rank summary";
        return false;
    }
    std::string shown;
    const int version = formatVersion(j, shown);
    if (version < 1 || version > kJobFormatVersion) {
        error = "rank summary version " + shown + " (this build reads 1-" +
                std::to_string(kJobFormatVersion) + ")";
        return false;
    }
    r = RankSummary();
    r.rank = field<int64_t>(j, "rank", -1);
    r.worldSize = field<int64_t>(j, "world_size", 0);
    r.backend = field<std::string>(j, "backend", "");
    r.path = field<std::string>(j, "path", "");
    r.slices = field<uint64_t>(j, "slices", 0);
    r.timeOffset = field<int64_t>(j, "time_offset_ns", 0);
    r.start = field<int64_t>(j, "start_ns", 0);
    r.end = field<int64_t>(j, "end_ns", 0);
    r.onDevice = field<bool>(j, "on_device", false);
    r.wholeTrace = field<bool>(j, "whole_trace", false);
    r.commTime = field<int64_t>(j, "comm_ns", 0);
    r.overlapTime = field<int64_t>(j, "overlap_ns", 0);
    // Categories by name, so a file from a build with other categories still reads.
    std::vector<int> catMap;
    for (const J& name : j.value("categories", J::array())) {
        int found = -1;
        for (size_t c = 0; c < kStepCategoryCount; ++c)
            if (name.is_string() && name.get<std::string>() == stepCategoryName(StepCategory(c)))
                found = int(c);
        catMap.push_back(found);
    }
    for (const J& s : j.value("steps", J::array())) {
        RankStep st;
        st.number = field<int64_t>(s, "number", 0);
        st.start = field<int64_t>(s, "start_ns", 0);
        st.end = field<int64_t>(s, "end_ns", 0);
        st.commTime = field<int64_t>(s, "comm_ns", 0);
        st.overlapTime = field<int64_t>(s, "overlap_ns", 0);
        const J cost = s.value("cost_ns", J::array());
        for (size_t c = 0; c < cost.size() && c < catMap.size(); ++c)
            if (catMap[c] >= 0) st.cost[size_t(catMap[c])] = integer<int64_t>(cost[c]);
        r.steps.push_back(st);
    }
    std::map<std::string, size_t> column;
    const J cols = j.value("collective_columns", J::array());
    for (size_t i = 0; i < cols.size(); ++i)
        column[cols[i].get<std::string>()] = i;
    for (const char* c : kCollectiveColumns) {
        if (!column.count(c) && !j.value("collectives", J::array()).empty()) {
            error = std::string("collectives lack the column '") + c + "'";
            return false;
        }
    }
    const J names = j.value("collective_names", J::array());
    for (const J& row : j.value("collectives", J::array())) {
        auto at = [&](const char* key) -> const J& { return row.at(column.at(key)); };
        Collective c;
        c.op = at("op").get<std::string>();
        c.name = names.at(integer<size_t>(at("name"))).get<std::string>();
        c.dtype = at("dtype").get<std::string>();
        c.elements = integer<int64_t>(at("elements"));
        c.bytes = integer<int64_t>(at("bytes"));
        c.groupSize = integer<int64_t>(at("group_size"));
        c.stream = integer<int64_t>(at("stream"));
        c.step = integer<int64_t>(at("step"));
        c.start = integer<int64_t>(at("start_ns"));
        c.duration = integer<int64_t>(at("duration_ns"));
        c.onDevice = at("on_device").get<bool>();
        r.collectives.push_back(std::move(c));
    }
    r.warnings = j.value("warnings", std::vector<std::string>());
    return true;
}

// nlohmann reports type errors as exceptions; they become the one-line error.
template <typename Fn>
bool guarded(std::string_view json, std::string& error, Fn&& fn)
{
    try {
        // A job file nests a few levels. Deeper input is refused while it is parsed (the parser is
        // iterative), before anything recursive (copies, comparisons) meets it.
        constexpr int kMaxDepth = 64;
        const J j = J::parse(json, [](int depth, J::parse_event_t event, J&) {
            if (depth >= kMaxDepth &&
                (event == J::parse_event_t::object_start || event == J::parse_event_t::array_start))
                throw std::runtime_error("nested more than " + std::to_string(kMaxDepth) + " levels deep");
            return true;
        });
        if (fn(j)) return true;
    } catch (const std::exception& e) {
        error = e.what();
    }
    // The message may quote the file (nlohmann's "last read: '...'" passes DEL and bytes that are
    // not UTF-8 through; a version shown as it was written): escaped for a terminal.
    error = escapeText(error);
    return false;
}

} // namespace

std::string rankSummaryToJson(const RankSummary& rank)
{
    return rankJson(rank).dump();
}

bool rankSummaryFromJson(std::string_view json, RankSummary& out, std::string& error)
{
    return guarded(json, error, [&](const J& j) { return rankFromJson(j, out, error); });
}

std::string jobSummaryToJson(const JobSummary& job)
{
    J j;
    j["format"] = "kinetoscope-job";
    j["version"] = kJobFormatVersion;
    J ranks = J::array();
    for (const RankSummary& r : job.ranks)
        ranks.push_back(rankJson(r));
    j["ranks"] = ranks;
    J failures = J::array();
    for (const RankFailure& f : job.failures)
        failures.push_back(
            {{"path", f.path}, {"rank", f.rank}, {"error", f.error}, {"attempts", f.attempts}});
    j["failures"] = failures;
    j["warnings"] = job.warnings;
    return j.dump(1);
}

bool jobSummaryFromJson(std::string_view json, JobSummary& out, std::string& error)
{
    return guarded(json, error, [&](const J& j) {
        if (!j.is_object() || field<std::string>(j, "format", "") != "kinetoscope-job") {
            error = "not a kinetoscope job file";
            return false;
        }
        std::string shown;
        const int version = formatVersion(j, shown);
        if (version < 1 || version > kJobFormatVersion) {
            error = "job file version " + shown + " (this build reads 1-" +
                    std::to_string(kJobFormatVersion) + ")";
            return false;
        }
        out = JobSummary();
        size_t i = 0;
        for (const J& r : j.value("ranks", J::array())) {
            RankSummary s;
            if (!rankFromJson(r, s, error)) {
                error = "rank entry " + std::to_string(i) + ": " + error;
                return false;
            }
            out.ranks.push_back(std::move(s));
            ++i;
        }
        for (const J& f : j.value("failures", J::array()))
            out.failures.push_back(
                RankFailure{field<std::string>(f, "path", ""), field<int64_t>(f, "rank", -1),
                            field<std::string>(f, "error", ""), field<int>(f, "attempts", 1)});
        out.warnings = j.value("warnings", std::vector<std::string>());
        out.normalize();
        return true;
    });
}

bool writeJobFile(const std::string& path, const JobSummary& job, std::string& error)
{
    AtomicFile file(path, AtomicFile::Options{AtomicFile::Compression::None});
    if (!file.open() || !file.write(jobSummaryToJson(job)) || !file.write("\n") || !file.commit()) {
        error = file.error();
        return false;
    }
    return true;
}

bool readJobFile(const std::string& path, JobSummary& out, std::string& error)
{
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        error = path + ": cannot be opened";
        return false;
    }
    std::stringstream ss;
    ss << in.rdbuf();
    if (!jobSummaryFromJson(ss.str(), out, error)) {
        error = path + ": " + error;
        return false;
    }
    return true;
}

} // namespace ks
