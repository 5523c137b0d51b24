#pragma once

#include <atomic>
#include <cstdint>

namespace ks::record {

// Something that wants to know when ranges begin and end on the recording hot path, e.g. a GPU
// collector that links the GPU work launched inside a range to it (CUPTI external correlation).
// Called on the thread that opens/closes the range, so it must be quick and must not record ranges
// itself.
class RangeListener {
public:
    virtual ~RangeListener() = default;
    virtual void rangeBegan(int64_t externalId) = 0;
    virtual void rangeEnded(int64_t externalId) = 0;
};

// Read by range ends inside their "recording" branch only, so recording that is off still costs
// one load and one branch, and recording without listeners one more predictable branch. Range
// begins read g_beginExtras (record/stackcapture.h) instead, which also covers with_stack.
extern std::atomic<bool> g_rangeHooked;

// A range begins while listeners are attached: returns the id recorded with the range (the given
// correlation, or a fresh process-wide id) after telling every listener.
int64_t hookedRangeBegin(int64_t correlation);
// The innermost hooked range of this thread ends.
void hookedRangeEnd();
// The innermost open hooked range of the calling thread (0 = none).
int64_t currentExternalId();

// At most four listeners; false when full. A listener must stay alive until removed.
bool addRangeListener(RangeListener* listener);
void removeRangeListener(RangeListener* listener);

} // namespace ks::record
