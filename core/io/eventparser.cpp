#include "io/eventparser.h"

#include "io/jsonscan.h"
#include "io/numparse.h"
#include "model/args.h"
#include "util/hash.h"

#include <cstring>
#include <simdjson.h>

namespace ks {

using namespace simdjson;

namespace {

// Raw keys point just past the opening quote; a key matches when the literal is followed by the
// closing quote. The buffer is padded, so reading a few bytes past a short key is safe.
template <size_t N>
inline bool keyIs(const char* k, const char (&lit)[N])
{
    return std::memcmp(k, lit, N - 1) == 0 && k[N - 1] == '"';
}

inline bool parseDigitsKey(std::string_view s, int64_t& out)
{
    if (s.empty() || s.size() > 19)
        return false;
    size_t i = 0;
    bool neg = false;
    if (s[0] == '-') {
        neg = true;
        i = 1;
        if (s.size() == 1)
            return false;
    }
    int64_t v = 0;
    for (; i < s.size(); ++i) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        v = v * 10 + (s[i] - '0');
    }
    out = neg ? -v : v;
    return true;
}

} // namespace

struct EventParser::Impl {
    explicit Impl(ArgShard& s) : shard(s) {}

    ondemand::parser parser;
    ArgShard& shard;
    std::string scratch;
    StringPool* strings = nullptr;

    uint32_t intern(std::string_view s) { return strings->intern(s).value; }

    // pid/tid: numbers, numeric strings (2020-21 traces) or names ("Spans", "stream 7").
    error_code parseRowKey(ondemand::value& v, int64_t& num, uint32_t& str)
    {
        ondemand::json_type t;
        if (auto err = v.type().get(t))
            return err;
        if (t == ondemand::json_type::number) {
            int64_t i;
            if (!v.get_int64().get(i)) {
                num = i;
                return SUCCESS;
            }
            double d;
            if (auto err = v.get_double().get(d))
                return err;
            num = int64_t(d);
            return SUCCESS;
        }
        if (t == ondemand::json_type::string) {
            std::string_view s;
            if (auto err = v.get_string().get(s))
                return err;
            if (!parseDigitsKey(s, num))
                str = intern(s);
            return SUCCESS;
        }
        if (t == ondemand::json_type::null)
            return SUCCESS;
        return INCORRECT_TYPE;
    }

    error_code parseArgs(ondemand::object& obj, RawEvent& ev)
    {
        shard.begin();
        for (auto fieldRes : obj) {
            ondemand::field f;
            if (auto err = std::move(fieldRes).get(f))
                return err;
            // Fast path for keys without escapes: take them straight from the buffer.
            const char* raw = f.key().raw();
            const char* q = raw;
            while (*q != '"' && *q != '\\')
                ++q;
            std::string_view key;
            if (*q == '"') {
                key = std::string_view(raw, size_t(q - raw));
            } else {
                if (auto err = f.unescaped_key().get(key))
                    return err;
                scratch.assign(key);
                key = scratch;
                // Interned right away below, before scratch is reused.
            }
            ondemand::value v = f.value();
            ondemand::json_type t;
            if (auto err = v.type().get(t))
                return err;
            switch (t) {
            case ondemand::json_type::number: {
                ondemand::number_type nt;
                if (auto err = v.get_number_type().get(nt))
                    return err;
                if (nt == ondemand::number_type::signed_integer) {
                    int64_t i;
                    if (auto err = v.get_int64().get(i))
                        return err;
                    if (key.size() == 11 && (key == "External id" || key == "external id"))
                        ev.externalId = i;
                    else if (key.size() == 11 && key == "correlation")
                        ev.correlation = i;
                    shard.addInt(key, i);
                } else if (nt == ondemand::number_type::unsigned_integer) {
                    uint64_t u;
                    if (auto err = v.get_uint64().get(u))
                        return err;
                    shard.addUInt(key, u);
                } else {
                    double d;
                    if (v.get_double().get(d)) {
                        // Out-of-range literals (e.g. 1e999): keep the text.
                        std::string_view tok = v.raw_json_token();
                        while (!tok.empty() && isJsonSpace(tok.back()))
                            tok.remove_suffix(1);
                        shard.addString(key, tok);
                    } else {
                        shard.addDouble(key, d);
                    }
                }
                break;
            }
            case ondemand::json_type::string: {
                std::string_view s;
                if (auto err = v.get_string().get(s))
                    return err;
                shard.addString(key, s);
                break;
            }
            case ondemand::json_type::boolean: {
                bool b;
                if (auto err = v.get_bool().get(b))
                    return err;
                shard.addBool(key, b);
                break;
            }
            case ondemand::json_type::null:
                if (!v.is_null())
                    return INCORRECT_TYPE;
                shard.addNull(key);
                break;
            case ondemand::json_type::array: {
                ondemand::array a;
                if (auto err = v.get_array().get(a))
                    return err;
                std::string_view rawJson;
                if (auto err = a.raw_json().get(rawJson))
                    return err;
                std::string keyCopy;
                if (key.data() == scratch.data()) {
                    keyCopy.assign(key);
                    key = keyCopy;
                }
                canonicalJson(rawJson, scratch);
                shard.addJson(key, scratch);
                break;
            }
            case ondemand::json_type::object: {
                ondemand::object o;
                if (auto err = v.get_object().get(o))
                    return err;
                std::string_view rawJson;
                if (auto err = o.raw_json().get(rawJson))
                    return err;
                std::string keyCopy;
                if (key.data() == scratch.data()) {
                    keyCopy.assign(key);
                    key = keyCopy;
                }
                canonicalJson(rawJson, scratch);
                shard.addJson(key, scratch);
                break;
            }
            }
        }
        ev.args = shard.finish();
        return SUCCESS;
    }

    error_code parseEvent(ondemand::object& obj, RawEvent& ev, ParseCounters& counters)
    {
        for (auto fieldRes : obj) {
            ondemand::field f;
            if (auto err = std::move(fieldRes).get(f))
                return err;
            const char* k = f.key().raw();
            ondemand::value v = f.value();
            switch (k[0]) {
            case 'p':
                if (keyIs(k, "ph")) {
                    std::string_view s;
                    if (auto err = v.get_string().get(s))
                        return err;
                    ev.ph = s.empty() ? 0 : s[0];
                } else if (keyIs(k, "pid")) {
                    if (auto err = parseRowKey(v, ev.pidNum, ev.pidStr))
                        return err;
                    ev.hasPid = true;
                }
                break;
            case 'n':
                if (keyIs(k, "name")) {
                    std::string_view s;
                    if (v.get_string().get(s)) {
                        // A non-string name: keep its JSON text.
                        s = v.raw_json_token();
                        while (!s.empty() && isJsonSpace(s.back()))
                            s.remove_suffix(1);
                    }
                    ev.name = intern(s);
                }
                break;
            case 'c':
                if (keyIs(k, "cat")) {
                    std::string_view s;
                    if (auto err = v.get_string().get(s))
                        return err;
                    ev.cat = intern(s);
                }
                break;
            case 't':
                if (keyIs(k, "ts")) {
                    const std::string_view tok = v.raw_json_token();
                    ev.hasTs = parseMicrosToNs(tok, ev.ts);
                } else if (keyIs(k, "tid")) {
                    if (auto err = parseRowKey(v, ev.tidNum, ev.tidStr))
                        return err;
                    ev.hasTid = true;
                }
                break;
            case 'd':
                if (keyIs(k, "dur")) {
                    const std::string_view tok = v.raw_json_token();
                    TimeNs d;
                    if (parseMicrosToNs(tok, d))
                        ev.dur = d < 0 ? 0 : d;
                }
                break;
            case 'a':
                if (keyIs(k, "args")) {
                    ondemand::json_type t;
                    if (auto err = v.type().get(t))
                        return err;
                    if (t == ondemand::json_type::object) {
                        ondemand::object a;
                        if (auto err = v.get_object().get(a))
                            return err;
                        if (auto err = parseArgs(a, ev))
                            return err;
                    }
                }
                break;
            case 'i':
                if (keyIs(k, "id")) {
                    ondemand::json_type t;
                    if (auto err = v.type().get(t))
                        return err;
                    if (t == ondemand::json_type::number) {
                        uint64_t u;
                        int64_t i;
                        double d;
                        if (!v.get_uint64().get(u))
                            ev.flowId = u;
                        else if (!v.get_int64().get(i))
                            ev.flowId = uint64_t(i);
                        else if (!v.get_double().get(d))
                            ev.flowId = uint64_t(int64_t(d));
                        ev.hasId = true;
                    } else if (t == ondemand::json_type::string) {
                        std::string_view s;
                        if (auto err = v.get_string().get(s))
                            return err;
                        int64_t n;
                        if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
                            ev.flowId = std::strtoull(std::string(s.substr(2)).c_str(), nullptr, 16);
                        } else if (parseInt64(s, n)) {
                            ev.flowId = uint64_t(n);
                        } else {
                            ev.flowId = hashString(s);
                        }
                        ev.hasId = true;
                    }
                }
                break;
            case 'b':
                if (keyIs(k, "bp")) {
                    std::string_view s;
                    if (!v.get_string().get(s))
                        ev.bindEnclosing = s == "e";
                }
                break;
            case 's':
                if (keyIs(k, "s")) {
                    std::string_view s;
                    if (!v.get_string().get(s) && !s.empty())
                        ev.scope = s[0];
                }
                break;
            default:
                break;
            }
        }
        (void)counters;
        return SUCCESS;
    }
};

EventParser::EventParser(ArgShard& shard) : d(std::make_unique<Impl>(shard)) {}
EventParser::~EventParser() = default;

size_t EventParser::padding() { return SIMDJSON_PADDING; }

void EventParser::parse(const char* buffer, size_t textSize, size_t capacity, ChunkResult& out)
{
    out.strings = std::make_unique<StringPool>();
    d->strings = out.strings.get();
    out.events.clear();
    out.events.reserve(textSize / 256 + 16);
    out.status = ChunkResult::Status::Ok;
    out.goodEnd = 0;
    const char* text = buffer + 1;
    auto fail = [&](error_code err, const char* at) {
        out.status = ChunkResult::Status::Error;
        out.error = error_message(err);
        out.errorOffset = at && at >= text ? size_t(at - text) : out.goodEnd;
        if (out.errorOffset > textSize)
            out.errorOffset = textSize;
    };

    padded_string_view json(buffer, textSize + 2, capacity);
    ondemand::document doc;
    if (auto err = d->parser.iterate(json).get(doc)) {
        fail(err, nullptr);
        return;
    }
    ondemand::array arr;
    if (auto err = doc.get_array().get(arr)) {
        fail(err, nullptr);
        return;
    }
    auto location = [&doc]() -> const char* {
        const char* p = nullptr;
        if (doc.current_location().get(p))
            return nullptr;
        return p;
    };
    for (auto elemRes : arr) {
        ondemand::value elem;
        if (auto err = std::move(elemRes).get(elem)) {
            fail(err, location());
            return;
        }
        ondemand::json_type t;
        if (auto err = elem.type().get(t)) {
            fail(err, location());
            return;
        }
        if (t != ondemand::json_type::object) {
            ++out.counters.notObjects;
            // Skip the value by consuming it as raw JSON.
            std::string_view skipped;
            if (t == ondemand::json_type::array) {
                ondemand::array a;
                if (!elem.get_array().get(a))
                    if (a.raw_json().get(skipped)) {
                        fail(TAPE_ERROR, location());
                        return;
                    }
            } else {
                skipped = elem.raw_json_token();
            }
            continue;
        }
        ondemand::object obj;
        if (auto err = elem.get_object().get(obj)) {
            fail(err, location());
            return;
        }
        RawEvent ev;
        if (auto err = d->parseEvent(obj, ev, out.counters)) {
            fail(err, location());
            return;
        }
        ++out.counters.events;
        if (ev.ph == 0) {
            ++out.counters.missingPh;
        } else {
            ++out.counters.byPhase[uint8_t(ev.ph) & 127];
            out.events.push_back(ev);
        }
        const char* here = location();
        if (here)
            out.goodEnd = size_t(here - text);
    }
    // At the end of the document current_location() reports OUT_OF_BOUNDS.
    const char* here = nullptr;
    if (doc.current_location().get(here)) {
        out.goodEnd = textSize;
        return;
    }
    // The real traceEvents array closed inside this chunk; what follows is top-level JSON. The
    // closing bracket is the last non-space byte before the current token.
    const char* p = here - 1;
    while (p > text && isJsonSpace(*p))
        --p;
    if (*p != ']') {
        fail(TAPE_ERROR, here);
        return;
    }
    out.status = ChunkResult::Status::ArrayClosed;
    out.arrayEnd = size_t(p + 1 - text);
    out.goodEnd = out.arrayEnd;
}

} // namespace ks
