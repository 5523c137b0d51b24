#include "core/io/eventparser.h"

#include "core/io/jsonscan.h"
#include "core/io/keyrepeats.h"
#include "core/io/numparse.h"
#include "core/model/args.h"
#include "core/util/hash.h"

#include <cstring>
#include <simdjson.h>
#include <string>

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

inline std::string_view trimRight(std::string_view s)
{
    while (!s.empty() && isJsonSpace(s.back()))
        s.remove_suffix(1);
    return s;
}

} // namespace

struct EventParser::Impl {
    Impl(ArgShard& s, unsigned id) : shard(s), poolId(id) {}

    ondemand::parser parser;
    ArgShard& shard;
    unsigned poolId;
    StringPool strings;
    std::string scratch;
    std::string keyCopy;
    // Where a value nested deeper than kMaxJsonDepth started (set with DEPTH_ERROR).
    const char* tooDeepAt = nullptr;
    // Repeated keys of the event being parsed: counted once the event parsed (a failed event is
    // parsed again by the recovery).
    KeyRepeats repeats;

    // Depths count the containers around a value: the events array is 1, an event 2, its args 3.
    static constexpr size_t kEventDepth = 2;

    error_code tooDeep(const char* at)
    {
        tooDeepAt = at;
        return DEPTH_ERROR;
    }

    // A container's raw text (already skipped by simdjson without recursion) that sits at depth
    // `depth`: checked for nesting before anything walks it.
    error_code checkDepth(std::string_view raw, size_t depth)
    {
        const size_t at = findTooDeep(raw, depth > kMaxJsonDepth ? 0 : kMaxJsonDepth - depth + 1);
        return at == std::string_view::npos ? SUCCESS : tooDeep(raw.data() + at);
    }

    uint32_t intern(std::string_view s) { return strings.intern(s).value; }

    // A string value, taken straight from the buffer when it holds no escape (the common case) rather
    // than unescaped into a copy. The raw token runs from the opening quote to the next structural
    // character, so the first quote after the opening one closes the string if no backslash precedes it.
    error_code stringValue(ondemand::value& v, std::string_view& out)
    {
        const std::string_view tok = v.raw_json_token();
        if (tok.size() >= 2) {
            const char* b = tok.data() + 1;
            const char* q = static_cast<const char*>(std::memchr(b, '"', tok.size() - 1));
            if (q && !std::memchr(b, '\\', size_t(q - b))) {
                out = std::string_view(b, size_t(q - b));
                return SUCCESS;
            }
        }
        return v.get_string().get(out);
    }

    // Walks a value we do not use, so that text which is not JSON is still reported. The recursion
    // is bounded by kMaxJsonDepth: a file of nested brackets must not overflow the stack.
    error_code validate(ondemand::value v, size_t depth)
    {
        ondemand::json_type t;
        if (auto err = v.type().get(t)) return err;
        if ((t == ondemand::json_type::object || t == ondemand::json_type::array) && depth > kMaxJsonDepth)
            return tooDeep(v.raw_json_token().data());
        switch (t) {
        case ondemand::json_type::object: {
            ondemand::object o;
            if (auto err = v.get_object().get(o)) return err;
            for (auto fieldRes : o) {
                ondemand::field f;
                if (auto err = std::move(fieldRes).get(f)) return err;
                if (auto err = validate(f.value(), depth + 1)) return err;
            }
            return SUCCESS;
        }
        case ondemand::json_type::array: {
            ondemand::array a;
            if (auto err = v.get_array().get(a)) return err;
            for (auto elemRes : a) {
                ondemand::value e;
                if (auto err = std::move(elemRes).get(e)) return err;
                if (auto err = validate(e, depth + 1)) return err;
            }
            return SUCCESS;
        }
        case ondemand::json_type::number: {
            double d;
            if (v.get_double().get(d) && !isNumberSyntax(trimRight(v.raw_json_token()))) return NUMBER_ERROR;
            return SUCCESS;
        }
        case ondemand::json_type::string: {
            std::string_view s;
            return v.get_string().get(s);
        }
        case ondemand::json_type::boolean: {
            bool b;
            return v.get_bool().get(b);
        }
        case ondemand::json_type::null: {
            bool isNull = false;
            if (auto err = v.is_null().get(isNull)) return err;
            return isNull ? SUCCESS : N_ATOM_ERROR;
        }
        }
        return TAPE_ERROR;
    }

    // The compact JSON text of any value (for names, categories and pids that are not strings).
    error_code jsonText(ondemand::value v, std::string_view& out)
    {
        ondemand::json_type t;
        if (auto err = v.type().get(t)) return err;
        std::string_view raw;
        if (t == ondemand::json_type::object || t == ondemand::json_type::array) {
            if (t == ondemand::json_type::object) {
                ondemand::object o;
                if (auto err = v.get_object().get(o)) return err;
                if (auto err = o.raw_json().get(raw)) return err;
            } else {
                ondemand::array a;
                if (auto err = v.get_array().get(a)) return err;
                if (auto err = a.raw_json().get(raw)) return err;
            }
            if (auto err = checkDepth(raw, kEventDepth + 1)) return err;
        } else {
            raw = trimRight(v.raw_json_token());
            if (auto err = validate(v, kEventDepth + 1)) return err;
        }
        if (!canonicalJsonView(raw, scratch, out)) return TAPE_ERROR;
        return SUCCESS;
    }

    // A string field that is usually a string but could be any JSON value.
    error_code textField(ondemand::value v, uint32_t& out)
    {
        ondemand::json_type t;
        if (auto err = v.type().get(t)) return err;
        std::string_view s;
        if (t == ondemand::json_type::string) {
            if (auto err = stringValue(v, s)) return err;
        } else if (auto err = jsonText(v, s)) {
            return err;
        }
        out = intern(s);
        return SUCCESS;
    }

    // ts and dur: a number of µs (integer, fixed three decimals, or anything JSON allows), or a quoted
    // number. Other JSON values leave the field missing; text that is not JSON is an error.
    error_code micros(ondemand::value v, TimeNs& out, bool& ok)
    {
        const std::string_view tok = v.raw_json_token();
        ok = parseMicrosToNs(tok, out);
        if (ok) return SUCCESS;
        ondemand::json_type t;
        if (auto err = v.type().get(t)) return err;
        if (t == ondemand::json_type::number) {
            double d;
            if (!v.get_double().get(d)) {
                // Exponent forms parseMicrosToNs declined: too big for int64 ns.
                return SUCCESS;
            }
            return isNumberSyntax(trimRight(tok)) ? SUCCESS : NUMBER_ERROR;
        }
        return validate(v, kEventDepth + 1);
    }

    // pid/tid: numbers, numeric strings (2020-21 traces) or names ("Spans", "stream 7").
    error_code rowKey(ondemand::value v, int64_t& num, uint32_t& str)
    {
        num = 0;
        str = RawEvent::kNoString;
        ondemand::json_type t;
        if (auto err = v.type().get(t)) return err;
        if (t == ondemand::json_type::number) {
            int64_t i;
            if (!v.get_int64().get(i)) {
                num = i;
                return SUCCESS;
            }
            double d;
            if (auto err = v.get_double().get(d)) return err;
            num = d >= 9.2e18 ? INT64_MAX : d <= -9.2e18 ? INT64_MIN : int64_t(d);
            return SUCCESS;
        }
        if (t == ondemand::json_type::string) {
            std::string_view s;
            if (auto err = v.get_string().get(s)) return err;
            if (!parseRowKeyNumber(s, num)) str = intern(s);
            return SUCCESS;
        }
        if (t == ondemand::json_type::null) return validate(v, kEventDepth + 1);
        std::string_view s;
        if (auto err = jsonText(v, s)) return err;
        str = intern(s);
        return SUCCESS;
    }

    error_code flowId(ondemand::value v, RawEvent& ev)
    {
        ondemand::json_type t;
        if (auto err = v.type().get(t)) return err;
        if (t == ondemand::json_type::number) {
            uint64_t u;
            int64_t i;
            double d;
            if (!v.get_uint64().get(u))
                ev.flowId = u;
            else if (!v.get_int64().get(i))
                ev.flowId = uint64_t(i);
            else if (auto err = v.get_double().get(d))
                return err;
            else
                ev.flowId = uint64_t(int64_t(d));
            ev.hasId = true;
            return SUCCESS;
        }
        if (t == ondemand::json_type::string) {
            std::string_view s;
            if (auto err = v.get_string().get(s)) return err;
            int64_t n;
            if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
                ev.flowId = std::strtoull(std::string(s.substr(2)).c_str(), nullptr, 16);
            } else if (parseInt64(s, n)) {
                ev.flowId = uint64_t(n);
            } else {
                ev.flowId = hashString(s);
            }
            ev.hasId = true;
            return SUCCESS;
        }
        return validate(v, kEventDepth + 1);
    }

    error_code shortString(ondemand::value v, char& out)
    {
        ondemand::json_type t;
        if (auto err = v.type().get(t)) return err;
        if (t != ondemand::json_type::string) {
            out = 0; // a repeated key's last value counts, even when it is not usable
            return validate(v, kEventDepth + 1);
        }
        std::string_view s;
        if (auto err = v.get_string().get(s)) return err;
        out = s.empty() ? 0 : s[0];
        return SUCCESS;
    }

    error_code parseArgs(ondemand::object& obj, RawEvent& ev)
    {
        // Events of one category mostly share their arg keys (Kineto writes "cat" before "args").
        shard.begin(ev.cat);
        for (auto fieldRes : obj) {
            ondemand::field f;
            if (auto err = std::move(fieldRes).get(f)) return err;
            // Fast path for keys without escapes: take them straight from the buffer.
            const char* raw = f.key().raw();
            const char* q = raw;
            while (*q != '"' && *q != '\\')
                ++q;
            std::string_view key;
            if (*q == '"') {
                key = std::string_view(raw, size_t(q - raw));
            } else {
                if (auto err = f.unescaped_key().get(key)) return err;
                keyCopy.assign(key); // the parser's string buffer is reused by the value below
                key = keyCopy;
            }
            ondemand::value v = f.value();
            ondemand::json_type t;
            if (auto err = v.type().get(t)) return err;
            switch (t) {
            case ondemand::json_type::number: {
                ondemand::number_type nt;
                if (auto err = v.get_number_type().get(nt)) return err;
                if (nt == ondemand::number_type::signed_integer) {
                    int64_t i;
                    if (auto err = v.get_int64().get(i)) return err;
                    if (key.size() == 11 && (key == "External id" || key == "external id"))
                        ev.externalId = i;
                    else if (key.size() == 11 && key == "correlation")
                        ev.correlation = i;
                    shard.addInt(key, i);
                } else if (nt == ondemand::number_type::unsigned_integer) {
                    uint64_t u;
                    if (auto err = v.get_uint64().get(u)) return err;
                    shard.addUInt(key, u);
                } else {
                    double d;
                    if (nt == ondemand::number_type::floating_point_number && !v.get_double().get(d)) {
                        shard.addDouble(key, d);
                    } else {
                        // Integers beyond 64 bits and out-of-range literals (1e999): keep the exact
                        // text, as JSON, so nothing is rounded away.
                        const std::string_view tok = trimRight(v.raw_json_token());
                        if (!isNumberSyntax(tok)) return NUMBER_ERROR;
                        shard.addJson(key, tok);
                    }
                }
                break;
            }
            case ondemand::json_type::string: {
                std::string_view s;
                if (auto err = stringValue(v, s)) return err;
                shard.addString(key, s);
                break;
            }
            case ondemand::json_type::boolean: {
                bool b;
                if (auto err = v.get_bool().get(b)) return err;
                shard.addBool(key, b);
                break;
            }
            case ondemand::json_type::null: {
                if (auto err = validate(v, kEventDepth + 2)) return err;
                shard.addNull(key);
                break;
            }
            case ondemand::json_type::array:
            case ondemand::json_type::object: {
                std::string_view rawJson;
                if (t == ondemand::json_type::array) {
                    ondemand::array a;
                    if (auto err = v.get_array().get(a)) return err;
                    if (auto err = a.raw_json().get(rawJson)) return err;
                } else {
                    ondemand::object o;
                    if (auto err = v.get_object().get(o)) return err;
                    if (auto err = o.raw_json().get(rawJson)) return err;
                }
                if (auto err = checkDepth(rawJson, kEventDepth + 2)) return err;
                // raw_json() only checked the nesting; canonicalJsonView checks the scalars.
                std::string_view canon;
                if (!canonicalJsonView(rawJson, scratch, canon)) return TAPE_ERROR;
                shard.addJson(key, canon);
                break;
            }
            }
        }
        ev.args = shard.finish();
        return SUCCESS;
    }

    // A key that occurs twice in an event is counted, and its last value is the one used, as with
    // Python's json.load (which torch and HTA read traces with): every field below fully replaces
    // what an earlier occurrence set.
    error_code parseEvent(ondemand::object& obj, RawEvent& ev)
    {
        repeats.begin();
        for (auto fieldRes : obj) {
            ondemand::field f;
            if (auto err = std::move(fieldRes).get(f)) return err;
            const char* k = f.key().raw();
            ondemand::value v = f.value();
            error_code err = SUCCESS;
            bool known = true;
            auto once = [&](uint32_t bit) { repeats.known(bit, k); };
            switch (k[0]) {
            case 'p':
                if (keyIs(k, "ph")) {
                    once(1u << 0);
                    err = shortString(v, ev.ph);
                } else if (keyIs(k, "pid")) {
                    once(1u << 1);
                    err = rowKey(v, ev.pidNum, ev.pidStr);
                    ev.hasPid = true;
                } else {
                    known = false;
                }
                break;
            case 'n':
                if ((known = keyIs(k, "name"))) {
                    once(1u << 2);
                    err = textField(v, ev.name);
                }
                break;
            case 'c':
                if ((known = keyIs(k, "cat"))) {
                    once(1u << 3);
                    err = textField(v, ev.cat);
                }
                break;
            case 't':
                if (keyIs(k, "ts")) {
                    once(1u << 4);
                    err = micros(v, ev.ts, ev.hasTs);
                } else if (keyIs(k, "tid")) {
                    once(1u << 5);
                    err = rowKey(v, ev.tidNum, ev.tidStr);
                    ev.hasTid = true;
                } else {
                    known = false;
                }
                break;
            case 'd':
                if ((known = keyIs(k, "dur"))) {
                    once(1u << 6);
                    TimeNs d = 0;
                    bool ok = false;
                    err = micros(v, d, ok);
                    ev.dur = ok ? (d < 0 ? 0 : d) : -1;
                }
                break;
            case 'a':
                if ((known = keyIs(k, "args"))) {
                    once(1u << 7);
                    ev.args = ArgsRef();
                    ev.externalId = -1;
                    ev.correlation = -1;
                    ondemand::json_type t;
                    if ((err = v.type().get(t))) break;
                    if (t == ondemand::json_type::object) {
                        ondemand::object a;
                        if (!(err = v.get_object().get(a))) err = parseArgs(a, ev);
                    } else {
                        err = validate(v, kEventDepth + 1);
                    }
                }
                break;
            case 'i':
                if ((known = keyIs(k, "id"))) {
                    once(1u << 8);
                    ev.hasId = false;
                    err = flowId(v, ev);
                }
                break;
            case 'b':
                if ((known = keyIs(k, "bp"))) {
                    once(1u << 9);
                    char c = 0;
                    err = shortString(v, c);
                    ev.bindEnclosing = c == 'e';
                }
                break;
            case 's':
                if ((known = keyIs(k, "s"))) {
                    once(1u << 10);
                    err = shortString(v, ev.scope);
                }
                break;
            default:
                known = false;
                break;
            }
            if (!known) {
                repeats.unknown(k);
                err = validate(v, kEventDepth + 1);
            }
            if (err) return err;
        }
        return SUCCESS;
    }

    void parse(const char* buffer, size_t textSize, size_t capacity, ChunkResult& out);
};

void EventParser::Impl::parse(const char* buffer, size_t textSize, size_t capacity, ChunkResult& out)
{
    const char* text = buffer + 1;
    tooDeepAt = nullptr;
    auto fail = [&](error_code err, const char* at) {
        out.status = ChunkResult::Status::Error;
        out.error = error_message(err);
        if (err == DEPTH_ERROR && tooDeepAt) {
            out.tooDeep = true;
            out.error = "arrays and objects nested more than " + std::to_string(kMaxJsonDepth) + " deep";
            at = tooDeepAt;
        }
        out.errorOffset = at && at >= text ? size_t(at - text) : out.goodEnd;
        if (out.errorOffset > textSize) out.errorOffset = textSize;
    };

    padded_string_view json(buffer, textSize + 2, capacity);
    ondemand::document doc;
    if (auto err = parser.iterate(json).get(doc)) {
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
        if (doc.current_location().get(p)) return nullptr;
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
            if (auto err = validate(elem, kEventDepth)) {
                fail(err, location());
                return;
            }
        } else {
            ondemand::object obj;
            if (auto err = elem.get_object().get(obj)) {
                fail(err, location());
                return;
            }
            RawEvent ev;
            if (auto err = parseEvent(obj, ev)) {
                fail(err, location());
                return;
            }
            ++out.counters.events;
            if (repeats.count()) {
                out.counters.duplicateKeys += repeats.count();
                if (out.firstDuplicateOffset == SIZE_MAX) {
                    out.firstDuplicateOffset = size_t(repeats.first() - 1 - text);
                    out.firstDuplicateKey = KeyRepeats::rawKey(repeats.first());
                }
            }
            if (ev.ph == 0) {
                ++out.counters.missingPh;
            } else {
                ++out.counters.byPhase[uint8_t(ev.ph) & 127];
                out.events.push_back(ev);
            }
        }
        const char* here = location();
        if (here) out.goodEnd = size_t(here - text);
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

EventParser::EventParser(ArgShard& shard, unsigned poolId) : d(std::make_unique<Impl>(shard, poolId)) {}
EventParser::~EventParser() = default;

size_t EventParser::padding()
{
    return SIMDJSON_PADDING;
}

const StringPool& EventParser::strings() const
{
    return d->strings;
}

void EventParser::reserve(size_t chunkBytes)
{
    // Failing here only means the parser allocates on first use instead.
    const error_code err = d->parser.allocate(chunkBytes + 2);
    (void)err;
}

void EventParser::parse(const char* buffer, size_t textSize, size_t capacity, ChunkResult& out)
{
    out.strings.reset();
    out.sharedStrings = &d->strings;
    out.poolId = d->poolId;
    out.events.clear();
    out.counters = ParseCounters();
    out.status = ChunkResult::Status::Ok;
    out.goodEnd = 0;
    out.arrayEnd = 0;
    out.errorOffset = 0;
    out.error.clear();
    out.tooDeep = false;
    out.firstDuplicateOffset = SIZE_MAX;
    out.firstDuplicateKey.clear();
    try {
        d->parse(buffer, textSize, capacity, out);
    } catch (const std::exception& e) {
        // Nothing in the parser is meant to throw; running out of memory can.
        out.status = ChunkResult::Status::Error;
        out.error = e.what();
        out.errorOffset = out.goodEnd;
    }
    out.stringCount = d->strings.size();
}

} // namespace ks
