#pragma once

#include "core/record/deviceactivity.h"

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace ks::collect {

// Joins device activities to the host side before they leave a collector:
//  - GPU work and API calls get the "External id" of the range that was open when the API call
//    was made (from external-correlation records, which CUPTI writes just before the API record);
//  - device allocations get the thread of the API call that made them;
//  - GPU work is held back until the API record with its correlation id has arrived, so a live
//    view never shows a kernel whose launch arrow appears only later. Buffers are delivered per
//    thread and in no particular order, so this happens. After kMaxHold drains it is let go
//    anyway (its launch may have been dropped or lie outside the window).
// Not thread-safe: the owner serialises calls.
class CorrelationJoin {
public:
    static constexpr int kMaxHold = 8;
    // Correlations older than this many drains are forgotten (API calls that never produced GPU
    // work would otherwise pile up).
    static constexpr int kForgetAfter = 64;

    void addExternal(int64_t correlation, int64_t externalId);
    void add(record::DeviceActivity a);
    // Moves every activity that is ready into out, in arrival order; final releases everything.
    void drain(std::vector<record::DeviceActivity>& out, bool final);
    size_t held() const { return m_held.size(); }
    void clear();

private:
    struct Api {
        uint64_t hostTid = 0;
        uint64_t generation = 0;
    };
    struct External {
        int64_t id = 0;
        uint64_t generation = 0;
    };
    struct Held {
        record::DeviceActivity activity;
        int age = 0;
    };

    void link(record::DeviceActivity& a) const;
    void forgetOld();

    std::vector<record::DeviceActivity> m_incoming;
    std::vector<Held> m_held;
    std::unordered_map<int64_t, External> m_external;
    std::unordered_map<int64_t, Api> m_apis;
    uint64_t m_generation = 0;
};

} // namespace ks::collect
