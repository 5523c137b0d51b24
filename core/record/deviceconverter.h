#pragma once

#include "core/record/deviceactivity.h"
#include "core/record/windowemitter.h"

#include <cstdint>
#include <map>
#include <string>
#include <utility>

namespace ks::record {

// Turns the GPU work, launches, NVTX/ITT ranges and device allocations that collectors reported for a
// window into events laid out as Kineto writes them: one process per device, one thread per stream,
// launch → kernel arrows, and the CUPTI overhead process.
class DeviceConverter {
public:
    explicit DeviceConverter(WindowEmitter& out) : m_out(out) {}

    void add(uint64_t pid, const DeviceActivity& a);
    // The metadata naming the device rows that add() used; call once after the last add().
    void addRowsMeta(const std::string& processName);

private:
    void addMemory(uint64_t pid, const DeviceActivity& a);

    WindowEmitter& m_out;
    std::map<std::pair<int32_t, int64_t>, DeviceActivity::Backend> m_rows; // (device, stream)
    bool m_overhead = false;
};

} // namespace ks::record
