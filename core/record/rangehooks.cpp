#include "core/record/rangehooks.h"

#include "core/record/api.h"

#include <mutex>

namespace ks::record {

std::atomic<bool> g_rangeHooked{false};

namespace {

constexpr int kMaxListeners = 4;
std::atomic<RangeListener*> g_listeners[kMaxListeners];
std::mutex g_listenersMutex;
// Ids of our ranges start high so they never look like the small per-trace ids torch gives its
// own ops, even when both end up in one view.
std::atomic<int64_t> g_nextId{int64_t(1) << 40};

} // namespace

int64_t hookedRangeBegin(int64_t correlation)
{
    const int64_t id = correlation != 0 ? correlation : g_nextId.fetch_add(1, std::memory_order_relaxed);
    currentBuffer()->pushExternalId(id);
    for (auto& slot : g_listeners)
        if (RangeListener* l = slot.load(std::memory_order_acquire)) l->rangeBegan(id);
    return id;
}

void hookedRangeEnd()
{
    // A range opened before the listeners came has no entry: nothing to end for them.
    const int64_t id = currentBuffer()->popExternalId();
    if (id == 0) return;
    for (auto& slot : g_listeners)
        if (RangeListener* l = slot.load(std::memory_order_acquire)) l->rangeEnded(id);
}

int64_t currentExternalId()
{
    ThreadBuffer* b = t_buffer;
    return b ? b->topExternalId() : 0;
}

bool addRangeListener(RangeListener* listener)
{
    std::lock_guard lock(g_listenersMutex);
    for (auto& slot : g_listeners) {
        if (slot.load() == listener) return true;
    }
    for (auto& slot : g_listeners) {
        if (!slot.load()) {
            slot.store(listener, std::memory_order_release);
            g_rangeHooked.store(true, std::memory_order_release);
            g_beginExtras.fetch_or(kBeginHooked, std::memory_order_release);
            return true;
        }
    }
    return false;
}

void removeRangeListener(RangeListener* listener)
{
    std::lock_guard lock(g_listenersMutex);
    bool any = false;
    for (auto& slot : g_listeners) {
        if (slot.load() == listener) slot.store(nullptr, std::memory_order_release);
        any |= slot.load() != nullptr;
    }
    g_rangeHooked.store(any, std::memory_order_release);
    if (!any) g_beginExtras.fetch_and(uint8_t(~kBeginHooked), std::memory_order_release);
}

} // namespace ks::record
