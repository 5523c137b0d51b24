#include "core/collect/zetimestamps.h"

#include <cmath>

namespace ks::collect {

void ZeTimestamps::configure(double nsPerTick, uint32_t kernelBits)
{
    std::lock_guard lock(m_mutex);
    m_nsPerTick = nsPerTick > 0 ? nsPerTick : 1.0;
    m_mask = kernelBits == 0 || kernelBits >= 64 ? ~uint64_t(0) : (uint64_t(1) << kernelBits) - 1;
}

void ZeTimestamps::addSync(int64_t monotonicNs, uint64_t deviceTicks)
{
    std::lock_guard lock(m_mutex);
    m_syncNs = monotonicNs;
    m_syncTicks = deviceTicks;
    m_synced = true;
}

bool ZeTimestamps::synced() const
{
    std::lock_guard lock(m_mutex);
    return m_synced;
}

double ZeTimestamps::wrapNs() const
{
    std::lock_guard lock(m_mutex);
    return (double(m_mask) + 1.0) * m_nsPerTick;
}

void ZeTimestamps::toMonotonic(uint64_t startTicks, uint64_t endTicks, int64_t& startNs, int64_t& endNs) const
{
    std::lock_guard lock(m_mutex);
    // Signed distance from the sync point, the short way round the counter's wrap.
    uint64_t delta = (startTicks - m_syncTicks) & m_mask;
    int64_t signedDelta = int64_t(delta);
    if (m_mask != ~uint64_t(0) && delta > m_mask / 2) signedDelta = -int64_t((m_mask + 1) - delta);
    startNs = m_syncNs + int64_t(std::llround(double(signedDelta) * m_nsPerTick));
    const uint64_t length = (endTicks - startTicks) & m_mask;
    endNs = startNs + int64_t(std::llround(double(length) * m_nsPerTick));
}

} // namespace ks::collect
