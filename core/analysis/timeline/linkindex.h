#pragma once

#include "core/model/trace.h"

#include <atomic>
#include <cstdint>
#include <vector>

namespace ks {

// How one slice relates to others across threads and devices.
struct SliceLinks {
    SliceRef launchingOp;           // for runtime calls and GPU work: the CPU op that made the launch
    SliceRef runtime;               // for GPU work: the runtime/driver call that launched it
    std::vector<SliceRef> launches; // for CPU ops: runtime/driver calls made inside it
    std::vector<SliceRef> gpuWork;  // for CPU ops and runtime calls: the GPU work they launched
    std::vector<uint32_t> flows;    // indices into Trace::flows() of flows touching this slice
    size_t launchesOmitted = 0;     // launches beyond the list limit
    size_t gpuWorkOmitted = 0;
};

// Joins CPU ops, runtime calls and GPU work: runtime <-> GPU work on correlation id (falling back to
// ac2g flows), launch -> op by nesting on the launching thread (falling back to External id, which
// old Kineto builds filled with the correlation instead).
//
// build() also resolves the launch of every piece of device work on the GPU tracks once, so that
// launchOf(), which the overview analyses ask for every kernel, is an array read.
class LinkIndex {
public:
    static constexpr size_t kListLimit = 256;

    void build(const Trace& trace, const std::atomic<bool>* cancel = nullptr);
    bool built() const { return m_trace != nullptr; }

    int64_t externalId(SliceRef r) const;
    int64_t correlation(SliceRef r) const;
    std::vector<SliceRef> withCorrelation(int64_t id) const;
    std::vector<SliceRef> withExternalId(int64_t id) const;

    // The runtime/driver call that launched a piece of GPU work, or an invalid ref.
    SliceRef launchOf(SliceRef gpuWork) const
    {
        if (gpuWork.track.value < m_launches.size()) {
            const std::vector<SliceRef>& rows = m_launches[gpuWork.track.value];
            if (gpuWork.index < rows.size() && rows[gpuWork.index] != kNotDeviceWork)
                return rows[gpuWork.index];
        }
        return searchLaunchOf(gpuWork);
    }
    // The CPU op responsible for a runtime call or a piece of GPU work, or an invalid ref.
    SliceRef launchingOp(SliceRef r) const;
    // GPU work launched by one runtime/driver call.
    std::vector<SliceRef> gpuWorkOf(SliceRef runtime) const;

    SliceLinks linksOf(SliceRef r) const;

    size_t bytesUsed() const;

private:
    struct Keyed {
        int64_t key;
        SliceRef ref;
        bool operator<(const Keyed& o) const { return key != o.key ? key < o.key : ref < o.ref; }
    };
    // A row of a GPU track that is not device work (launchOf() searches for those).
    static constexpr SliceRef kNotDeviceWork{TrackId(), 0};

    const SliceLinkIds* idsOf(SliceRef r) const;
    SliceRef searchLaunchOf(SliceRef gpuWork) const;
    void buildLaunches(const Trace& trace);
    void sortFlows(const Trace& trace);
    std::vector<SliceRef> lookup(const std::vector<Keyed>& v, int64_t key) const;
    SliceRef enclosingOp(SliceRef r) const;

    const Trace* m_trace = nullptr;
    std::vector<Keyed> m_byCorrelation;
    std::vector<Keyed> m_byExternal;
    std::vector<std::pair<SliceRef, uint32_t>> m_flowsBySlice;
    std::vector<std::vector<SliceRef>> m_launches; // per GPU track and row: searchLaunchOf()'s answer
};

} // namespace ks
