#include "core/record/deviceconverter.h"

#include <algorithm>
#include <string_view>

namespace ks::record {

namespace {

const char* defaultCategory(DeviceActivity::Kind k)
{
    using K = DeviceActivity::Kind;
    switch (k) {
    case K::Kernel:
        return "kernel";
    case K::Memcpy:
        return "gpu_memcpy";
    case K::Memset:
        return "gpu_memset";
    case K::Sync:
        return "cuda_sync";
    case K::Runtime:
        return "cuda_runtime";
    case K::Driver:
        return "cuda_driver";
    case K::Overhead:
        return "overhead";
    case K::Range:
        return "user_annotation";
    case K::Mark:
        return "user_mark";
    case K::Memory:
        return "cpu_instant_event";
    }
    return "kernel";
}

} // namespace

void DeviceConverter::add(uint64_t pid, const DeviceActivity& a)
{
    using K = DeviceActivity::Kind;
    if (a.kind == K::Memory) {
        addMemory(pid, a);
        return;
    }
    const bool onDevice =
        a.kind == K::Kernel || a.kind == K::Memcpy || a.kind == K::Memset || a.kind == K::Sync;
    const uint64_t p = onDevice ? uint64_t(a.device) : (a.kind == K::Overhead ? uint64_t(-1) : pid);
    const uint64_t t = onDevice ? uint64_t(a.stream) : (a.kind == K::Overhead ? 0 : a.hostTid);
    if (onDevice) m_rows[{a.device, a.stream}] = a.backend;
    if (a.kind == K::Overhead) m_overhead = true;
    const int64_t startFile = m_out.fileNsOfClockNs(a.startNs);
    RawEvent e;
    e.ph = a.kind == K::Mark ? 'i' : 'X';
    e.scope = 't';
    e.ts = startFile;
    e.hasTs = true;
    e.dur = a.kind == K::Mark ? -1 : std::max<int64_t>(0, a.endNs - a.startNs);
    e.pidNum = int64_t(p);
    e.tidNum = int64_t(t);
    e.hasPid = e.hasTid = true;
    e.name = m_out.local(a.name);
    e.cat = m_out.local(a.category.empty() ? std::string_view(defaultCategory(a.kind))
                                           : std::string_view(a.category));
    ArgShard& shard = m_out.shard();
    shard.begin();
    if (a.ownArgs) {
        // Kineto writes the linked op's id first, then the activity's own metadata.
        if (a.externalId != 0) shard.addInt("External id", a.externalId);
    } else {
        if (onDevice) {
            shard.addInt("device", a.device);
            shard.addInt("stream", a.stream);
        }
        if (a.correlation != 0) shard.addInt("correlation", a.correlation);
        if (a.externalId != 0) shard.addInt("External id", a.externalId);
    }
    if (a.correlation != 0) e.correlation = a.correlation;
    if (a.externalId != 0) e.externalId = a.externalId;
    for (const DeviceArg& d : a.args) {
        switch (d.type) {
        case DeviceArg::Type::Int:
            shard.addInt(d.key, d.i);
            break;
        case DeviceArg::Type::Double:
            shard.addDouble(d.key, d.d);
            break;
        case DeviceArg::Type::String:
            shard.addString(d.key, d.text);
            break;
        case DeviceArg::Type::Json:
            shard.addJson(d.key, d.text);
            break;
        }
    }
    e.args = shard.finish();
    m_out.push(e);
    // Launch -> GPU work arrows, as Kineto writes them: 's' on the launching call, 'f' with
    // "bp": "e" on the kernel, both with the correlation id.
    if (a.correlation != 0 && ((onDevice && a.kind != K::Sync) || a.flowStart)) {
        RawEvent f;
        f.ph = onDevice ? 'f' : 's';
        f.bindEnclosing = onDevice;
        f.ts = startFile;
        f.hasTs = true;
        f.pidNum = e.pidNum;
        f.tidNum = e.tidNum;
        f.hasPid = f.hasTid = true;
        f.flowId = uint64_t(a.correlation);
        f.hasId = true;
        f.cat = m_out.local("ac2g");
        f.name = m_out.local("ac2g");
        m_out.push(f);
    }
}

// Names the device rows the way Kineto does: one process per device labelled "GPU <n>" and sorted
// after the host processes, one thread per stream ("stream <n> "; "Stream <n>" for XPU queues), and
// the CUPTI overhead process.
void DeviceConverter::addRowsMeta(const std::string& processName)
{
    std::map<int32_t, DeviceActivity::Backend> devices;
    for (const auto& [row, backend] : m_rows)
        devices.emplace(row.first, backend);
    for (const auto& [device, backend] : devices) {
        const uint64_t p = uint64_t(int64_t(device));
        const char* label = backend == DeviceActivity::Backend::Xpu ? "XPU " : "GPU ";
        m_out.addMeta(p, 0, "process_name", "name", processName, false);
        m_out.addMeta(p, 0, "process_labels", "labels", label + std::to_string(device), false);
        m_out.addMetaInt(p, 0, "process_sort_index", 16777216 + int64_t(device), false);
    }
    for (const auto& [row, backend] : m_rows) {
        const uint64_t p = uint64_t(int64_t(row.first));
        const uint64_t t = uint64_t(row.second);
        const std::string name = backend == DeviceActivity::Backend::Xpu
                                     ? "Stream " + std::to_string(row.second)
                                     : "stream " + std::to_string(row.second) + " ";
        m_out.addMeta(p, t, "thread_name", "name", name);
        m_out.addMetaInt(p, t, "thread_sort_index", row.second);
    }
    if (m_overhead) {
        m_out.addMeta(uint64_t(-1), 0, "process_name", "name", "CUPTI Overhead", false);
        m_out.addMetaInt(uint64_t(-1), 0, "process_sort_index", -1, false);
    }
}

// A device allocation reported by a collector: kept in the same per-device running totals as the
// recorder's own allocation records.
void DeviceConverter::addMemory(uint64_t pid, const DeviceActivity& a)
{
    const uint8_t type = a.backend == DeviceActivity::Backend::Xpu ? 20 : 1;
    const int64_t bytes =
        m_out.updateTotals(type, int16_t(a.device), a.address, a.bytes > 0, a.bytes > 0 ? a.bytes : -a.bytes);
    RawEvent e;
    e.ph = 'i';
    e.ts = m_out.fileNsOfClockNs(a.startNs);
    e.hasTs = true;
    e.pidNum = int64_t(pid);
    e.tidNum = int64_t(a.hostTid);
    e.hasPid = e.hasTid = true;
    m_out.addMemoryEvent(e, type, int16_t(a.device), a.address, bytes);
}

} // namespace ks::record
