#include "core/analysis/summary/stackexport.h"

#include "core/analysis/summary/backwardstacks.h"
#include "core/analysis/summary/eventmapping.h"
#include "core/analysis/summary/functioneventlist.h"
#include "core/analysis/summary/lanemerge.h"
#include "core/util/atomicfile.h"

#include <cmath>
#include <vector>

namespace ks {

namespace {

// torch's _filter_stack_entry: frames of the autograd machinery and of its own test helpers.
bool filteredFrame(std::string_view f)
{
    auto has = [f](std::string_view s) { return f.find(s) != std::string_view::npos; };
    if (has("autograd/__init__") && (has("_make_grads") || has("backward"))) return true;
    if (has("torch/tensor") && has("backward")) return true;
    if (has("_internal/common_utils") &&
        (has("prof_callable") || has("prof_func_call") || has("prof_meth_call")))
        return true;
    return false;
}

void appendFrame(std::string& out, std::string_view f)
{
    for (char c : f)
        out.push_back(c == ' ' || c == ';' || c == '\t' || c == '\n' ? '_' : c);
}

} // namespace

void sliceStack(const Trace& trace, SliceRef ref, std::vector<std::string_view>& frames, bool pythonFrames)
{
    frames.clear();
    const SliceTrack& s = trace.slices(ref.track);
    ArgValue stack;
    if (trace.args().find(s.args(ref.index), "Call stack", stack) && stack.type == ArgType::String &&
        !stack.text.empty()) {
        std::string_view t = stack.text;
        while (!t.empty()) {
            const size_t semi = t.find(';');
            const std::string_view f = t.substr(0, semi);
            if (!f.empty() && !filteredFrame(f)) frames.push_back(f);
            if (semi == std::string_view::npos) break;
            t.remove_prefix(semi + 1);
        }
        return;
    }
    if (!pythonFrames) return;
    for (int64_t p = s.parent(ref.index); p >= 0; p = s.parent(size_t(p))) {
        if (trace.kindOf(s.category(size_t(p))) != EventKind::PythonFunction) continue;
        const std::string_view f = trace.str(s.name(size_t(p)));
        if (!filteredFrame(f)) frames.push_back(f);
    }
}

bool stacksText(const Trace& trace, std::string_view metric, std::string& out, std::string* error)
{
    bool device = false;
    if (metric == "self_cuda_time_total" || metric == "self_xpu_time_total" ||
        metric == "self_privateuse1_time_total" || metric == "self_device_time_total")
        device = true;
    else if (metric != "self_cpu_time_total") {
        if (error)
            *error = "metric should be one of: ['self_cpu_time_total', 'self_cuda_time_total', "
                     "'self_xpu_time_total', 'self_privateuse1_time_total']";
        return false;
    }
    out.clear();
    const EventMapping mapping(trace);
    EventListOptions o;
    o.withSliceRows = true;
    const auto list = FunctionEventList::build(trace, mapping, o);
    std::vector<uint32_t> cpuLanes;
    for (uint32_t i = 0; i < list->lanes().size(); ++i)
        if (list->lanes()[i].kind == FunctionEventList::LaneKind::Cpu) cpuLanes.push_back(i);
    std::vector<std::string_view> frames;
    const BackwardStacks backward(trace, *list);
    mergeLanes(
        *list, cpuLanes, [](uint32_t) { return true; },
        [&](uint32_t g) {
            double value;
            if (device)
                value = list->deviceUs.allocated() ? list->selfDeviceUs[g] : 0.0;
            else
                value = list->selfCpuUs[g];
            const double truncated = std::trunc(value);
            if (!(truncated > 0)) return;
            backward.stackOf(g, frames);
            if (frames.empty()) return;
            for (size_t i = frames.size(); i-- > 0;) {
                appendFrame(out, frames[i]);
                if (i) out.push_back(';');
            }
            out.push_back(' ');
            out += std::to_string(int64_t(truncated));
            out.push_back('\n');
        });
    return true;
}

bool exportStacks(const Trace& trace, const std::string& path, std::string_view metric, std::string* error)
{
    std::string text;
    if (!stacksText(trace, metric, text, error)) return false;
    AtomicFile f(path);
    if (!f.open() || !f.write(text) || !f.commit()) {
        if (error) *error = f.error();
        return false;
    }
    return true;
}

} // namespace ks
