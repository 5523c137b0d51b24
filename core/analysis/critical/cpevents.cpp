#include "core/analysis/critical/cpevents.h"

#include <array>

namespace ks {

namespace {

template <size_t N>
bool oneOf(std::string_view name, const std::array<std::string_view, N>& names)
{
    for (std::string_view n : names)
        if (n == name) return true;
    return false;
}

} // namespace

bool cpIsLockingRuntime(std::string_view name)
{
    static constexpr std::array<std::string_view, 3> k{"cudaHostAlloc", "cudaLaunchKernel",
                                                       "cudaMemcpyAsync"};
    return oneOf(name, k);
}

bool cpIsBlockingCall(std::string_view name)
{
    static constexpr std::array<std::string_view, 6> k{"cudaDeviceSynchronize",
                                                       "cudaStreamSynchronize",
                                                       "cudaEventQuery",
                                                       "cudaEventSynchronize",
                                                       "cudaMemcpy",
                                                       "cudaMemcpyAsync"};
    return oneOf(name, k);
}

bool CpClock::hasSubMicrosecondTimes(const Trace& trace)
{
    for (size_t t = 0; t < trace.trackCount(); ++t) {
        const SliceTrack& st = trace.slices(TrackId(uint32_t(t)));
        for (size_t r = 0; r < st.size(); ++r)
            if (st.start(r) % 1000 != 0) return true;
    }
    return false;
}

int64_t cpStreamOf(const Trace& trace, SliceRef ref)
{
    const ArgValue v = trace.args().get(trace.slices(ref.track).args(ref.index), "stream");
    if (v.isNumber()) return v.toInt();
    return trace.track(ref.track).stream;
}

} // namespace ks
