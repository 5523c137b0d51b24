#include "core/io/snapshot/snapshotbuilder.h"

#include "core/util/hash.h"
#include "core/util/textescape.h"

#include <memory>
#include <stdexcept>
#include <string_view>

namespace ks {

using pickle::Kind;
using pickle::Value;

enum class SnapshotBuilder::Key : uint8_t {
    Unknown,
    Action,
    Addr,
    Size,
    Stream,
    TimeUs,
    Frames,
    CompileContext,
    UserMetadata,
    DeviceFree,
    Device,
    Address,
    TotalSize,
    AllocatedSize,
    ActiveSize,
    RequestedSize,
    SegmentType,
    SegmentPoolId,
    IsExpandable,
    Blocks,
    State,
    Filename,
    Name,
    Line,
    Stage,
    Segments,
    DeviceTraces,
    ExternalAnnotations,
    AllocatorSettings,
    Count,
};

namespace {

using KeyT = uint8_t;
constexpr size_t kKeys = 29;

struct KeyName {
    std::string_view text;
    uint8_t key;
};
// The keys torch writes (torch/csrc/cuda/Module.cpp, memory_snapshot.cpp; docs/snapshots.md).
constexpr KeyName kKeyNames[] = {
    {"action", 1},
    {"addr", 2},
    {"size", 3},
    {"stream", 4},
    {"time_us", 5},
    {"frames", 6},
    {"compile_context", 7},
    {"user_metadata", 8},
    {"device_free", 9},
    {"device", 10},
    {"address", 11},
    {"total_size", 12},
    {"allocated_size", 13},
    {"active_size", 14},
    {"requested_size", 15},
    {"segment_type", 16},
    {"segment_pool_id", 17},
    {"is_expandable", 18},
    {"blocks", 19},
    {"state", 20},
    {"filename", 21},
    {"name", 22},
    {"line", 23},
    {"stage", 24},
    {"segments", 25},
    {"device_traces", 26},
    {"external_annotations", 27},
    {"allocator_settings", 28},
};

const char* keyText(uint8_t k)
{
    for (const KeyName& n : kKeyNames)
        if (n.key == k) return n.text.data();
    return "?";
}

// Meaning of a container handle: 3 bits of kind over 29 bits of index.
enum : uint32_t {
    kDone = 0,
    kDict = 1,
    kList = 2,
    kFrame = 3,
    kStack = 4,
    kSmallPair = 5,
    kBigPair = 6,
    kTuple = 7
};
constexpr uint32_t kIndexBits = 29;
constexpr uint32_t kIndexMask = (uint32_t(1) << kIndexBits) - 1;
constexpr uint32_t meaning(uint32_t kind, uint32_t index)
{
    return kind << kIndexBits | index;
}
constexpr uint32_t kindOf(uint32_t m)
{
    return m >> kIndexBits;
}
constexpr uint32_t indexOf(uint32_t m)
{
    return m & kIndexMask;
}
constexpr uint32_t kNoStackIndex = kIndexMask;

SnapshotAction parseAction(std::string_view s)
{
    if (s == "alloc") return SnapshotAction::Alloc;
    if (s == "free_requested") return SnapshotAction::FreeRequested;
    if (s == "free_completed") return SnapshotAction::FreeCompleted;
    if (s == "segment_alloc") return SnapshotAction::SegmentAlloc;
    if (s == "segment_free") return SnapshotAction::SegmentFree;
    if (s == "segment_map") return SnapshotAction::SegmentMap;
    if (s == "segment_unmap") return SnapshotAction::SegmentUnmap;
    if (s == "snapshot") return SnapshotAction::Snapshot;
    if (s == "oom") return SnapshotAction::Oom;
    return SnapshotAction::Other;
}

BlockState parseState(std::string_view s)
{
    if (s == "active_allocated") return BlockState::ActiveAllocated;
    if (s == "active_pending_free") return BlockState::ActivePendingFree;
    if (s == "inactive") return BlockState::Inactive;
    return BlockState::Other;
}

[[noreturn]] void bad(const std::string& what)
{
    throw std::runtime_error("snapshot: " + what);
}

} // namespace

// A dict stays open until it is added to its parent: with torch's C++ pickler, which writes the
// device trace as one batch, every trace entry's dict is open at once (millions). So only the keys
// present are stored, in the order they came, with a byte per key for its slot: a trace entry has
// six to nine of the 29 keys, a segment twelve. A dict given more than kInline keys (no dict torch
// writes) moves its values to the heap.
struct SnapshotBuilder::PendingDict {
    static constexpr unsigned kInline = 12;
    uint32_t present = 0; // bit per Key
    uint32_t blockCount = 0;
    int64_t poolB = 0;
    uint8_t count = 0;               // values stored
    uint8_t slotOf[kKeys];           // valid where present
    int64_t inlineVals[kInline];     // in the order the keys came
    std::unique_ptr<int64_t[]> wide; // kKeys values by key, once more than kInline are present
    std::unique_ptr<std::vector<std::pair<std::string, std::string>>> extras; // allocator_settings...

    bool has(Key k) const { return (present >> unsigned(k)) & 1; }
    int64_t at(Key k) const { return wide ? wide[size_t(k)] : inlineVals[slotOf[size_t(k)]]; }
    int64_t get(Key k, int64_t fallback = 0) const { return has(k) ? at(k) : fallback; }
    void set(Key k, int64_t v)
    {
        if (!wide) {
            if (has(k)) {
                inlineVals[slotOf[size_t(k)]] = v;
                return;
            }
            if (count < kInline) {
                present |= uint32_t(1) << unsigned(k);
                slotOf[size_t(k)] = count;
                inlineVals[count++] = v;
                return;
            }
            wide = std::make_unique<int64_t[]>(kKeys);
            for (unsigned b = 0; b < kKeys; ++b)
                if ((present >> b) & 1) wide[b] = inlineVals[slotOf[b]];
        }
        present |= uint32_t(1) << unsigned(k);
        wide[size_t(k)] = v;
    }
    void clear()
    {
        present = 0;
        count = 0;
        blockCount = 0;
        poolB = 0;
        wide.reset();
        extras.reset();
    }
    std::vector<std::pair<std::string, std::string>>& extraList()
    {
        if (!extras) extras = std::make_unique<std::vector<std::pair<std::string, std::string>>>();
        return *extras;
    }
    size_t extraCount() const { return extras ? extras->size() : 0; }
};

struct SnapshotBuilder::PendingList {
    std::vector<uint32_t> frames;
    std::vector<int32_t> innerSlots;
    int32_t slot = -1;
    uint32_t blockFirst = UINT32_MAX;
    uint32_t blockCount = 0;
    int64_t ints[2] = {0, 0};
    uint32_t intCount = 0;
    bool sawScalar = false;
};

size_t SnapshotBuilder::FrameKeyHash::operator()(const FrameKey& k) const
{
    return size_t(mix64((uint64_t(k.filename) << 32 | k.name) ^ mix64(uint64_t(k.line))));
}

SnapshotBuilder::SnapshotBuilder() : m_snap(std::make_unique<MemorySnapshot>()) {}
SnapshotBuilder::~SnapshotBuilder() = default;

uint64_t SnapshotBuilder::newDict()
{
    uint32_t idx;
    if (!m_freeDicts.empty()) {
        idx = m_freeDicts.back();
        m_freeDicts.pop_back();
        m_dicts[idx]->clear();
    } else {
        idx = uint32_t(m_dicts.size());
        if (idx >= kIndexMask) bad("too many open dicts");
        m_dicts.push_back(std::make_unique<PendingDict>());
    }
    if (m_meaning.size() >= UINT32_MAX) bad("too many containers");
    m_meaning.push_back(meaning(kDict, idx));
    return m_meaning.size() - 1;
}

uint64_t SnapshotBuilder::newList()
{
    uint32_t idx;
    if (!m_freeLists.empty()) {
        idx = m_freeLists.back();
        m_freeLists.pop_back();
        PendingList& l = *m_lists[idx];
        l.frames.clear();
        l.innerSlots.clear();
        l.slot = -1;
        l.blockFirst = UINT32_MAX;
        l.blockCount = 0;
        l.intCount = 0;
        l.sawScalar = false;
    } else {
        idx = uint32_t(m_lists.size());
        if (idx >= kIndexMask) bad("too many open lists");
        m_lists.push_back(std::make_unique<PendingList>());
    }
    if (m_meaning.size() >= UINT32_MAX) bad("too many containers");
    m_meaning.push_back(meaning(kList, idx));
    return m_meaning.size() - 1;
}

uint64_t SnapshotBuilder::newTuple(std::span<const Value> items)
{
    uint32_t m = meaning(kTuple, 0);
    if (items.size() == 2 && items[0].isInt() && items[1].isInt()) {
        const int64_t a = items[0].i, b = items[1].i;
        if (a >= 0 && b >= 0 && a < (1 << 14) && b < (1 << 14)) {
            m = meaning(kSmallPair, uint32_t(a << 14 | b));
        } else if (m_pairs.size() < kIndexMask) {
            m = meaning(kBigPair, uint32_t(m_pairs.size()));
            m_pairs.emplace_back(a, b);
        }
    }
    if (m_meaning.size() >= UINT32_MAX) bad("too many containers");
    m_meaning.push_back(m);
    return m_meaning.size() - 1;
}

SnapshotBuilder::Key SnapshotBuilder::keyOf(const Value& key)
{
    if (key.kind != Kind::Str) return Key::Unknown;
    if (key.stringId >= m_keyCache.size()) m_keyCache.resize(size_t(key.stringId) + 1, 0);
    uint8_t& c = m_keyCache[key.stringId];
    if (c == 0) {
        c = 1;
        for (const KeyName& n : kKeyNames)
            if (n.text == key.text) c = uint8_t(n.key + 1);
    }
    return Key(c - 1);
}

StringId SnapshotBuilder::text(const Value& v)
{
    if (v.kind != Kind::Str && v.kind != Kind::Bytes) return StringId();
    if (v.stringId >= m_textCache.size()) m_textCache.resize(size_t(v.stringId) + 1, 0);
    uint32_t& c = m_textCache[v.stringId];
    if (c == 0) c = m_snap->strings.intern(v.text).value + 1;
    return StringId(c - 1);
}

SnapshotBuilder::PendingDict& SnapshotBuilder::dictOf(uint64_t handle)
{
    if (handle >= m_meaning.size()) bad("unknown container");
    const uint32_t m = m_meaning[handle];
    if (kindOf(m) != kDict) bad("an item is set on something that is not an open dict");
    return *m_dicts[indexOf(m)];
}

SnapshotBuilder::PendingList& SnapshotBuilder::listOf(uint64_t handle)
{
    if (handle >= m_meaning.size()) bad("unknown container");
    const uint32_t m = m_meaning[handle];
    if (kindOf(m) != kList) bad("an item is appended to something that is not an open list");
    return *m_lists[indexOf(m)];
}

uint32_t SnapshotBuilder::internFrame(const PendingDict& d)
{
    const FrameKey key{uint32_t(d.get(Key::Filename, 0)), uint32_t(d.get(Key::Name, 0)), d.get(Key::Line, 0)};
    const auto [it, inserted] = m_frameIndex.try_emplace(key, uint32_t(m_snap->frames.size()));
    if (inserted) {
        if (m_snap->frames.size() >= kIndexMask) bad("too many distinct frames");
        m_snap->frames.push_back(SnapshotFrame{StringId(key.filename), StringId(key.name), key.line});
    }
    return it->second;
}

uint32_t SnapshotBuilder::internStack(const std::vector<uint32_t>& frames)
{
    if (frames.empty()) return kNoStack;
    // Four frame ids per multiply (hashBytes): a mix per frame was a dependent chain of two
    // multiplies each, and stacks of 100 frames and more made it a sixth of a snapshot's read.
    const uint64_t h =
        hashBytes(reinterpret_cast<const char*>(frames.data()), frames.size() * sizeof(uint32_t));
    auto range = m_stackIndex.equal_range(h);
    MemorySnapshot& s = *m_snap;
    for (auto it = range.first; it != range.second; ++it) {
        const auto [p, n] = s.stackFrames(it->second);
        if (n == frames.size() && std::equal(frames.begin(), frames.end(), p)) return it->second;
    }
    const uint32_t id = uint32_t(s.stackCount());
    if (id >= kNoStackIndex) bad("too many distinct stacks");
    s.frameIds.insert(s.frameIds.end(), frames.begin(), frames.end());
    s.stackStart.push_back(uint32_t(s.frameIds.size()));
    m_stackIndex.emplace(h, id);
    return id;
}

uint32_t SnapshotBuilder::stackOf(const Value& v)
{
    if (!v.isObject() || v.handle >= m_meaning.size()) return kNoStack;
    const uint32_t m = m_meaning[v.handle];
    if (kindOf(m) == kStack) return indexOf(m) == kNoStackIndex ? kNoStack : indexOf(m);
    if (kindOf(m) != kList) return kNoStack;
    PendingList& l = *m_lists[indexOf(m)];
    const uint32_t id = internStack(l.frames);
    m_freeLists.push_back(indexOf(m));
    m_meaning[v.handle] = meaning(kStack, id == kNoStack ? kNoStackIndex : id);
    return id;
}

uint32_t SnapshotBuilder::releaseDict(uint64_t handle)
{
    const uint32_t idx = indexOf(m_meaning[handle]);
    m_freeDicts.push_back(idx);
    m_meaning[handle] = meaning(kDone, 0);
    return idx;
}

void SnapshotBuilder::commitEntry(PendingDict& d, PendingList& list)
{
    if (list.slot < 0) {
        list.slot = int32_t(m_slots.size());
        m_slots.emplace_back();
    }
    DeviceTrace& t = m_slots[size_t(list.slot)];
    const SnapshotAction a = SnapshotAction(d.at(Key::Action));
    t.action.push_back(a);
    t.addr.push_back(a == SnapshotAction::Oom ? d.get(Key::DeviceFree, d.get(Key::Addr)) : d.get(Key::Addr));
    t.size.push_back(d.get(Key::Size));
    t.stream.push_back(d.get(Key::Stream));
    t.timeUs.push_back(d.get(Key::TimeUs));
    t.stack.push_back(d.has(Key::Frames) ? uint32_t(d.at(Key::Frames)) : kNoStack);
    t.compileContext.push_back(d.has(Key::CompileContext) ? StringId(uint32_t(d.at(Key::CompileContext)))
                                                          : StringId());
    t.userMetadata.push_back(d.has(Key::UserMetadata) ? StringId(uint32_t(d.at(Key::UserMetadata)))
                                                      : StringId());
}

void SnapshotBuilder::commitBlock(PendingDict& d, PendingList& list)
{
    BlockTable& b = m_snap->blocks;
    const uint32_t index = uint32_t(b.count());
    if (list.blockFirst == UINT32_MAX) list.blockFirst = index;
    if (list.blockFirst + list.blockCount != index) bad("the blocks of two segments interleave");
    ++list.blockCount;
    const int64_t size = d.get(Key::Size);
    b.address.push_back(d.get(Key::Address));
    b.size.push_back(size);
    // Legacy snapshots may lack requested_size; memory_viz then takes the block's size.
    b.requestedSize.push_back(d.has(Key::RequestedSize) && d.at(Key::RequestedSize) ? d.at(Key::RequestedSize)
                                                                                    : size);
    b.state.push_back(BlockState(d.get(Key::State, int64_t(BlockState::Other))));
    b.stack.push_back(d.has(Key::Frames) ? uint32_t(d.at(Key::Frames)) : kNoStack);
}

void SnapshotBuilder::commitSegment(PendingDict& d)
{
    SegmentTable& s = m_snap->segments;
    BlockTable& b = m_snap->blocks;
    const int64_t address = d.get(Key::Address);
    uint32_t first = uint32_t(b.count()), count = 0;
    if (d.has(Key::Blocks)) {
        first = uint32_t(d.at(Key::Blocks));
        count = d.blockCount;
    }
    // Block addresses as memory_viz sets them: the segment's address plus the sizes before it.
    int64_t at = address;
    for (uint32_t k = first; k < first + count; ++k) {
        b.address[k] = at;
        at = int64_t(uint64_t(at) + uint64_t(b.size[k]));
    }
    s.device.push_back(d.get(Key::Device));
    s.address.push_back(address);
    s.totalSize.push_back(d.get(Key::TotalSize));
    s.allocatedSize.push_back(d.get(Key::AllocatedSize));
    s.activeSize.push_back(d.get(Key::ActiveSize));
    s.requestedSize.push_back(d.get(Key::RequestedSize));
    s.stream.push_back(d.get(Key::Stream));
    s.poolOwner.push_back(d.get(Key::SegmentPoolId));
    s.poolId.push_back(d.poolB);
    s.large.push_back(uint8_t(d.get(Key::SegmentType) != 0));
    s.expandable.push_back(uint8_t(d.get(Key::IsExpandable) != 0));
    s.stack.push_back(d.has(Key::Frames) ? uint32_t(d.at(Key::Frames)) : kNoStack);
    s.firstBlock.push_back(first);
    s.blockCount.push_back(count);
}

void SnapshotBuilder::commitAnnotation(PendingDict& d)
{
    SnapshotAnnotation a;
    a.device = d.get(Key::Device);
    a.timeUs = d.get(Key::TimeUs);
    a.stage = StringId(uint32_t(d.get(Key::Stage)));
    a.name = d.has(Key::Name) ? StringId(uint32_t(d.at(Key::Name))) : StringId();
    m_snap->annotations.push_back(a);
}

void SnapshotBuilder::closeDictInto(uint64_t handle, PendingList& parent, uint64_t)
{
    PendingDict& d = *m_dicts[indexOf(m_meaning[handle])];
    if (d.has(Key::Action)) {
        commitEntry(d, parent);
    } else if (d.has(Key::TotalSize) || d.has(Key::Blocks)) {
        commitSegment(d);
    } else if (d.has(Key::State)) {
        commitBlock(d, parent);
    } else if (d.has(Key::Stage)) {
        commitAnnotation(d);
    } else if (d.has(Key::Filename) || d.has(Key::Line)) {
        const uint32_t id = internFrame(d);
        parent.frames.push_back(id);
        releaseDict(handle);
        m_meaning[handle] = meaning(kFrame, id);
        return;
    }
    releaseDict(handle);
}

void SnapshotBuilder::append(uint64_t list, const Value& item)
{
    PendingList& l = listOf(list);
    if (!item.isObject()) {
        if (item.isInt() && l.intCount < 2) l.ints[l.intCount++] = item.i;
        l.sawScalar = true;
        return;
    }
    if (item.handle >= m_meaning.size()) bad("unknown container");
    const uint32_t m = m_meaning[item.handle];
    switch (kindOf(m)) {
    case kDict:
        closeDictInto(item.handle, l, list);
        break;
    case kFrame:
        l.frames.push_back(indexOf(m));
        break;
    case kList: {
        if (item.handle == list) bad("a list contains itself");
        // A device's trace list going into device_traces.
        PendingList& inner = *m_lists[indexOf(m)];
        l.innerSlots.push_back(inner.slot);
        m_freeLists.push_back(indexOf(m));
        m_meaning[item.handle] = meaning(kDone, 0);
        break;
    }
    default:
        l.innerSlots.push_back(-1);
        break;
    }
}

// The hot path of a big snapshot: the frames of a stack, mostly memo references to frames already
// made, in batches of up to 1000.
void SnapshotBuilder::appendMany(uint64_t list, std::span<const Value> items)
{
    PendingList& l = listOf(list);
    for (const Value& v : items) {
        if (v.kind == Kind::Object && v.handle < m_meaning.size()) {
            const uint32_t m = m_meaning[v.handle];
            if (kindOf(m) == kFrame) {
                l.frames.push_back(indexOf(m));
                continue;
            }
        }
        append(list, v);
    }
}

namespace {

int64_t intValue(const Value& v, uint8_t key)
{
    switch (v.kind) {
    case Kind::Int:
        return v.i;
    case Kind::Bool:
        return v.b ? 1 : 0;
    case Kind::BigInt:
        bad(std::string("'") + keyText(key) + "' does not fit in 64 bits");
    default:
        bad(std::string("'") + keyText(key) + "' is a " + pickle::kindName(v.kind) + ", expected an int");
    }
}

} // namespace

void SnapshotBuilder::setItem(uint64_t dict, const Value& key, const Value& value)
{
    PendingDict& d = dictOf(dict);
    const Key k = keyOf(key);
    if (value.kind == Kind::None && k != Key::Unknown) return; // absent, as torch means it
    switch (k) {
    case Key::Addr:
    case Key::Size:
    case Key::Stream:
    case Key::TimeUs:
    case Key::DeviceFree:
    case Key::Device:
    case Key::Address:
    case Key::TotalSize:
    case Key::AllocatedSize:
    case Key::ActiveSize:
    case Key::RequestedSize:
    case Key::Line:
    case Key::IsExpandable:
        d.set(k, intValue(value, uint8_t(k)));
        break;
    case Key::Action:
        if (value.kind != Kind::Str)
            bad("'action' is a " + std::string(pickle::kindName(value.kind)) + ", expected a str");
        d.set(k, int64_t(parseAction(value.text)));
        break;
    case Key::State:
        if (value.kind != Kind::Str)
            bad("'state' is a " + std::string(pickle::kindName(value.kind)) + ", expected a str");
        d.set(k, int64_t(parseState(value.text)));
        break;
    case Key::SegmentType:
        d.set(k, value.kind == Kind::Str && value.text == "large" ? 1 : 0);
        break;
    case Key::Frames:
        d.set(k, stackOf(value));
        break;
    case Key::CompileContext:
    case Key::UserMetadata:
    case Key::Filename:
    case Key::Name:
    case Key::Stage: {
        const StringId id = text(value);
        if (id.valid()) d.set(k, id.value);
        break;
    }
    case Key::SegmentPoolId: {
        if (!value.isObject() || value.handle >= m_meaning.size()) break;
        const uint32_t m = m_meaning[value.handle];
        int64_t a = 0, b = 0;
        if (kindOf(m) == kSmallPair) {
            a = indexOf(m) >> 14;
            b = indexOf(m) & ((1 << 14) - 1);
        } else if (kindOf(m) == kBigPair) {
            a = m_pairs[indexOf(m)].first;
            b = m_pairs[indexOf(m)].second;
        } else if (kindOf(m) == kList) {
            PendingList& l = *m_lists[indexOf(m)];
            a = l.ints[0];
            b = l.ints[1];
            m_freeLists.push_back(indexOf(m));
            m_meaning[value.handle] = meaning(kDone, 0);
        }
        d.set(k, a);
        d.poolB = b;
        break;
    }
    case Key::Blocks: {
        if (!value.isObject() || value.handle >= m_meaning.size()) break;
        const uint32_t m = m_meaning[value.handle];
        if (kindOf(m) != kList) break;
        PendingList& l = *m_lists[indexOf(m)];
        d.set(k, l.blockFirst == UINT32_MAX ? int64_t(m_snap->blocks.count()) : int64_t(l.blockFirst));
        d.blockCount = l.blockCount;
        m_freeLists.push_back(indexOf(m));
        m_meaning[value.handle] = meaning(kDone, 0);
        break;
    }
    case Key::Segments:
    case Key::DeviceTraces:
    case Key::ExternalAnnotations:
    case Key::AllocatorSettings:
        m_root = dict;
        setRootItem(k, value);
        break;
    case Key::Unknown:
    case Key::Count:
        // Kept as text only while the dict is nothing else (allocator_settings and its like).
        if (d.present == 0 && d.extraCount() < 64 && (key.kind == Kind::Str)) {
            std::string v;
            switch (value.kind) {
            case Kind::Int:
                v = std::to_string(value.i);
                break;
            case Kind::Bool:
                v = value.b ? "True" : "False";
                break;
            case Kind::Float:
                v = std::to_string(value.d);
                break;
            case Kind::Str:
                v = std::string(value.text.substr(0, 4096));
                break;
            case Kind::None:
                v = "None";
                break;
            default:
                v = "...";
                break;
            }
            d.extraList().emplace_back(std::string(key.text.substr(0, 256)), std::move(v));
        }
        break;
    }
}

void SnapshotBuilder::setRootItem(Key k, const Value& value)
{
    if (!value.isObject() || value.handle >= m_meaning.size()) return;
    const uint32_t m = m_meaning[value.handle];
    if (k == Key::AllocatorSettings) {
        if (kindOf(m) == kDict) {
            if (const auto& extras = m_dicts[indexOf(m)]->extras) m_snap->allocatorSettings = *extras;
            releaseDict(value.handle);
        }
        return;
    }
    if (kindOf(m) != kList) return;
    PendingList& l = *m_lists[indexOf(m)];
    if (k == Key::DeviceTraces) {
        m_deviceSlots = l.innerSlots;
        m_sawDeviceTraces = true;
    } else if (k == Key::Segments) {
        m_sawSegments = true;
    }
    m_freeLists.push_back(indexOf(m));
    m_meaning[value.handle] = meaning(kDone, 0);
}

void SnapshotBuilder::finish(const Value& root)
{
    if (!root.isObject() || root.handle >= m_meaning.size())
        bad(std::string("the pickle holds a ") + pickle::kindName(root.kind) +
            ", not a memory snapshot dict");
    const uint32_t m = m_meaning[root.handle];
    if (kindOf(m) == kList && m_root == UINT64_MAX) {
        // torch 1.x: _snapshot() was the list of segments alone.
        m_sawSegments = true;
    } else if (root.handle != m_root || (!m_sawSegments && !m_sawDeviceTraces)) {
        bad("not a CUDA memory snapshot (no 'segments' or 'device_traces')");
    }
    for (int32_t slot : m_deviceSlots) {
        if (slot >= 0 && size_t(slot) < m_slots.size())
            m_snap->traces.push_back(std::move(m_slots[size_t(slot)]));
        else
            m_snap->traces.emplace_back();
    }
    m_finished = true;
}

std::unique_ptr<MemorySnapshot> SnapshotBuilder::take()
{
    if (!m_finished) bad("incomplete");
    for (DeviceTrace& t : m_snap->traces) {
        t.action.releaseUnusedTail();
        t.addr.releaseUnusedTail();
        t.size.releaseUnusedTail();
        t.stream.releaseUnusedTail();
        t.timeUs.releaseUnusedTail();
        t.stack.releaseUnusedTail();
        t.compileContext.releaseUnusedTail();
        t.userMetadata.releaseUnusedTail();
    }
    return std::move(m_snap);
}

} // namespace ks
