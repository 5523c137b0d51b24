#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

namespace ks::live {

// Counts training steps the way torch's KinetoStepTracker does: every requester ("Optimizer",
// "ProfilerStep", a second optimizer...) keeps its own count, and the global step is the maximum of
// them. A loop that calls both optimizer.step() and prof.step() once per iteration, or steps two
// optimizers (each its own requester), therefore advances one step per iteration, not two. Unlike
// torch's tracker, a requester that first shows up after step 0 joins at the step in progress
// rather than at zero (see increment()).
class StepTracker {
public:
    // Counts one step for requester. Returns true when the global step advanced; completed is then
    // the number of the step that just ended (0-based, like ProfilerStep#N).
    bool increment(std::string_view requester, int64_t& completed);
    // Steps completed so far (the global step).
    int64_t current() const { return m_global; }
    void reset();

private:
    std::map<std::string, int64_t, std::less<>> m_counts;
    int64_t m_global = 0;
};

} // namespace ks::live
