#pragma once

// The pickle handler that turns the events of a snapshot pickle into a MemorySnapshot. Dicts are
// told apart by their keys ("action" a trace entry, "total_size" a segment, "state" a block,
// "filename" a frame, "stage" an annotation) and committed when they are added to their parent,
// which is when pickle has finished them: an entry goes straight into the columns of its list's
// device, a frame into the frame table, a frames list into the stack table. So only the containers
// still open are held (a few thousand: pickle adds list items in batches of 1000), plus one 4-byte
// word per container for what it became (a memo reference may name it again).

#include "core/io/pickle/picklehandler.h"
#include "core/model/snapshot/memorysnapshot.h"

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace ks {

class SnapshotBuilder final : public pickle::Handler {
public:
    SnapshotBuilder();
    ~SnapshotBuilder() override;

    uint64_t newList() override;
    uint64_t newDict() override;
    uint64_t newTuple(std::span<const pickle::Value> items) override;
    void append(uint64_t list, const pickle::Value& item) override;
    void appendMany(uint64_t list, std::span<const pickle::Value> items) override;
    void setItem(uint64_t dict, const pickle::Value& key, const pickle::Value& value) override;
    void finish(const pickle::Value& root) override;

    // The result after finish(); throws when the pickle was not a snapshot.
    std::unique_ptr<MemorySnapshot> take();

private:
    struct PendingDict;
    struct PendingList;
    enum class Key : uint8_t;

    Key keyOf(const pickle::Value& key);
    PendingDict& dictOf(uint64_t handle);
    PendingList& listOf(uint64_t handle);
    uint32_t releaseDict(uint64_t handle);
    void closeDictInto(uint64_t handle, PendingList& parent, uint64_t parentHandle);
    uint32_t stackOf(const pickle::Value& v);
    uint32_t internFrame(const PendingDict& d);
    uint32_t internStack(const std::vector<uint32_t>& frames);
    StringId text(const pickle::Value& v);
    void commitEntry(PendingDict& d, PendingList& list);
    void commitBlock(PendingDict& d, PendingList& list);
    void commitSegment(PendingDict& d);
    void commitAnnotation(PendingDict& d);
    void setRootItem(Key key, const pickle::Value& value);

    std::unique_ptr<MemorySnapshot> m_snap;
    // What each container became: 3 bits of kind, 29 bits of index.
    std::vector<uint32_t> m_meaning;
    std::vector<std::unique_ptr<PendingDict>> m_dicts;
    std::vector<uint32_t> m_freeDicts;
    std::vector<std::unique_ptr<PendingList>> m_lists;
    std::vector<uint32_t> m_freeLists;
    std::vector<std::pair<int64_t, int64_t>> m_pairs; // 2-int tuples (segment_pool_id)
    std::vector<uint8_t> m_keyCache;                  // reader string id -> Key + 1
    std::vector<uint32_t> m_textCache;                // reader string id -> model StringId + 1

    struct FrameKey {
        uint32_t filename, name;
        int64_t line;
        bool operator==(const FrameKey&) const = default;
    };
    struct FrameKeyHash {
        size_t operator()(const FrameKey& k) const;
    };
    std::unordered_map<FrameKey, uint32_t, FrameKeyHash> m_frameIndex;
    std::unordered_multimap<uint64_t, uint32_t> m_stackIndex;

    std::vector<DeviceTrace> m_slots;   // device traces in the order their lists filled
    std::vector<int32_t> m_deviceSlots; // device_traces[d] -> slot (-1: empty)
    bool m_sawDeviceTraces = false;
    bool m_sawSegments = false;
    bool m_finished = false;
    uint64_t m_root = UINT64_MAX;
};

} // namespace ks
