#include "core/model/args.h"

#include "core/util/bigalloc.h"
#include "core/util/hash.h"
#include "core/util/jsonwrite.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>

namespace ks {

namespace {

constexpr unsigned kOffsetBits = 20;
constexpr size_t kPageSize = size_t(1) << kOffsetBits;
constexpr unsigned kPageBits = 40;

uint64_t zigzag(int64_t v)
{
    return (uint64_t(v) << 1) ^ uint64_t(v >> 63);
}
int64_t unzigzag(uint64_t v)
{
    return int64_t(v >> 1) ^ -int64_t(v & 1);
}

uint64_t readVarint(const uint8_t*& p)
{
    uint64_t v = 0;
    unsigned shift = 0;
    while (true) {
        const uint8_t b = *p++;
        v |= uint64_t(b & 0x7f) << shift;
        if (!(b & 0x80)) return v;
        shift += 7;
    }
}

} // namespace

int64_t ArgValue::toInt() const
{
    switch (type) {
    case ArgType::Int:
        return i;
    case ArgType::UInt:
        return INT64_MAX;
    case ArgType::Double:
        if (!std::isfinite(d)) return 0;
        if (d >= 9.2e18) return INT64_MAX;
        if (d <= -9.2e18) return INT64_MIN;
        return int64_t(d);
    case ArgType::True:
        return 1;
    default:
        return 0;
    }
}

double ArgValue::toDouble() const
{
    switch (type) {
    case ArgType::Int:
        return double(i);
    case ArgType::UInt:
        return double(u);
    case ArgType::Double:
        return d;
    case ArgType::True:
        return 1.0;
    default:
        return 0.0;
    }
}

std::string ArgValue::toJson() const
{
    std::string out;
    switch (type) {
    case ArgType::Null:
        return "null";
    case ArgType::False:
        return "false";
    case ArgType::True:
        return "true";
    case ArgType::Int:
        return std::to_string(i);
    case ArgType::UInt:
        return std::to_string(u);
    case ArgType::Double:
        appendJsonDouble(out, d);
        return out;
    case ArgType::String:
        appendJsonString(out, text);
        return out;
    case ArgType::Json:
        return std::string(text);
    }
    return out;
}

std::string ArgValue::toDisplay() const
{
    if (type == ArgType::String) return std::string(text);
    return toJson();
}

// ---------------------------------------------------------------------------------------------

ArgShard::ArgShard(unsigned index) : m_index(index)
{
    m_shapeSlots.assign(256, 0);
    m_curKeys.reserve(32);
    m_curValues.reserve(512);
}

void ArgShard::begin(uint32_t hint)
{
    m_curKeys.clear();
    m_curValues.clear();
    m_predicted = UINT32_MAX;
    m_slot = nullptr;
    if (hint != kNoHint) {
        HintSlot& slot = m_hintSlots[hint & (m_hintSlots.size() - 1)];
        if (slot.hint != hint) slot = HintSlot{hint, {UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX}};
        m_slot = &slot;
        m_predicted = slot.shapes[0];
    }
}

// Whether the object being built can continue as `shape`: same keys so far, and key next.
bool ArgShard::followsShape(uint32_t shape, std::string_view key, ArgType type) const
{
    const Shape& sh = m_shapes[shape];
    const size_t i = m_curKeys.size();
    if (i >= sh.count) return false;
    for (size_t k = 0; k < i; ++k) {
        const ShapeKey& a = m_shapeKeys[sh.firstKey + k];
        if (a.key != m_curKeys[k].key || a.type != m_curKeys[k].type) return false;
    }
    const ShapeKey& expected = m_shapeKeys[sh.firstKey + i];
    const std::string_view text = m_strings.view(expected.key);
    return expected.type == type && text.size() == key.size() &&
           std::memcmp(text.data(), key.data(), key.size()) == 0;
}

void ArgShard::putVarint(uint64_t v)
{
    while (v >= 0x80) {
        m_curValues.push_back(uint8_t(v) | 0x80);
        v >>= 7;
    }
    m_curValues.push_back(uint8_t(v));
}

void ArgShard::addKey(std::string_view key, ArgType type)
{
    if (m_predicted != UINT32_MAX) {
        const Shape& shape = m_shapes[m_predicted];
        const size_t i = m_curKeys.size();
        if (i < shape.count) {
            const ShapeKey& expected = m_shapeKeys[shape.firstKey + i];
            const std::string_view text = m_strings.view(expected.key);
            if (expected.type == type && text.size() == key.size() &&
                std::memcmp(text.data(), key.data(), key.size()) == 0) {
                m_curKeys.push_back(expected);
                return;
            }
        }
        // Off the predicted shape: maybe on another one seen with this hint.
        m_predicted = UINT32_MAX;
        for (uint32_t other : m_slot->shapes) {
            if (other != UINT32_MAX && followsShape(other, key, type)) {
                m_predicted = other;
                m_curKeys.push_back(m_shapeKeys[m_shapes[other].firstKey + i]);
                return;
            }
        }
    }
    m_curKeys.push_back(ShapeKey{m_strings.intern(key), type});
}

void ArgShard::addNull(std::string_view key)
{
    addKey(key, ArgType::Null);
}
void ArgShard::addBool(std::string_view key, bool v)
{
    addKey(key, v ? ArgType::True : ArgType::False);
}

void ArgShard::addInt(std::string_view key, int64_t v)
{
    addKey(key, ArgType::Int);
    putVarint(zigzag(v));
}

void ArgShard::addUInt(std::string_view key, uint64_t v)
{
    if (v <= uint64_t(INT64_MAX)) {
        addInt(key, int64_t(v));
        return;
    }
    addKey(key, ArgType::UInt);
    const size_t at = m_curValues.size();
    m_curValues.resize(at + 8);
    std::memcpy(m_curValues.data() + at, &v, 8);
}

void ArgShard::addDouble(std::string_view key, double v)
{
    addKey(key, ArgType::Double);
    const size_t at = m_curValues.size();
    m_curValues.resize(at + 8);
    std::memcpy(m_curValues.data() + at, &v, 8);
}

void ArgShard::addString(std::string_view key, std::string_view v)
{
    addKey(key, ArgType::String);
    putVarint(m_strings.intern(v).value);
}

void ArgShard::addString(std::string_view key, StringId interned)
{
    addKey(key, ArgType::String);
    putVarint(interned.value);
}

StringId ArgShard::addJson(std::string_view key, std::string_view compactJson)
{
    addKey(key, ArgType::Json);
    const StringId id = m_strings.intern(compactJson);
    putVarint(id.value);
    return id;
}

void ArgShard::addJson(std::string_view key, StringId internedJson)
{
    addKey(key, ArgType::Json);
    putVarint(internedJson.value);
}

void ArgShard::add(std::string_view key, const ArgValue& v)
{
    switch (v.type) {
    case ArgType::Null:
        addNull(key);
        break;
    case ArgType::False:
        addBool(key, false);
        break;
    case ArgType::True:
        addBool(key, true);
        break;
    case ArgType::Int:
        addInt(key, v.i);
        break;
    case ArgType::UInt:
        addUInt(key, v.u);
        break;
    case ArgType::Double:
        addDouble(key, v.d);
        break;
    case ArgType::String:
        addString(key, v.text);
        break;
    case ArgType::Json:
        addJson(key, v.text);
        break;
    }
}

uint32_t ArgShard::internShape()
{
    uint64_t h = 0x51ed27u ^ m_curKeys.size();
    for (const ShapeKey& k : m_curKeys)
        h = mix64(h ^ (uint64_t(k.key.value) << 8 | uint64_t(k.type)));
    const uint32_t n = uint32_t(m_curKeys.size());
    size_t mask = m_shapeSlots.size() - 1;
    size_t i = h & mask;
    while (m_shapeSlots[i] != 0) {
        const Shape& s = m_shapes[m_shapeSlots[i] - 1];
        if (s.count == n) {
            bool same = true;
            for (uint32_t k = 0; k < n && same; ++k) {
                const ShapeKey& a = m_shapeKeys[s.firstKey + k];
                same = a.key == m_curKeys[k].key && a.type == m_curKeys[k].type;
            }
            if (same) return m_shapeSlots[i] - 1;
        }
        i = (i + 1) & mask;
    }
    const uint32_t id = uint32_t(m_shapes.size());
    const uint32_t first = uint32_t(m_shapeKeys.size());
    m_shapeKeys.append(m_curKeys.data(), m_curKeys.size());
    m_shapes.push_back(Shape{first, n});
    m_shapeSlots[i] = id + 1;
    if (m_shapes.size() * 2 > m_shapeSlots.size()) {
        std::vector<uint32_t> slots(m_shapeSlots.size() * 2, 0);
        mask = slots.size() - 1;
        for (uint32_t s = 0; s < m_shapes.size(); ++s) {
            const Shape& sh = m_shapes[s];
            uint64_t hh = 0x51ed27u ^ sh.count;
            for (uint32_t k = 0; k < sh.count; ++k) {
                const ShapeKey& key = m_shapeKeys[sh.firstKey + k];
                hh = mix64(hh ^ (uint64_t(key.key.value) << 8 | uint64_t(key.type)));
            }
            size_t j = hh & mask;
            while (slots[j] != 0)
                j = (j + 1) & mask;
            slots[j] = s + 1;
        }
        m_shapeSlots = std::move(slots);
    }
    return id;
}

uint8_t* ArgShard::allocate(size_t n, uint64_t& offsetBits)
{
    if (n > kPageSize) {
        // Oversized blob: a page of its own, addressed at offset 0.
        auto* page = static_cast<uint8_t*>(std::malloc(n));
        if (!page) throw std::bad_alloc();
        const uint64_t pageIndex = m_pages.size();
        m_pages.push_back(page);
        m_pageSizes.push_back(uint32_t(n));
        m_bytes += n;
        offsetBits = pageIndex << kOffsetBits;
        // The current shared page stays current.
        return page;
    }
    if (!m_page || m_pageUsed + n > m_pageCapacity) {
        // Pages are carved from large huge-page blocks that grow with the shard: a big trace writes
        // hundreds of MB of args, and faulting that in 4 KiB at a time is slow on some VMs.
        if (m_blockLeft < kPageSize) {
            const size_t blockBytes = std::clamp<size_t>(m_blockTotal, 2 * kPageSize, 16 * kPageSize);
            m_block = static_cast<uint8_t*>(allocateLarge(blockBytes));
            m_blocks.push_back({m_block, blockBytes});
            m_blockLeft = blockBytes;
            m_blockTotal += blockBytes;
        }
        m_page = m_block;
        m_block += kPageSize;
        m_blockLeft -= kPageSize;
        m_pages.push_back(m_page);
        m_pageSizes.push_back(uint32_t(kPageSize));
        m_pageUsed = 0;
        m_pageCapacity = kPageSize;
    }
    uint8_t* p = m_page + m_pageUsed;
    const uint64_t pageIndex = m_pages.size() - 1;
    if (pageIndex >= (uint64_t(1) << kPageBits)) throw std::length_error("argument store full");
    offsetBits = (pageIndex << kOffsetBits) | m_pageUsed;
    m_pageUsed += n;
    m_bytes += n;
    return p;
}

ArgsRef ArgShard::finish()
{
    if (m_curKeys.empty()) return ArgsRef{};
    uint32_t shape = m_predicted;
    if (shape == UINT32_MAX || m_shapes[shape].count != m_curKeys.size()) shape = internShape();
    if (m_slot && m_slot->shapes[0] != shape) {
        // Most recent first.
        auto& list = m_slot->shapes;
        size_t at = list.size() - 1;
        for (size_t k = 0; k < list.size(); ++k)
            if (list[k] == shape) at = k;
        for (size_t k = at; k > 0; --k)
            list[k] = list[k - 1];
        list[0] = shape;
    }
    uint8_t head[5];
    size_t headLen = 0;
    uint64_t v = shape;
    while (v >= 0x80) {
        head[headLen++] = uint8_t(v) | 0x80;
        v >>= 7;
    }
    head[headLen++] = uint8_t(v);
    uint64_t offsetBits = 0;
    uint8_t* p = allocate(headLen + m_curValues.size(), offsetBits);
    std::memcpy(p, head, headLen);
    if (!m_curValues.empty()) std::memcpy(p + headLen, m_curValues.data(), m_curValues.size());
    ArgsRef ref;
    ref.bits = (uint64_t(m_index) << (kPageBits + kOffsetBits)) | offsetBits;
    return ref;
}

ArgsRef ArgShard::store(const ArgList& args)
{
    begin();
    for (const Arg& a : args)
        add(a.key, a.value);
    return finish();
}

size_t ArgShard::bytesUsed() const
{
    return m_bytes + m_strings.bytesUsed() + m_shapeKeys.bytesUsed() + m_shapes.bytesUsed() +
           m_shapeSlots.size() * 4;
}

// ---------------------------------------------------------------------------------------------

ArgShard::~ArgShard()
{
    for (size_t i = 0; i < m_pages.size(); ++i)
        if (m_pageSizes[i] > kPageSize) std::free(m_pages[i]); // an oversized blob of its own
    for (const auto& [block, bytes] : m_blocks)
        freeLarge(block, bytes);
}

ArgStore::ArgStore() = default;
ArgStore::~ArgStore() = default;

ArgShard& ArgStore::shard(unsigned index)
{
    if (index >= kMaxShards) throw std::out_of_range("argument shard index");
    if (!m_shards[index]) m_shards[index] = std::make_unique<ArgShard>(index);
    return *m_shards[index];
}

bool ArgStore::open(ArgsRef ref, Cursor& c) const
{
    if (!ref.valid()) return false;
    const unsigned shardIndex = unsigned(ref.bits >> (kPageBits + kOffsetBits));
    const uint64_t page = (ref.bits >> kOffsetBits) & ((uint64_t(1) << kPageBits) - 1);
    const uint64_t offset = ref.bits & (kPageSize - 1);
    if (shardIndex >= kMaxShards || !m_shards[shardIndex]) return false;
    const ArgShard& s = *m_shards[shardIndex];
    if (page >= s.m_pages.size()) return false;
    c.shard = &s;
    c.p = s.m_pages[page] + offset;
    const uint32_t shape = uint32_t(readVarint(c.p));
    const ArgShard::Shape& sh = s.m_shapes[shape];
    c.shapeFirst = sh.firstKey;
    c.remaining = sh.count;
    return true;
}

bool ArgStore::next(Cursor& c, Arg& out) const
{
    if (c.remaining == 0) return false;
    const ArgShard::ShapeKey& k = c.shard->m_shapeKeys[c.shapeFirst++];
    --c.remaining;
    out.key = c.shard->m_strings.view(k.key);
    out.value = ArgValue();
    out.value.type = k.type;
    switch (k.type) {
    case ArgType::Null:
    case ArgType::False:
    case ArgType::True:
        break;
    case ArgType::Int:
        out.value.i = unzigzag(readVarint(c.p));
        break;
    case ArgType::UInt:
        std::memcpy(&out.value.u, c.p, 8);
        c.p += 8;
        break;
    case ArgType::Double:
        std::memcpy(&out.value.d, c.p, 8);
        c.p += 8;
        break;
    case ArgType::String:
    case ArgType::Json:
        out.value.text = c.shard->m_strings.view(StringId(uint32_t(readVarint(c.p))));
        break;
    }
    return true;
}

ArgList ArgStore::decode(ArgsRef ref) const
{
    ArgList out;
    Cursor c;
    if (!open(ref, c)) return out;
    out.reserve(c.remaining);
    Arg a;
    while (next(c, a))
        out.push_back(a);
    return out;
}

bool ArgStore::find(ArgsRef ref, std::string_view key, ArgValue& out) const
{
    Cursor c;
    if (!open(ref, c)) return false;
    Arg a;
    while (next(c, a)) {
        if (a.key == key) {
            out = a.value;
            return true;
        }
    }
    return false;
}

size_t ArgStore::bytesUsed() const
{
    size_t n = 0;
    for (const auto& s : m_shards)
        if (s) n += s->bytesUsed();
    return n;
}

} // namespace ks
