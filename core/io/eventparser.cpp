#include "core/io/eventparser.h"

#include "core/io/jsonscan.h"
#include "core/io/keyrepeats.h"
#include "core/io/numparse.h"
#include "core/io/valuereader.h"
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
    Impl(ArgShard& s, unsigned id) : values(s), poolId(id) {}

    ondemand::parser parser;
    ValueReader values;
    unsigned poolId;
    StringPool strings;
    // Repeated keys of the event being parsed: counted once the event parsed (a failed event is
    // parsed again by the recovery).
    KeyRepeats repeats;

    static constexpr size_t kEventDepth = ValueReader::kEventDepth;

    uint32_t intern(std::string_view s) { return strings.intern(s).value; }

    // A string field that is usually a string but could be any JSON value.
    error_code textField(ondemand::value v, uint32_t& out)
    {
        ondemand::json_type t;
        if (auto err = v.type().get(t)) return err;
        std::string_view s;
        if (t == ondemand::json_type::string) {
            if (auto err = values.stringValue(v, s)) return err;
        } else if (auto err = values.jsonText(v, s)) {
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
        return values.validate(v, kEventDepth + 1);
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
        if (t == ondemand::json_type::null) return values.validate(v, kEventDepth + 1);
        std::string_view s;
        if (auto err = values.jsonText(v, s)) return err;
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
        return values.validate(v, kEventDepth + 1);
    }

    error_code shortString(ondemand::value v, char& out)
    {
        ondemand::json_type t;
        if (auto err = v.type().get(t)) return err;
        if (t != ondemand::json_type::string) {
            out = 0; // a repeated key's last value counts, even when it is not usable
            return values.validate(v, kEventDepth + 1);
        }
        std::string_view s;
        if (auto err = v.get_string().get(s)) return err;
        out = s.empty() ? 0 : s[0];
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
                        if (!(err = v.get_object().get(a))) err = values.parseArgs(a, ev);
                    } else {
                        err = values.validate(v, kEventDepth + 1);
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
                err = values.validate(v, kEventDepth + 1);
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
    values.resetTooDeep();
    auto fail = [&](error_code err, const char* at) {
        out.status = ChunkResult::Status::Error;
        out.error = error_message(err);
        if (err == DEPTH_ERROR && values.tooDeepAt()) {
            out.tooDeep = true;
            out.error = "arrays and objects nested more than " + std::to_string(kMaxJsonDepth) + " deep";
            at = values.tooDeepAt();
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
            if (auto err = values.validate(elem, kEventDepth)) {
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
