#pragma once

// One value of a pickle as the safe reader hands it over: a scalar, a string, or a container that
// the handler made (its handle). Nothing here owns memory: a string's bytes live in the reader's
// string pool for as long as the reader does.

#include <cstdint>
#include <string_view>

namespace ks::pickle {

enum class Kind : uint8_t {
    None,
    Bool,
    Int,
    // An integer that does not fit int64 (LONG1/LONG4 longer than 8 bytes, or out of range): kept
    // as a flagged value without its digits, so a consumer that needs it can say so.
    BigInt,
    Float,
    Str,
    Bytes,
    // A list, dict or tuple; `handle` is what the handler returned when it was made.
    Object,
};

struct Value {
    Kind kind = Kind::None;
    // For Str and Bytes: the reader's id of the (interned) bytes, equal for equal bytes, so a
    // consumer can cache what it made of a key without comparing text.
    uint32_t stringId = 0;
    union {
        bool b;
        int64_t i;
        double d;
        uint64_t handle;
    };
    std::string_view text; // Str (UTF-8) and Bytes

    Value() : i(0) {}

    static Value none() { return Value(); }
    static Value ofBool(bool v)
    {
        Value r;
        r.kind = Kind::Bool;
        r.b = v;
        return r;
    }
    static Value ofInt(int64_t v)
    {
        Value r;
        r.kind = Kind::Int;
        r.i = v;
        return r;
    }
    static Value ofFloat(double v)
    {
        Value r;
        r.kind = Kind::Float;
        r.d = v;
        return r;
    }
    static Value ofObject(uint64_t h)
    {
        Value r;
        r.kind = Kind::Object;
        r.handle = h;
        return r;
    }

    bool isInt() const { return kind == Kind::Int; }
    bool isStr() const { return kind == Kind::Str; }
    bool isObject() const { return kind == Kind::Object; }
};

// A short name of a value's kind for messages ("int", "str", ...).
const char* kindName(Kind k);

} // namespace ks::pickle
