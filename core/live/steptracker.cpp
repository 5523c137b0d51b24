#include "core/live/steptracker.h"

#include <algorithm>

namespace ks::live {

bool StepTracker::increment(std::string_view requester, int64_t& completed)
{
    auto it = m_counts.find(requester);
    // A requester that joins later (the second optimizer of a GAN in its first iteration, an optimizer
    // built for a fine-tuning phase) joins the step in progress: its first call completes the same step
    // the others just completed, instead of counting it twice or catching up from zero. When it
    // replaces a requester that stops, the step at the switch spans two iterations.
    if (it == m_counts.end())
        it = m_counts.emplace(std::string(requester), std::max<int64_t>(0, m_global - 1)).first;
    const int64_t n = ++it->second;
    if (n <= m_global) return false;
    completed = m_global;
    m_global = n;
    return true;
}

void StepTracker::reset()
{
    m_counts.clear();
    m_global = 0;
}

} // namespace ks::live
