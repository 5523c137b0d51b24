#include "core/live/liveingest.h"
#include "core/live/liveingeststate.h"
#include "core/record/recordtypes.h"

#include <algorithm>

// LiveIngest's device frames (GPU activity from the collectors) and the memory events that both
// allocator records and device allocations become.

namespace ks::live {

using record::RecordType;

void LiveIngest::applyDevice(Conn& c, DeviceFrame& d)
{
    std::vector<record::DeviceActivity>& acts = d.activities;
    std::stable_sort(acts.begin(), acts.end(),
                     [](const record::DeviceActivity& a, const record::DeviceActivity& b) {
                         return a.startNs < b.startNs;
                     });
    using K = record::DeviceActivity::Kind;
    for (const record::DeviceActivity& a : acts) {
        if (overBudget()) {
            ++m_counters.overBudget;
            continue;
        }
        if (a.kind == K::Memory) {
            // Device allocations (CUPTI MEMORY2) join the allocator records of the thread that
            // made them, as windows write them.
            WireRecord r{};
            r.timeNs = a.startNs;
            r.type = uint8_t(a.bytes > 0 ? RecordType::Alloc : RecordType::Free);
            r.deviceType = a.backend == record::DeviceActivity::Backend::Xpu ? 20 : 1;
            r.deviceIndex = int16_t(a.device);
            r.a = a.address;
            r.b = a.bytes > 0 ? a.bytes : -a.bytes;
            const TimeNs t = toTrace(a.startNs);
            memory(c, thread(c, a.hostTid), r, t);
            seen(t);
            continue;
        }
        const bool onDevice =
            a.kind == K::Kernel || a.kind == K::Memcpy || a.kind == K::Memset || a.kind == K::Sync;
        const char* defaultCat = "kernel";
        switch (a.kind) {
        case K::Kernel:
            defaultCat = "kernel";
            break;
        case K::Memcpy:
            defaultCat = "gpu_memcpy";
            break;
        case K::Memset:
            defaultCat = "gpu_memset";
            break;
        case K::Sync:
            defaultCat = "cuda_sync";
            break;
        case K::Runtime:
            defaultCat = "cuda_runtime";
            break;
        case K::Driver:
            defaultCat = "cuda_driver";
            break;
        case K::Overhead:
            defaultCat = "overhead";
            break;
        case K::Range:
            defaultCat = "user_annotation";
            break;
        case K::Mark:
            defaultCat = "user_mark";
            break;
        case K::Memory: // handled above
            break;
        }
        const StringId cat = m_trace.internCategory(a.category.empty() ? std::string_view(defaultCat)
                                                                       : std::string_view(a.category));
        const StringId name = m_trace.strings().intern(a.name);
        m_shard.begin();
        if (onDevice) {
            m_shard.addInt("device", a.device);
            m_shard.addInt("stream", a.stream);
        }
        if (a.correlation != 0) m_shard.addInt("correlation", a.correlation);
        if (a.externalId != 0) m_shard.addInt("External id", a.externalId);
        for (const record::DeviceArg& d : a.args) {
            switch (d.type) {
            case record::DeviceArg::Type::Int:
                m_shard.addInt(d.key, d.i);
                break;
            case record::DeviceArg::Type::Double:
                m_shard.addDouble(d.key, d.d);
                break;
            case record::DeviceArg::Type::String:
                m_shard.addString(d.key, d.text);
                break;
            case record::DeviceArg::Type::Json:
                m_shard.addJson(d.key, d.text);
                break;
            }
        }
        const ArgsRef args = m_shard.finish();
        const TimeNs start = toTrace(a.startNs);
        const TimeNs dur = liveDuration(start, toTrace(a.endNs));
        TrackId track;
        if (onDevice) {
            const ProcessId p = m_trace.findOrAddProcess(RowKey::fromNumber(a.device), ProcessKind::Gpu);
            track = m_tracks.get(p, RowKey::fromNumber(a.stream), TrackKind::GpuStream,
                                 LiveTracks::Purpose::Device, std::string());
            m_trace.track(track).stream = a.stream;
        } else if (a.kind == K::Overhead) {
            const ProcessId p = m_trace.findOrAddProcess(RowKey::fromNumber(-1), ProcessKind::Overhead);
            track = m_tracks.get(p, RowKey::fromNumber(0), TrackKind::Other, LiveTracks::Purpose::Device,
                                 "Overhead");
        } else {
            const bool nvtx = a.kind == K::Range || a.kind == K::Mark;
            track = m_tracks.get(c.process, RowKey::fromNumber(int64_t(a.hostTid)), TrackKind::CpuThread,
                                 LiveTracks::Purpose::DeviceApi,
                                 (nvtx ? "NVTX · thread " : "GPU API · thread ") + std::to_string(a.hostTid));
        }
        if (a.kind == K::Mark) {
            Track& tr = m_trace.track(track);
            if (tr.instants.empty() || tr.instants.back().ts <= start)
                tr.instants.push_back(InstantEvent{start, name, cat, args, 't'});
        } else {
            const SliceRef ref = m_tracks.appendClosed(track, start, dur, name, cat, args);
            if (ref.valid() && (a.correlation != 0 || a.externalId != 0))
                m_trace.linkIds().push_back(SliceLinkIds{ref, a.externalId != 0 ? a.externalId : -1,
                                                         a.correlation != 0 ? a.correlation : -1});
            if (ref.valid()) {
                ++m_counters.slices;
                m_counters.deviceSlices += onDevice;
            }
        }
        m_approxBytes += kIngestSliceBytes;
        seen(start);
        seen(start + dur);
    }
    m_counters.events += acts.size();
    m_counters.late = m_tracks.late();
}

void LiveIngest::memory(Conn& c, ThreadState& ts, const WireRecord& r, TimeNs t)
{
    const auto device = std::make_pair(int(r.deviceType), int(r.deviceIndex));
    int64_t& total = c.totals[device];
    int64_t bytes = r.b;
    const auto key = std::make_tuple(device.first, device.second, r.a);
    if (r.type == uint8_t(RecordType::Alloc)) {
        c.allocations[key] = bytes;
        total = addSaturated(total, bytes);
    } else {
        auto it = c.allocations.find(key);
        if (it != c.allocations.end()) {
            if (bytes == 0) bytes = it->second;
            c.allocations.erase(it);
        }
        bytes = negateSaturated(bytes);
        total = addSaturated(total, bytes);
    }
    MemoryEvent e;
    e.ts = t;
    e.track = ts.track;
    e.name = m_nameMemory;
    e.category = m_catMemory;
    e.deviceType = r.deviceType;
    e.deviceId = r.deviceIndex;
    e.hasAddr = true;
    e.addr = r.a;
    e.bytes = bytes;
    e.totalAllocated = total;
    m_shard.begin();
    m_shard.addInt("Total Allocated", total);
    m_shard.addInt("Bytes", bytes);
    m_shard.addUInt("Addr", r.a);
    m_shard.addInt("Device Id", r.deviceIndex);
    m_shard.addInt("Device Type", r.deviceType);
    e.args = m_shard.finish();
    m_trace.memoryEvents().push_back(e);
    m_approxBytes += kIngestOtherBytes;
}

} // namespace ks::live
