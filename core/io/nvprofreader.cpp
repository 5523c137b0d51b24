#include "core/io/nvprofreader.h"

#include "core/io/nvprofschema.h"
#include "core/io/sqlitedb.h"
#include "core/util/jsonwrite.h"
#include "core/util/textescape.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <cxxabi.h>
#include <map>
#include <set>
#include <unordered_map>

namespace ks {

namespace {

// torch demangles every string of the table (c10::demangle); only names in the Itanium mangling
// are touched here, since a plain "t" would otherwise "demangle" to "unsigned short".
std::string demangle(std::string_view s)
{
    if (s.size() < 3 || s[0] != '_' || s[1] != 'Z') return std::string(s);
    int status = 0;
    const std::string z(s);
    char* out = abi::__cxa_demangle(z.c_str(), nullptr, nullptr, &status);
    if (!out) return z;
    std::string r(out);
    std::free(out);
    return r;
}

// nvprof times are ns since the epoch. Anything outside (0, 2^62) is a broken record, and keeping
// them out means no difference of two times can overflow.
constexpr int64_t kMaxTime = int64_t(1) << 62;
bool validTime(int64_t t)
{
    return t > 0 && t < kMaxTime;
}

struct Marker {
    int64_t start = 0;
    int64_t end = -1; // -1: no end record
    int64_t id = 0;
    int64_t pid = 0;
    int64_t tid = 0;
    int64_t name = 0;
    bool instant = false;
};

struct DeviceRecord {
    NvprofTable::Kind kind;
    int64_t start, end, device, stream, correlation, name;
    int64_t extra[10]; // table-specific columns after the first six (nvprofschema.cpp)
};

class NvprofConverter {
public:
    NvprofConverter(SqliteDb& db, const LoadOptions& options) : m_db(db), m_options(options) {}

    // Fills json with the Kineto trace text, or returns false with m_error set.
    bool convert(std::string& json);
    const std::string& error() const { return m_error; }
    std::vector<std::string>& warnings() { return m_warnings; }

private:
    bool readStrings();
    bool readMarkers();
    bool readRuntime();
    bool readDevice(const NvprofTable& table);
    bool run(const NvprofTable& table, const std::function<void(SqliteDb::Query&)>& row);
    std::string string(int64_t id);
    void begin(std::string& out, const char* ph, std::string_view name, const char* cat, int64_t pid,
               int64_t tid, int64_t ts);

    SqliteDb& m_db;
    const LoadOptions& m_options;
    std::string m_error;
    std::vector<std::string> m_warnings;
    std::unordered_map<int64_t, std::string> m_strings;
    std::vector<Marker> m_markers;
    struct Runtime {
        int64_t start, end, cbid, pid, tid, correlation;
    };
    std::vector<Runtime> m_runtime;
    std::vector<DeviceRecord> m_device;
    int64_t m_base = INT64_MAX;
    size_t m_missingStrings = 0;
    size_t m_badTimes = 0; // records left out or cut to zero length for impossible times
};

bool NvprofConverter::run(const NvprofTable& table, const std::function<void(SqliteDb::Query&)>& row)
{
    std::string schemaError;
    const std::vector<std::string> have = m_db.columns(table.name, &schemaError);
    if (!schemaError.empty()) {
        m_error = "unreadable nvprof database (" + std::string(table.name) + "): " + schemaError;
        return false;
    }
    if (have.empty()) return true; // table absent: nothing of that kind was recorded
    std::string sql = "SELECT ";
    for (size_t i = 0; i < table.columns.size(); ++i) {
        const NvprofColumn& c = table.columns[i];
        const bool present = std::find(have.begin(), have.end(), c.name) != have.end();
        if (!present && c.required) {
            m_error = "not an nvprof database: table " + std::string(table.name) + " has no column " +
                      std::string(c.name);
            return false;
        }
        if (i) sql += ", ";
        if (present) {
            sql += '"';
            sql += c.name;
            sql += '"';
        } else {
            sql += "NULL";
        }
    }
    sql += " FROM \"" + std::string(table.name) + "\" ORDER BY _id_";
    SqliteDb::Query q = m_db.query(sql);
    while (q.step())
        row(q);
    if (!q.ok()) {
        m_error = "unreadable nvprof table " + std::string(table.name) + ": " + q.error();
        return false;
    }
    return true;
}

std::string NvprofConverter::string(int64_t id)
{
    const auto it = m_strings.find(id);
    if (it != m_strings.end()) return it->second;
    ++m_missingStrings;
    return "<string " + std::to_string(id) + ">";
}

bool NvprofConverter::readStrings()
{
    return run(nvprofStringTable(),
               [&](SqliteDb::Query& q) { m_strings[q.integer(0)] = demangle(q.text(1)); });
}

bool NvprofConverter::readMarkers()
{
    // nvprof writes a start record (name != 0) and an end record (name 0) with the same id; an
    // instantaneous marker (flag bit 0) has only the start.
    std::unordered_map<int64_t, size_t> open;
    size_t strayEnds = 0;
    const bool ok = run(nvprofMarkerTable(), [&](SqliteDb::Query& q) {
        const int64_t flags = q.integer(0), ts = q.integer(1), id = q.integer(2), name = q.integer(4);
        if (!validTime(ts)) {
            ++m_badTimes;
            return;
        }
        if (name != 0) {
            Marker m;
            m.start = ts;
            m.id = id;
            m.name = name;
            m.instant = (flags & 1) != 0;
            // objectId: CUpti_ActivityObjectKindId, whose first two 32-bit words are process and
            // thread for markers made on a thread.
            const std::string_view obj = q.blob(3);
            if (q.isBlob(3) && obj.size() >= 8) {
                uint32_t w[2];
                std::memcpy(w, obj.data(), 8);
                m.pid = w[0];
                m.tid = w[1];
            }
            if (!m.instant) open[id] = m_markers.size();
            m_markers.push_back(m);
            m_base = std::min(m_base, ts);
        } else {
            const auto it = open.find(id);
            if (it == open.end()) {
                ++strayEnds;
                return;
            }
            m_markers[it->second].end = ts;
            open.erase(it);
        }
    });
    if (!ok) return false;
    if (!open.empty())
        m_warnings.push_back(std::to_string(open.size()) +
                             " NVTX ranges have a start but no end record (the run was cut short?); shown "
                             "as instants");
    if (strayEnds)
        m_warnings.push_back(std::to_string(strayEnds) + " NVTX end records without a start ignored");
    return true;
}

bool NvprofConverter::readRuntime()
{
    return run(nvprofRuntimeTable(), [&](SqliteDb::Query& q) {
        if (!validTime(q.integer(0)) || !validTime(q.integer(1))) {
            ++m_badTimes;
            return;
        }
        m_runtime.push_back(
            {q.integer(0), q.integer(1), q.integer(2), q.integer(3), q.integer(4), q.integer(5)});
        m_base = std::min(m_base, q.integer(0));
    });
}

bool NvprofConverter::readDevice(const NvprofTable& table)
{
    return run(table, [&](SqliteDb::Query& q) {
        DeviceRecord r{};
        r.kind = table.kind;
        r.start = q.integer(0);
        r.end = q.integer(1);
        r.device = q.integer(2);
        r.stream = q.integer(3);
        r.correlation = q.integer(4);
        r.name = q.integer(5);
        for (size_t i = 6; i < table.columns.size() && i < 16; ++i)
            r.extra[i - 6] = q.isNull(int(i)) ? -1 : q.integer(int(i));
        // An unfinished record (end 0), a missing start, or times out of range.
        if (!validTime(r.start) || !validTime(r.end) || r.end < r.start) {
            ++m_badTimes;
            return;
        }
        m_device.push_back(r);
        m_base = std::min(m_base, r.start);
    });
}

void NvprofConverter::begin(std::string& out, const char* ph, std::string_view name, const char* cat,
                            int64_t pid, int64_t tid, int64_t ts)
{
    out += "{\"ph\":\"";
    out += ph;
    out += "\",\"name\":";
    appendJsonString(out, name);
    out += ",\"cat\":\"";
    out += cat;
    out += "\",\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(tid) + ",\"ts\":";
    appendMicros(out, ts - m_base);
}

bool NvprofConverter::convert(std::string& json)
{
    std::string schemaError;
    if (m_db.columns("StringTable", &schemaError).empty()) {
        if (!schemaError.empty()) {
            m_error = "unreadable nvprof database (StringTable): " + schemaError;
            return false;
        }
        std::string tables;
        SqliteDb::Query q = m_db.query("SELECT name FROM sqlite_master WHERE type = 'table' LIMIT 6");
        int n = 0;
        while (q.step())
            tables += (n++ ? ", " : "") + std::string(q.text(0));
        if (!q.ok()) {
            m_error = "unreadable SQLite file: " + q.error();
            return false;
        }
        m_error = "not an nvprof database: SQLite file without a StringTable (" +
                  (tables.empty() ? std::string("it has no tables") : "its tables: " + tables) + ")";
        return false;
    }
    if (!readStrings() || !readMarkers() || !readRuntime()) return false;
    for (const NvprofTable* t : nvprofDeviceTables())
        if (!readDevice(*t)) return false;
    if (m_options.cancel && m_options.cancel->load()) return false;
    if (m_base == INT64_MAX) m_base = 0;

    // The CPU process: the one of the runtime calls, else of the markers.
    int64_t cpuPid = 0;
    if (!m_runtime.empty())
        cpuPid = m_runtime.front().pid;
    else if (!m_markers.empty())
        cpuPid = m_markers.front().pid;

    json.reserve(256 * (m_markers.size() + m_runtime.size() + 2 * m_device.size()) + 1024);
    json =
        "{\"schemaVersion\":1,\"sourceFormat\":\"nvprof\",\"baseTimeNanoseconds\":" + std::to_string(m_base) +
        ",\"traceEvents\":[\n";
    bool first = true;
    auto sep = [&] {
        if (!first) json += ",\n";
        first = false;
    };
    size_t& badTimes = m_badTimes;
    for (const Marker& m : m_markers) {
        sep();
        const int64_t pid = m.pid ? m.pid : cpuPid;
        if (m.end < 0 || m.instant) {
            begin(json, "i", string(m.name), m.instant ? "user_annotation" : "cpu_op", pid, m.tid, m.start);
            json += ",\"s\":\"t\",\"args\":{\"marker id\":" + std::to_string(m.id) + "}}";
            continue;
        }
        int64_t dur = m.end - m.start;
        if (dur < 0) {
            ++badTimes;
            dur = 0;
        }
        begin(json, "X", string(m.name), "cpu_op", pid, m.tid, m.start);
        json += ",\"dur\":";
        appendMicros(json, dur);
        json += ",\"args\":{\"marker id\":" + std::to_string(m.id) + "}}";
    }
    std::unordered_map<int64_t, const Runtime*> callByCorrelation;
    for (const Runtime& r : m_runtime) {
        sep();
        int64_t dur = r.end - r.start;
        if (dur < 0) {
            ++badTimes;
            dur = 0;
        }
        begin(json, "X", nvprofRuntimeName(r.cbid), "cuda_runtime", r.pid, r.tid, r.start);
        json += ",\"dur\":";
        appendMicros(json, dur);
        json += ",\"args\":{\"cbid\":" + std::to_string(r.cbid) +
                ",\"correlation\":" + std::to_string(r.correlation) + "}}";
        callByCorrelation.emplace(r.correlation, &r);
    }
    std::set<std::pair<int64_t, int64_t>> streams;
    std::set<int64_t> devices;
    size_t flows = 0;
    for (const DeviceRecord& d : m_device) {
        const int64_t dur = d.end - d.start;
        sep();
        streams.emplace(d.device, d.stream);
        devices.insert(d.device);
        std::string name;
        const char* cat = "kernel";
        if (d.kind == NvprofTable::Kind::Kernel) {
            name = string(d.name);
        } else if (d.kind == NvprofTable::Kind::Memcpy) {
            name = std::string("Memcpy ") + nvprofCopyKindName(d.name);
            cat = "gpu_memcpy";
        } else {
            name = "Memset (Device)";
            cat = "gpu_memset";
        }
        begin(json, "X", name, cat, d.device, d.stream, d.start);
        json += ",\"dur\":";
        appendMicros(json, dur);
        json += ",\"args\":{\"device\":" + std::to_string(d.device) +
                ",\"stream\":" + std::to_string(d.stream) +
                ",\"correlation\":" + std::to_string(d.correlation);
        if (d.kind == NvprofTable::Kind::Kernel) {
            if (d.extra[0] >= 0) json += ",\"registers per thread\":" + std::to_string(d.extra[0]);
            if (d.extra[1] >= 0)
                json += ",\"shared memory\":" +
                        std::to_string(uint64_t(d.extra[1]) + uint64_t(std::max<int64_t>(0, d.extra[2])));
            json += ",\"grid\":[" + std::to_string(d.extra[3]) + "," + std::to_string(d.extra[4]) + "," +
                    std::to_string(d.extra[5]) + "]";
            json += ",\"block\":[" + std::to_string(d.extra[6]) + "," + std::to_string(d.extra[7]) + "," +
                    std::to_string(d.extra[8]) + "]";
        } else if (d.extra[0] >= 0) {
            json += ",\"bytes\":" + std::to_string(d.extra[0]);
        }
        json += "}}";
        const auto call = callByCorrelation.find(d.correlation);
        if (call == callByCorrelation.end()) continue;
        const Runtime& r = *call->second;
        json += ",\n";
        begin(json, "s", "ac2g", "ac2g", r.pid, r.tid, r.start);
        json += ",\"id\":" + std::to_string(d.correlation) + "}";
        json += ",\n";
        begin(json, "f", "ac2g", "ac2g", d.device, d.stream, d.start);
        json += ",\"id\":" + std::to_string(d.correlation) + ",\"bp\":\"e\"}";
        ++flows;
    }
    for (int64_t dev : devices) {
        sep();
        json += "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":" + std::to_string(dev) +
                ",\"tid\":0,\"args\":{\"name\":\"GPU " + std::to_string(dev) + "\"}},\n";
        json += "{\"ph\":\"M\",\"name\":\"process_labels\",\"pid\":" + std::to_string(dev) +
                ",\"tid\":0,\"args\":{\"labels\":\"GPU " + std::to_string(dev) + "\"}}";
    }
    for (const auto& [dev, stream] : streams) {
        sep();
        json += "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":" + std::to_string(dev) +
                ",\"tid\":" + std::to_string(stream) + ",\"args\":{\"name\":\"stream " +
                std::to_string(stream) + "\"}}";
    }
    json += "\n]}\n";
    if (badTimes)
        m_warnings.push_back(std::to_string(badTimes) +
                             " nvprof records have an end before their start or no start (unfinished or "
                             "broken records; left out, or ranges shown with zero length)");
    if (m_missingStrings)
        m_warnings.push_back(std::to_string(m_missingStrings) +
                             " names refer to ids missing from StringTable");
    if (m_markers.empty())
        m_warnings.push_back("no NVTX ranges: was the run profiled under torch.autograd.profiler.emit_nvtx?");
    (void)flows;
    return true;
}

LoadResult convertAndLoad(SqliteDb& db, const LoadOptions& options)
{
    const auto t0 = std::chrono::steady_clock::now();
    db.setInterrupt(options.cancel);
    NvprofConverter conv(db, options);
    std::string json;
    LoadResult r;
    if (!conv.convert(json)) {
        r.cancelled = options.cancel && options.cancel->load();
        r.error = r.cancelled ? "cancelled" : conv.error();
        return r;
    }
    LoadOptions inner = options;
    inner.progress = nullptr;
    r = loadTraceData(json, inner);
    r.warnings.insert(r.warnings.begin(), conv.warnings().begin(), conv.warnings().end());
    r.stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return r;
}

// Table names and SQLite's messages come from the file: no control bytes may reach a terminal.
LoadResult clean(LoadResult r)
{
    r.error = escapeText(r.error);
    for (std::string& w : r.warnings)
        w = escapeText(w);
    return r;
}

} // namespace

bool isSqliteHeader(std::string_view head)
{
    return head.size() >= 16 && std::memcmp(head.data(), "SQLite format 3\0", 16) == 0;
}

LoadResult loadNvprofFile(const std::string& path, const LoadOptions& options)
{
    std::string error;
    auto db = SqliteDb::openFile(path, error);
    if (!db) {
        LoadResult r;
        r.error = error;
        return clean(std::move(r));
    }
    return clean(convertAndLoad(*db, options));
}

LoadResult loadNvprofData(std::string_view bytes, const LoadOptions& options)
{
    std::string error;
    auto db = SqliteDb::openMemory(bytes, error);
    if (!db) {
        LoadResult r;
        r.error = error;
        return clean(std::move(r));
    }
    return clean(convertAndLoad(*db, options));
}

} // namespace ks
