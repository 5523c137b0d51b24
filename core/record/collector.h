#pragma once

#include "core/record/deviceactivity.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace ks::record {

enum class Activity { CPU, CUDA, XPU };
const char* activityName(Activity a);

// A source of device activity plugged into a Profiler (the CUPTI and Level Zero collectors).
// Collectors never throw and never take recording down: when they cannot work they say why.
class ActivityCollector {
public:
    virtual ~ActivityCollector() = default;
    virtual Activity activity() const = 0;
    virtual const char* name() const = 0;
    // Called at prepare_trace; false when unavailable, with the reason in status.
    virtual bool prepare(std::string& status) = 0;
    virtual void start() = 0;
    virtual void stop() = 0;
    // Moves the activities of the window just stopped into out.
    virtual void collect(std::vector<DeviceActivity>& out) = 0;
    // While started: moves out what has arrived since the last call (a live view polls this; GPU
    // records come in batches, one flush period late). Returns how many were added.
    virtual size_t drain(std::vector<DeviceActivity>& out)
    {
        (void)out;
        return 0;
    }
    // Device properties for the trace's "deviceProperties" array (JSON objects), if known.
    virtual std::vector<std::string> deviceProperties() { return {}; }
    // Problems met during the window just stopped (records dropped, the device runtime taken over
    // by another tool...), one line each.
    virtual std::vector<std::string> warnings() { return {}; }
};

// Where a Profiler finds the build's own collector for an activity when the caller brought none.
// The collectors live a layer above (core/collect), so the layers that own a Profiler's process —
// the C ABI, the injection library, a test — install them with collect::installBuiltinCollectors().
// Without a factory (or when it returns null, with the reason in why) the activity is unavailable.
using CollectorFactory = std::function<std::shared_ptr<ActivityCollector>(Activity, std::string& why)>;
void setBuiltinCollectorFactory(CollectorFactory factory);
std::shared_ptr<ActivityCollector> builtinCollector(Activity activity, std::string& why);

} // namespace ks::record
