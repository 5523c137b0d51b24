#pragma once

#include "core/util/column.h"
#include "core/util/id.h"
#include "core/util/stringpool.h"

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace ks {

// Handle of one event's argument object inside an ArgStore. Layout: shard (4 bits), page (40 bits),
// byte offset inside the page (20 bits).
struct ArgsRef {
    static constexpr uint64_t kNone = ~uint64_t(0);
    uint64_t bits = kNone;

    constexpr bool valid() const { return bits != kNone; }
    constexpr auto operator<=>(const ArgsRef&) const = default;
};

enum class ArgType : uint8_t {
    Null,
    False,
    True,
    Int,  // fits int64
    UInt, // above INT64_MAX
    Double,
    String, // a JSON string, unescaped
    Json,   // an array or object, kept as compact JSON text
};

// One decoded argument value. Strings and JSON text point into the store and stay valid as long as
// the store lives.
struct ArgValue {
    ArgType type = ArgType::Null;
    union {
        int64_t i;
        uint64_t u;
        double d;
    };
    std::string_view text;

    ArgValue() : i(0) {}
    static ArgValue null() { return {}; }
    static ArgValue boolean(bool b)
    {
        ArgValue v;
        v.type = b ? ArgType::True : ArgType::False;
        return v;
    }
    static ArgValue integer(int64_t x)
    {
        ArgValue v;
        v.type = ArgType::Int;
        v.i = x;
        return v;
    }
    static ArgValue unsignedInteger(uint64_t x)
    {
        ArgValue v;
        if (x <= uint64_t(INT64_MAX)) {
            v.type = ArgType::Int;
            v.i = int64_t(x);
        } else {
            v.type = ArgType::UInt;
            v.u = x;
        }
        return v;
    }
    static ArgValue real(double x)
    {
        ArgValue v;
        v.type = ArgType::Double;
        v.d = x;
        return v;
    }
    static ArgValue string(std::string_view s)
    {
        ArgValue v;
        v.type = ArgType::String;
        v.text = s;
        return v;
    }
    static ArgValue json(std::string_view s)
    {
        ArgValue v;
        v.type = ArgType::Json;
        v.text = s;
        return v;
    }

    bool isNumber() const { return type == ArgType::Int || type == ArgType::UInt || type == ArgType::Double; }
    bool isInteger() const { return type == ArgType::Int || type == ArgType::UInt; }
    // Numeric value as int64 (doubles truncated, uint64 saturated); 0 for non-numbers.
    int64_t toInt() const;
    double toDouble() const;
    // JSON text of this value, as a Kineto writer would print it.
    std::string toJson() const;
    // Human-readable text: strings unquoted, everything else as JSON.
    std::string toDisplay() const;
};

struct Arg {
    std::string_view key;
    ArgValue value;
};

// A list of decoded arguments, in the order they appeared in the trace.
using ArgList = std::vector<Arg>;

class ArgStore;

// Single-writer encoder for one shard. Parallel readers of a trace each own one shard, so they
// intern keys and strings without locks; the shard index is part of every ArgsRef they hand out.
class ArgShard {
public:
    explicit ArgShard(unsigned index);
    ~ArgShard();
    ArgShard(const ArgShard&) = delete;
    ArgShard& operator=(const ArgShard&) = delete;

    unsigned index() const { return m_index; }

    // Build one args object: begin(), add*() per key in order, then finish() returns its handle.
    // hint is any small number the caller gives to objects that tend to share keys (a reader passes
    // the event's category): the keys of the last object with the same hint are expected again,
    // which saves hashing them.
    static constexpr uint32_t kNoHint = UINT32_MAX;
    void begin(uint32_t hint = kNoHint);
    void addNull(std::string_view key);
    void addBool(std::string_view key, bool v);
    void addInt(std::string_view key, int64_t v);
    void addUInt(std::string_view key, uint64_t v);
    void addDouble(std::string_view key, double v);
    void addString(std::string_view key, std::string_view v);
    // A string this shard interned before (internString()): a text that many objects share (a call
    // stack) is hashed and stored once, however many objects refer to it.
    StringId internString(std::string_view v) { return m_strings.intern(v); }
    void addString(std::string_view key, StringId interned);
    // Returns the id the text was interned as in this shard, which a later addJson can pass instead.
    StringId addJson(std::string_view key, std::string_view compactJson);
    void addJson(std::string_view key, StringId internedJson);
    void add(std::string_view key, const ArgValue& v);
    ArgsRef finish();

    // Encodes a whole list in one call.
    ArgsRef store(const ArgList& args);

    size_t bytesUsed() const;

private:
    friend class ArgStore;

    struct Shape {
        uint32_t firstKey; // index into m_shapeKeys
        uint32_t count;
    };
    struct ShapeKey {
        StringId key;
        ArgType type;
    };

    void addKey(std::string_view key, ArgType type);
    void putVarint(uint64_t v);
    uint32_t internShape();
    uint8_t* allocate(size_t n, uint64_t& offsetBits);

    unsigned m_index;
    StringPool m_strings;
    // Pages of encoded blobs; a blob never straddles two pages.
    Column<uint8_t*> m_pages;
    Column<uint32_t> m_pageSizes;
    uint8_t* m_page = nullptr;
    size_t m_pageUsed = 0;
    size_t m_pageCapacity = 0;
    size_t m_bytes = 0;
    std::vector<std::pair<uint8_t*, size_t>> m_blocks; // huge-page blocks the pages are carved from
    uint8_t* m_block = nullptr;
    size_t m_blockLeft = 0;
    size_t m_blockTotal = 0;
    Column<Shape> m_shapes;
    Column<ShapeKey> m_shapeKeys;
    std::vector<uint32_t> m_shapeSlots; // open addressing, holds shape index + 1
    // Scratch for the object being built.
    std::vector<ShapeKey> m_curKeys;
    std::vector<uint8_t> m_curValues;
    // Shape prediction: the last few shapes seen per hint, most recent first (direct-mapped, tagged
    // with the hint), and the shape the current object follows while its keys keep matching.
    static constexpr size_t kShapesPerHint = 4;
    struct HintSlot {
        uint32_t hint = kNoHint;
        std::array<uint32_t, kShapesPerHint> shapes{UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX};
    };
    bool followsShape(uint32_t shape, std::string_view key, ArgType type) const;
    std::array<HintSlot, 256> m_hintSlots{};
    HintSlot* m_slot = nullptr;
    uint32_t m_predicted = UINT32_MAX;
};

// All argument objects of a trace, readable from any thread while shard writers append.
class ArgStore {
public:
    static constexpr unsigned kMaxShards = 16;

    ArgStore();
    ~ArgStore();
    ArgStore(const ArgStore&) = delete;
    ArgStore& operator=(const ArgStore&) = delete;

    // Shard for one writer thread; created on first use.
    ArgShard& shard(unsigned index);

    ArgList decode(ArgsRef ref) const;
    // Value of one key, or an ArgValue of type Null with found=false.
    bool find(ArgsRef ref, std::string_view key, ArgValue& out) const;
    ArgValue get(ArgsRef ref, std::string_view key) const
    {
        ArgValue v;
        find(ref, key, v);
        return v;
    }
    bool has(ArgsRef ref, std::string_view key) const
    {
        ArgValue v;
        return find(ref, key, v);
    }
    // Calls fn(const Arg&) for each argument; stops early when fn returns false.
    template <typename Fn>
    void forEach(ArgsRef ref, Fn&& fn) const;

    size_t bytesUsed() const;

private:
    struct Cursor;
    bool next(Cursor& c, Arg& out) const;
    bool open(ArgsRef ref, Cursor& c) const;

    std::array<std::unique_ptr<ArgShard>, kMaxShards> m_shards;
};

struct ArgStore::Cursor {
    const ArgShard* shard = nullptr;
    const uint8_t* p = nullptr;
    uint32_t shapeFirst = 0;
    uint32_t remaining = 0;
};

template <typename Fn>
void ArgStore::forEach(ArgsRef ref, Fn&& fn) const
{
    Cursor c;
    if (!open(ref, c)) return;
    Arg a;
    while (next(c, a))
        if (!fn(static_cast<const Arg&>(a))) return;
}

} // namespace ks
