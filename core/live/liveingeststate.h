#pragma once

// LiveIngest's per-connection and per-thread state, shared by the files that apply its frames
// (liveingest.cpp, liveingestevents.cpp, liveingestdevice.cpp). Not for use outside them.

#include "core/live/liveingest.h"
#include "core/live/wirestrings.h"

#include <limits>
#include <map>
#include <memory>
#include <tuple>
#include <unordered_map>

namespace ks::live {

// Rough bytes of model per kept item, for the memory budget (columns, level index, args handle).
inline constexpr uint64_t kIngestSliceBytes = 64;
inline constexpr uint64_t kIngestOtherBytes = 48;
// Bookkeeping per string or payload kept (table entry, hash node), on top of its text.
inline constexpr uint64_t kIngestStringBytes = 32;

struct LiveIngest::ThreadState {
    uint64_t tid = 0;
    TrackId track;
    std::vector<uint32_t> open; // rows begun and not ended; kSkipped for ranges not kept
    // Backward functions still open, by row: their arrow is decided when they end, since the
    // first backward op of a key to end takes it (record/fwdbwdlinks.h).
    struct Backward {
        std::pair<int64_t, uint64_t> key;
        TimeNs start = 0;
    };
    std::unordered_map<uint32_t, Backward> openBackward;
    TimeNs last = std::numeric_limits<TimeNs>::min();
    static constexpr uint32_t kSkipped = UINT32_MAX;
};

struct LiveIngest::Conn {
    ConnectionInfo info;
    ProcessId process;
    WireStrings strings;
    // Texts not yet parsed (dropped once parsed into payloadArgs).
    std::unordered_map<uint64_t, std::string> payloads;
    std::unordered_map<uint64_t, ArgsRef> payloadArgs;
    std::unordered_map<uint64_t, std::unique_ptr<ThreadState>> threads;
    std::map<std::pair<int, int>, int64_t> totals;
    std::map<std::tuple<int, int, uint64_t>, int64_t> allocations;
    std::map<uint32_t, TimeNs> counterLast; // by counter track
    TrackId steps;
    // Autograd links (OpInfo records): the forward op of each (sequence number, torch thread) that
    // began last, until a backward op takes its arrow, and backward functions that ended before
    // their forward op arrived (another thread's batch can come first), bounded.
    struct OpEnd {
        SliceRef slice;
        TimeNs start = 0;
    };
    std::map<std::pair<int64_t, uint64_t>, OpEnd> forwardOps;
    std::map<std::pair<int64_t, uint64_t>, std::vector<OpEnd>> earlyBackward;
    size_t earlyBackwardCount = 0;

    bool name(uint32_t id, StringId& out) const
    {
        if (id == 0) {
            out = StringPool::kEmpty;
            return true;
        }
        return strings.find(id, out);
    }
};

} // namespace ks::live
