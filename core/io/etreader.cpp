#include "core/io/etreader.h"

#include "core/io/jsonscan.h"
#include "core/util/jsonwrite.h"
#include "core/util/textescape.h"

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace ks {

namespace {

using Json = nlohmann::json;

// Offsets just past each complete element of the "nodes" array, for recovering a cut file.
std::vector<size_t> nodeEnds(std::string_view text)
{
    std::vector<size_t> ends;
    const size_t key = text.find("\"nodes\"");
    if (key == std::string_view::npos) return ends;
    const size_t open = text.find('[', key);
    if (open == std::string_view::npos) return ends;
    const char* p = text.data() + open + 1;
    const char* e = text.data() + text.size();
    for (;;) {
        p = skipJsonSpace(p, e);
        if (p == e || *p == ']') break;
        const char* end = nullptr;
        if (scanJsonValue(p, e, end) != ScanStatus::Complete) break;
        ends.push_back(size_t(end - text.data()));
        p = skipJsonSpace(end, e);
        if (p == e || *p != ',') break;
        ++p;
    }
    return ends;
}

int64_t intOr(const Json& j, const char* key, int64_t fallback)
{
    const auto it = j.find(key);
    if (it == j.end() || !it->is_number()) return fallback;
    if (it->is_number_float()) {
        // Converting a double outside int64's range is undefined: clamp first.
        const double d = it->get<double>();
        return d != d ? fallback : d <= -9.2e18 ? INT64_MIN : d >= 9.2e18 ? INT64_MAX : int64_t(d);
    }
    return it->is_number_unsigned() ? int64_t(it->get<uint64_t>()) : it->get<int64_t>();
}

std::string strOr(const Json& j, const char* key)
{
    const auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::vector<int64_t> intList(const Json& j)
{
    std::vector<int64_t> out;
    if (!j.is_array()) return out;
    for (const Json& v : j)
        if (v.is_number_integer()) out.push_back(v.get<int64_t>());
    return out;
}

// [tensor id, storage id, offset, numel, itemsize, device]; torch 2.x's is the same tuple.
bool isTensorValue(const Json& v)
{
    if (!v.is_array() || v.size() < 5 || v.size() > 6) return false;
    for (size_t i = 0; i < 5; ++i)
        if (!v[i].is_number_integer()) return false;
    return v.size() == 5 || v[5].is_string();
}

EtTensor tensorOf(const Json& v, const Json* shape, const Json* strides, std::string_view type)
{
    EtTensor t;
    t.id = v[0].get<int64_t>();
    t.storage = v[1].get<int64_t>();
    t.offset = v[2].get<int64_t>();
    t.numel = v[3].get<int64_t>();
    t.itemSize = v[4].get<int64_t>();
    if (v.size() > 5) t.device = v[5].get<std::string>();
    const size_t open = type.find('('), close = type.find(')');
    if (open != std::string_view::npos && close != std::string_view::npos && close > open)
        t.dtype = std::string(type.substr(open + 1, close - open - 1));
    if (shape) t.shape = intList(*shape);
    if (strides && strides->is_array()) {
        t.strides = intList(*strides);
        t.hasStrides = true;
    }
    return t;
}

// The element types of "GenericList[Tensor(float),Tensor(float)]" or "Tuple[...]".
std::vector<std::string> elementTypes(const std::string& type)
{
    std::vector<std::string> out;
    const size_t open = type.find('[');
    if (open == std::string::npos || type.back() != ']') return out;
    int depth = 0;
    std::string cur;
    for (size_t i = open + 1; i + 1 < type.size(); ++i) {
        const char c = type[i];
        if ((c == '[' || c == '(')) ++depth;
        if ((c == ']' || c == ')')) --depth;
        if (c == ',' && depth == 0) {
            out.push_back(cur);
            cur.clear();
        } else {
            cur += c;
        }
    }
    out.push_back(cur);
    return out;
}

const Json* at(const Json* list, size_t i)
{
    return list && list->is_array() && i < list->size() ? &(*list)[i] : nullptr;
}

std::vector<EtValue> values(const Json* vals, const Json* shapes, const Json* types, const Json* strides)
{
    std::vector<EtValue> out;
    if (!vals || !vals->is_array()) return out;
    for (size_t i = 0; i < vals->size(); ++i) {
        const Json& v = (*vals)[i];
        EtValue e;
        const Json* type = at(types, i);
        if (type && type->is_string()) e.type = type->get<std::string>();
        e.text = v.dump(-1, ' ', false, Json::error_handler_t::replace);
        if (e.type.rfind("Tensor", 0) == 0 && isTensorValue(v)) {
            e.tensors.push_back(tensorOf(v, at(shapes, i), at(strides, i), e.type));
        } else if (v.is_array()) {
            const std::vector<std::string> et = elementTypes(e.type);
            for (size_t k = 0; k < v.size(); ++k)
                if (k < et.size() && et[k].rfind("Tensor", 0) == 0 && isTensorValue(v[k]))
                    e.tensors.push_back(tensorOf(v[k], at(at(shapes, i), k), at(at(strides, i), k), et[k]));
        }
        out.push_back(std::move(e));
    }
    return out;
}

// Fields of one node in either schema; false when it has no integer id or no name.
bool readNode(const Json& j, EtNode& n)
{
    if (!j.is_object()) return false;
    const auto id = j.find("id");
    const auto name = j.find("name");
    if (id == j.end() || !id->is_number_integer() || name == j.end() || !name->is_string()) return false;
    n.id = id->get<int64_t>();
    n.name = name->get<std::string>();
    n.parent = intOr(j, "parent", intOr(j, "ctrl_deps", 0));
    n.rfId = intOr(j, "rf_id", 0);
    n.fwParent = intOr(j, "fw_parent", 0);
    n.seqId = intOr(j, "seq_id", -1);
    n.scope = intOr(j, "scope", 0);
    n.tid = intOr(j, "tid", 0);
    n.fwTid = intOr(j, "fw_tid", 0);
    n.opSchema = strOr(j, "op_schema");
    // 2.x: the scalar fields live in "attrs" as {"name", "type", "value"}.
    const auto attrs = j.find("attrs");
    if (attrs != j.end() && attrs->is_array()) {
        for (const Json& a : *attrs) {
            if (!a.is_object()) continue;
            const std::string key = strOr(a, "name");
            const auto v = a.find("value");
            if (v == a.end()) continue;
            const int64_t iv = v->is_number_integer() ? v->get<int64_t>() : 0;
            if (key == "rf_id")
                n.rfId = iv;
            else if (key == "fw_parent")
                n.fwParent = iv;
            else if (key == "seq_id")
                n.seqId = iv;
            else if (key == "scope")
                n.scope = iv;
            else if (key == "tid")
                n.tid = iv;
            else if (key == "fw_tid")
                n.fwTid = iv;
            else if (key == "op_schema" && v->is_string())
                n.opSchema = v->get<std::string>();
        }
    }
    auto side = [&](const char* key, const char* flatShapes, const char* flatTypes, const char* flatStrides) {
        const auto it = j.find(key);
        if (it == j.end()) return std::vector<EtValue>{};
        if (it->is_object()) {
            auto f = [&](const char* k) -> const Json* {
                const auto x = it->find(k);
                return x == it->end() ? nullptr : &*x;
            };
            return values(f("values"), f("shapes"), f("types"), f("strides"));
        }
        auto f = [&](const char* k) -> const Json* {
            const auto x = j.find(k);
            return x == j.end() ? nullptr : &*x;
        };
        return values(&*it, f(flatShapes), f(flatTypes), f(flatStrides));
    };
    n.inputs = side("inputs", "input_shapes", "input_types", "input_strides");
    n.outputs = side("outputs", "output_shapes", "output_types", "output_strides");
    n.structural = n.name.rfind("[pytorch|profiler|execution_", 0) == 0;
    return true;
}

std::string positionOf(std::string_view text, size_t byte)
{
    size_t line = 1, start = 0;
    for (size_t i = 0; i < byte && i < text.size(); ++i)
        if (text[i] == '\n') {
            ++line;
            start = i + 1;
        }
    return "at byte " + std::to_string(byte) + " (line " + std::to_string(line) + ", column " +
           std::to_string(byte - start + 1) + ")";
}

// How deep an ET's arrays and objects may nest (findTooDeep): printing a value (EtValue::text)
// recurses once per level, so a crafted file must not nest without bound.
constexpr int kMaxDepth = 256;

EtLoadResult readText(std::string_view text);

} // namespace

bool looksLikeExecutionTrace(std::string_view head)
{
    size_t i = 0;
    while (i < head.size() && (head[i] == ' ' || head[i] == '\n' || head[i] == '\r' || head[i] == '\t'))
        ++i;
    if (i >= head.size() || head[i] != '{') return false;
    const size_t nodes = head.find("\"nodes\"");
    return nodes != std::string_view::npos && head.find("\"schema\"") < nodes &&
           head.find("\"traceEvents\"") == std::string_view::npos;
}

EtLoadResult readExecutionTrace(std::string_view text)
{
    EtLoadResult r;
    try {
        r = readText(text);
    } catch (const std::exception& e) {
        // Nothing below should throw; if the JSON library still does, it is this file's fault.
        r = EtLoadResult{};
        r.error = std::string("unreadable execution trace: ") + e.what();
    }
    // Keys and values of the file may appear in messages: no control bytes on the terminal.
    r.error = escapeText(r.error);
    for (std::string& w : r.warnings)
        w = escapeText(w);
    return r;
}

namespace {

EtLoadResult readText(std::string_view text)
{
    EtLoadResult r;
    if (const size_t deep = findTooDeep(text, kMaxDepth); deep != std::string_view::npos) {
        r.error = "execution trace nested deeper than " + std::to_string(kMaxDepth) + " levels " +
                  positionOf(text, deep);
        return r;
    }
    Json doc;
    try {
        doc = Json::parse(text.begin(), text.end());
    } catch (const Json::parse_error& e) {
        // A file cut short: keep every complete node.
        const std::vector<size_t> ends = nodeEnds(text);
        const bool atEnd = e.byte >= text.size();
        if (!atEnd || ends.empty()) {
            r.error = std::string(atEnd ? "truncated" : "malformed") + " execution trace " +
                      positionOf(text, e.byte ? e.byte - 1 : 0) + (ends.empty() ? ", before any node" : "");
            r.truncated = atEnd;
            return r;
        }
        std::string fixed(text.substr(0, ends.back()));
        fixed += "]}";
        try {
            doc = Json::parse(fixed);
        } catch (const Json::exception&) {
            r.error = "truncated execution trace " + positionOf(text, text.size()) + ", unrecoverable";
            r.truncated = true;
            return r;
        }
        r.truncated = true;
        r.warnings.push_back("truncated at byte " + std::to_string(text.size()) + ", " +
                             std::to_string(ends.size()) + " nodes loaded");
    } catch (const Json::exception& e) {
        // Well-formed JSON that nlohmann cannot hold, e.g. a number beyond double's range.
        r.error = std::string("malformed execution trace: ") + e.what();
        return r;
    }
    if (!doc.is_object()) {
        r.error = "not an execution trace: the JSON is not an object";
        return r;
    }
    const auto nodes = doc.find("nodes");
    if (nodes == doc.end() || !nodes->is_array()) {
        std::string keys;
        int k = 0;
        for (auto it = doc.begin(); it != doc.end() && k < 8; ++it, ++k)
            keys += (k ? ", " : "") + it.key();
        r.error =
            "not an execution trace: no \"nodes\" array (its keys: " + (keys.empty() ? "none" : keys) + ")";
        return r;
    }
    auto et = std::make_shared<ExecutionTrace>();
    et->schema = strOr(doc, "schema");
    et->pid = intOr(doc, "pid", 0);
    et->time = strOr(doc, "time");
    et->startTs = intOr(doc, "start_ts", 0);
    et->finishTs = intOr(doc, "finish_ts", 0);
    if (et->schema.empty())
        r.warnings.push_back("execution trace without a \"schema\" version; read as 1.0.1");
    size_t skipped = 0, duplicates = 0;
    std::vector<int64_t> seen;
    for (const Json& j : *nodes) {
        EtNode n;
        if (!readNode(j, n)) {
            ++skipped;
            continue;
        }
        seen.push_back(n.id);
        et->addNode(std::move(n));
    }
    std::sort(seen.begin(), seen.end());
    duplicates = size_t(std::unique(seen.begin(), seen.end()) - seen.begin());
    duplicates = seen.size() - duplicates;
    if (skipped)
        r.warnings.push_back(std::to_string(skipped) +
                             " execution-trace nodes without an integer \"id\" or a \"name\" skipped");
    if (duplicates)
        r.warnings.push_back(std::to_string(duplicates) + " execution-trace node ids appear twice");
    et->finish();
    r.trace = std::move(et);
    return r;
}

} // namespace

EtLoadResult readExecutionTraceFile(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        EtLoadResult r;
        r.error = "cannot open " + path;
        return r;
    }
    std::ostringstream ss;
    ss << in.rdbuf();
    return readExecutionTrace(ss.str());
}

LoadResult loadExecutionTraceAsTrace(std::string_view text, const LoadOptions& options)
{
    EtLoadResult et = readExecutionTrace(text);
    LoadResult r;
    if (!et.ok()) {
        r.error = et.error;
        r.truncated = et.truncated;
        return r;
    }
    const ExecutionTrace& g = *et.trace;
    const auto& nodes = g.nodes();
    // Slot of each op in execution order, and the last slot of its subtree.
    std::vector<int64_t> slot(nodes.size(), -1), last(nodes.size(), -1);
    int64_t next = 0;
    for (size_t i = 0; i < nodes.size(); ++i)
        if (!nodes[i].structural) slot[i] = last[i] = next++;
    for (size_t i = nodes.size(); i-- > 0;) {
        const int64_t p = g.parentIndex(uint32_t(i));
        if (p >= 0 && slot[size_t(p)] >= 0 && last[i] > last[size_t(p)]) last[size_t(p)] = last[i];
    }
    std::string json = "{\"schemaVersion\":1,\"sourceFormat\":\"execution_trace\",\"traceEvents\":[\n";
    bool first = true;
    for (size_t i = 0; i < nodes.size(); ++i) {
        const EtNode& n = nodes[i];
        if (n.structural) continue;
        if (!first) json += ",\n";
        first = false;
        json += "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":";
        appendJsonString(json, n.name);
        json += ",\"pid\":" + std::to_string(g.pid) + ",\"tid\":" + std::to_string(n.tid) + ",\"ts\":";
        appendMicros(json, slot[i] * 1000);
        json += ",\"dur\":";
        appendMicros(json, (last[i] + 1 - slot[i]) * 1000);
        json += ",\"args\":{\"ET id\":" + std::to_string(n.id) +
                ",\"Record function id\":" + std::to_string(n.rfId) +
                ",\"Sequence number\":" + std::to_string(n.seqId) + ",\"Input Dims\":[";
        for (size_t v = 0; v < n.inputs.size(); ++v) {
            json += v ? "," : "";
            json += "[";
            if (n.inputs[v].tensors.size() == 1)
                for (size_t d = 0; d < n.inputs[v].tensors[0].shape.size(); ++d) {
                    if (d) json += ',';
                    json += std::to_string(n.inputs[v].tensors[0].shape[d]);
                }
            json += "]";
        }
        json += "],\"Input type\":[";
        for (size_t v = 0; v < n.inputs.size(); ++v) {
            json += v ? "," : "";
            appendJsonString(json,
                             n.inputs[v].tensors.size() == 1 ? n.inputs[v].tensors[0].dtype : std::string());
        }
        json += "]";
        if (!n.opSchema.empty()) {
            json += ",\"op_schema\":";
            appendJsonString(json, n.opSchema);
        }
        json += "}}";
    }
    json += "\n]}\n";
    r = loadTraceData(json, options);
    r.warnings.insert(r.warnings.begin(), et.warnings.begin(), et.warnings.end());
    r.warnings.push_back("an execution trace has no times: its " + std::to_string(g.opCount()) +
                         " ops are laid out in execution order, 1 us each");
    r.truncated = r.truncated || et.truncated;
    r.executionTrace = et.trace;
    return r;
}

} // namespace ks
