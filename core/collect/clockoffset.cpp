#include "core/collect/clockoffset.h"

#include "core/record/clock.h"

#include <algorithm>

namespace ks::collect {

namespace {
// About an hour of one-per-second samples; older ones only matter for records that old.
constexpr size_t kMaxSamples = 4096;
} // namespace

ClockOffset::ClockOffset(ReadNs foreign, ReadNs monotonic)
    : m_foreign(std::move(foreign)), m_monotonic(std::move(monotonic))
{
    if (!m_monotonic) m_monotonic = [] { return int64_t(record::Clock::monotonicNs()); };
}

void ClockOffset::sample()
{
    int64_t bestWidth = INT64_MAX, bestForeign = 0, bestOffset = 0;
    for (int i = 0; i < 5; ++i) {
        const int64_t m0 = m_monotonic();
        const int64_t f = m_foreign();
        const int64_t m1 = m_monotonic();
        if (m1 - m0 < bestWidth) {
            bestWidth = m1 - m0;
            bestForeign = f;
            bestOffset = f - (m0 + (m1 - m0) / 2);
        }
    }
    std::lock_guard lock(m_mutex);
    if (!m_samples.empty() && bestForeign < m_samples.back().foreignNs) {
        // The foreign clock went backwards (a step): older samples no longer describe anything
        // that will be converted from now on.
        m_samples.clear();
    }
    m_samples.push_back({bestForeign, bestOffset});
    if (m_samples.size() > kMaxSamples)
        m_samples.erase(m_samples.begin(), m_samples.begin() + kMaxSamples / 4);
}

int64_t ClockOffset::toMonotonic(int64_t foreignNs)
{
    {
        std::lock_guard lock(m_mutex);
        if (!m_samples.empty()) {
            auto it = std::upper_bound(m_samples.begin(), m_samples.end(), foreignNs,
                                       [](int64_t t, const Sample& s) { return t < s.foreignNs; });
            const Sample& s = it == m_samples.begin() ? *it : *(it - 1);
            return foreignNs - s.offset;
        }
    }
    sample();
    return toMonotonic(foreignNs);
}

int64_t ClockOffset::offset()
{
    std::lock_guard lock(m_mutex);
    return m_samples.empty() ? 0 : m_samples.back().offset;
}

size_t ClockOffset::sampleCount()
{
    std::lock_guard lock(m_mutex);
    return m_samples.size();
}

} // namespace ks::collect
