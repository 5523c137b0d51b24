#pragma once

#include "core/io/rawevent.h"

#include <array>
#include <cstdint>
#include <cstring>
#include <simdjson.h>
#include <string>
#include <string_view>

namespace ks {

class ArgShard;

// The value-level half of EventParser: reads single JSON values of an event (strings, values to
// validate and drop, values kept as canonical JSON text) and an event's "args" object into an
// ArgShard. Every value it reads is validated; nesting deeper than kMaxJsonDepth fails with
// DEPTH_ERROR and tooDeepAt() tells where it started.
class ValueReader {
public:
    using error_code = simdjson::error_code;
    using value = simdjson::ondemand::value;

    // Depths count the containers around a value: the events array is 1, an event 2, its args 3.
    static constexpr size_t kEventDepth = 2;

    explicit ValueReader(ArgShard& shard) : m_shard(shard) {}

    void resetTooDeep() { m_tooDeepAt = nullptr; }
    const char* tooDeepAt() const { return m_tooDeepAt; }

    // A string value, taken straight from the buffer when it holds no escape (the common case) rather
    // than unescaped into a copy. The raw token runs from the opening quote to the next structural
    // character, so the first quote after the opening one closes the string if no backslash precedes
    // it. Inline: the event parser calls it for every name and category.
    error_code stringValue(value& v, std::string_view& out)
    {
        const std::string_view tok = v.raw_json_token();
        if (tok.size() >= 2) {
            const char* b = tok.data() + 1;
            const char* q = static_cast<const char*>(std::memchr(b, '"', tok.size() - 1));
            if (q && !std::memchr(b, '\\', size_t(q - b))) {
                out = std::string_view(b, size_t(q - b));
                return simdjson::SUCCESS;
            }
        }
        return v.get_string().get(out);
    }
    // Walks a value we do not use, so that text which is not JSON is still reported.
    error_code validate(value v, size_t depth);
    // The compact JSON text of any value (for names, categories and pids that are not strings); out
    // may point into a scratch buffer reused by the next call.
    error_code jsonText(value v, std::string_view& out);
    // An event's "args" object: every key and value into the shard, the link ids into ev.
    error_code parseArgs(simdjson::ondemand::object& obj, RawEvent& ev);

private:
    error_code tooDeep(const char* at);
    error_code checkDepth(std::string_view raw, size_t depth);
    error_code arrayOrObjectArg(std::string_view key, value v, simdjson::ondemand::json_type t);

    ArgShard& m_shard;
    std::string m_scratch;
    std::string m_keyCopy;
    const char* m_tooDeepAt = nullptr;

    // Array and object args repeat verbatim across events ("Input Dims", "Input type", "grid"): the
    // last text seen per slot and the string it was interned as in the shard, so a repeat costs a
    // hash and a compare instead of a depth scan, canonicalisation and an intern.
    struct JsonMemo {
        uint64_t hash = 0;
        uint32_t id = UINT32_MAX;
        std::string raw;
    };
    static constexpr size_t kMemoSlots = 1024;
    static constexpr size_t kMemoMaxBytes = 256;
    std::array<JsonMemo, kMemoSlots> m_memo;
};

} // namespace ks
