#include "core/analysis/summary/sortkey.h"

#include <algorithm>

namespace ks {

namespace {

struct Named {
    const char* name;
    SortKey key;
};

constexpr Named kKeys[] = {
    {"cpu_time", SortKey::CpuTime},
    {"cpu_time_total", SortKey::CpuTimeTotal},
    {"self_cpu_time_total", SortKey::SelfCpuTimeTotal},
    {"device_time", SortKey::DeviceTime},
    {"device_time_total", SortKey::DeviceTimeTotal},
    {"self_device_time_total", SortKey::SelfDeviceTimeTotal},
    {"cpu_memory_usage", SortKey::CpuMemoryUsage},
    {"self_cpu_memory_usage", SortKey::SelfCpuMemoryUsage},
    {"device_memory_usage", SortKey::DeviceMemoryUsage},
    {"self_device_memory_usage", SortKey::SelfDeviceMemoryUsage},
    {"count", SortKey::Count},
    {"flops", SortKey::Flops},
};

template <typename Field>
void sortBy(std::vector<KeyAverage>& rows, Field field)
{
    std::stable_sort(rows.begin(), rows.end(),
                     [&field](const KeyAverage& a, const KeyAverage& b) { return field(b) < field(a); });
}

} // namespace

bool parseSortKey(std::string_view name, SortKey& out)
{
    std::string n(name);
    for (const char* dev : {"privateuse1", "cuda", "xpu"}) {
        const size_t at = n.find(dev);
        if (at != std::string::npos) {
            n.replace(at, std::string_view(dev).size(), "device");
            break;
        }
    }
    for (const Named& k : kKeys) {
        if (n == k.name) {
            out = k.key;
            return true;
        }
    }
    return false;
}

std::vector<std::string> sortKeyNames()
{
    std::vector<std::string> names;
    for (const Named& k : kKeys)
        names.emplace_back(k.name);
    return names;
}

void sortKeyAverages(std::vector<KeyAverage>& rows, SortKey key)
{
    switch (key) {
    case SortKey::None:
        return;
    case SortKey::CpuTime:
        return sortBy(rows, [](const KeyAverage& r) { return r.cpuTime(); });
    case SortKey::CpuTimeTotal:
        return sortBy(rows, [](const KeyAverage& r) { return r.cpuTimeTotal; });
    case SortKey::SelfCpuTimeTotal:
        return sortBy(rows, [](const KeyAverage& r) { return r.selfCpuTimeTotal; });
    case SortKey::DeviceTime:
        return sortBy(rows, [](const KeyAverage& r) { return r.deviceTime(); });
    case SortKey::DeviceTimeTotal:
        return sortBy(rows, [](const KeyAverage& r) { return r.deviceTimeTotal; });
    case SortKey::SelfDeviceTimeTotal:
        return sortBy(rows, [](const KeyAverage& r) { return r.selfDeviceTimeTotal; });
    case SortKey::CpuMemoryUsage:
        return sortBy(rows, [](const KeyAverage& r) { return r.cpuMemoryUsage; });
    case SortKey::SelfCpuMemoryUsage:
        return sortBy(rows, [](const KeyAverage& r) { return r.selfCpuMemoryUsage; });
    case SortKey::DeviceMemoryUsage:
        return sortBy(rows, [](const KeyAverage& r) { return r.deviceMemoryUsage; });
    case SortKey::SelfDeviceMemoryUsage:
        return sortBy(rows, [](const KeyAverage& r) { return r.selfDeviceMemoryUsage; });
    case SortKey::Count:
        return sortBy(rows, [](const KeyAverage& r) { return r.count; });
    case SortKey::Flops:
        return sortBy(rows, [](const KeyAverage& r) { return r.flops; });
    }
}

} // namespace ks
