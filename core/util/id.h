#pragma once

#include <compare>
#include <cstdint>
#include <functional>

namespace ks {

// A 32-bit index that cannot be mixed up with an index of another kind: passing a TrackId where a
// StringId is expected is a compile error, at no run-time cost.
template <typename Tag>
struct Id {
    static constexpr uint32_t kInvalid = UINT32_MAX;

    uint32_t value = kInvalid;

    constexpr Id() = default;
    constexpr explicit Id(uint32_t v) : value(v) {}

    constexpr bool valid() const { return value != kInvalid; }
    constexpr explicit operator bool() const { return valid(); }
    constexpr auto operator<=>(const Id&) const = default;
};

using StringId = Id<struct StringTag>;
using ProcessId = Id<struct ProcessTag>;
using TrackId = Id<struct TrackTag>;
using CounterTrackId = Id<struct CounterTrackTag>;

// Reference to one slice: which track, which row of that track.
struct SliceRef {
    TrackId track;
    uint32_t index = UINT32_MAX;

    constexpr bool valid() const { return track.valid() && index != UINT32_MAX; }
    constexpr auto operator<=>(const SliceRef&) const = default;
};

} // namespace ks

template <typename Tag>
struct std::hash<ks::Id<Tag>> {
    size_t operator()(ks::Id<Tag> id) const noexcept { return std::hash<uint32_t>()(id.value); }
};

template <>
struct std::hash<ks::SliceRef> {
    size_t operator()(ks::SliceRef r) const noexcept
    {
        return std::hash<uint64_t>()((uint64_t(r.track.value) << 32) | r.index);
    }
};
