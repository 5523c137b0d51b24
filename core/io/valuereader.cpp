#include "core/io/valuereader.h"

#include "core/io/jsonscan.h"
#include "core/io/numparse.h"
#include "core/model/args.h"
#include "core/util/hash.h"

#include <cstring>

namespace ks {

using namespace simdjson;

namespace {

inline std::string_view trimRight(std::string_view s)
{
    while (!s.empty() && isJsonSpace(s.back()))
        s.remove_suffix(1);
    return s;
}

} // namespace

error_code ValueReader::tooDeep(const char* at)
{
    m_tooDeepAt = at;
    return DEPTH_ERROR;
}

// A container's raw text (already skipped by simdjson without recursion) that sits at depth
// `depth`: checked for nesting before anything walks it.
error_code ValueReader::checkDepth(std::string_view raw, size_t depth)
{
    const size_t at = findTooDeep(raw, depth > kMaxJsonDepth ? 0 : kMaxJsonDepth - depth + 1);
    return at == std::string_view::npos ? SUCCESS : tooDeep(raw.data() + at);
}

// Walks a value we do not use, so that text which is not JSON is still reported. The recursion
// is bounded by kMaxJsonDepth: a file of nested brackets must not overflow the stack.
error_code ValueReader::validate(ondemand::value v, size_t depth)
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
error_code ValueReader::jsonText(ondemand::value v, std::string_view& out)
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
    if (!canonicalJsonView(raw, m_scratch, out)) return TAPE_ERROR;
    return SUCCESS;
}

error_code ValueReader::parseArgs(ondemand::object& obj, RawEvent& ev)
{
    // Events of one category mostly share their arg keys (Kineto writes "cat" before "args").
    m_shard.begin(ev.cat);
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
            m_keyCopy.assign(key); // the parser's string buffer is reused by the value below
            key = m_keyCopy;
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
                m_shard.addInt(key, i);
            } else if (nt == ondemand::number_type::unsigned_integer) {
                uint64_t u;
                if (auto err = v.get_uint64().get(u)) return err;
                m_shard.addUInt(key, u);
            } else {
                double d;
                if (nt == ondemand::number_type::floating_point_number && !v.get_double().get(d)) {
                    m_shard.addDouble(key, d);
                } else {
                    // Integers beyond 64 bits and out-of-range literals (1e999): keep the exact
                    // text, as JSON, so nothing is rounded away.
                    const std::string_view tok = trimRight(v.raw_json_token());
                    if (!isNumberSyntax(tok)) return NUMBER_ERROR;
                    m_shard.addJson(key, tok);
                }
            }
            break;
        }
        case ondemand::json_type::string: {
            std::string_view s;
            if (auto err = stringValue(v, s)) return err;
            m_shard.addString(key, s);
            break;
        }
        case ondemand::json_type::boolean: {
            bool b;
            if (auto err = v.get_bool().get(b)) return err;
            m_shard.addBool(key, b);
            break;
        }
        case ondemand::json_type::null: {
            if (auto err = validate(v, kEventDepth + 2)) return err;
            m_shard.addNull(key);
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
            // The same text always checks and canonicalises alike: a repeat reuses the first result.
            JsonMemo* memo = nullptr;
            uint64_t hash = 0;
            if (rawJson.size() <= kMemoMaxBytes) {
                hash = hashBytes(rawJson.data(), rawJson.size());
                memo = &m_memo[hash & (kMemoSlots - 1)];
                if (memo->hash == hash && memo->id != UINT32_MAX && memo->raw == rawJson) {
                    m_shard.addJson(key, StringId(memo->id));
                    break;
                }
            }
            if (auto err = checkDepth(rawJson, kEventDepth + 2)) return err;
            // raw_json() only checked the nesting; canonicalJsonView checks the scalars.
            std::string_view canon;
            if (!canonicalJsonView(rawJson, m_scratch, canon)) return TAPE_ERROR;
            const StringId id = m_shard.addJson(key, canon);
            if (memo) {
                memo->hash = hash;
                memo->id = id.value;
                memo->raw.assign(rawJson);
            }
            break;
        }
        }
    }
    ev.args = m_shard.finish();
    return SUCCESS;
}

} // namespace ks
