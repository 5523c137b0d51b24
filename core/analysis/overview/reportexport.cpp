#include "core/analysis/overview/reportexport.h"

#include "core/analysis/overview/overviewexport.h"
#include "core/analysis/overview/overviewjson.h"
#include "core/util/textescape.h"

#include <cstdio>

namespace ks {

namespace {

double ms(double ns)
{
    return ns / 1e6;
}

nlohmann::ordered_json stepsJson(const StepBreakdown& b)
{
    using J = nlohmann::ordered_json;
    J steps = J::array();
    for (const StepCosts& s : b.steps) {
        J row;
        row["step"] = s.name;
        row["start_ms"] = ms(double(s.start));
        row["duration_ms"] = ms(double(s.total()));
        for (size_t c = 0; c < kStepCategoryCount; ++c)
            row[stepCategoryName(StepCategory(c))] = ms(double(s.cost[c]));
        steps.push_back(std::move(row));
    }
    J avg;
    for (size_t c = 0; c < kStepCategoryCount; ++c)
        avg[stepCategoryName(StepCategory(c))] = ms(b.average[c]);
    avg["Total"] = ms(b.averageTotal);
    J out;
    out["unit"] = "ms";
    out["device_steps"] = b.onDevice;
    out["whole_trace"] = b.wholeTrace;
    out["tail_steps_removed"] = b.tailStepsRemoved;
    out["average"] = std::move(avg);
    out["steps"] = std::move(steps);
    return out;
}

} // namespace

std::string overviewReportJson(const OverviewReport& r)
{
    using J = nlohmann::ordered_json;
    J j = overviewJsonValue(r.gpu);
    j["step_breakdown"] = stepsJson(r.steps);
    J idle = J::array();
    for (const StreamIdle& s : r.idle) {
        J row;
        row["device"] = s.device;
        row["stream"] = s.stream;
        for (size_t c = 0; c < kIdleCategoryCount; ++c)
            row[std::string(idleCategoryName(IdleCategory(c))) + "_ms"] = ms(double(s.time[c]));
        idle.push_back(std::move(row));
    }
    j["idle_time"] = std::move(idle);
    J launches;
    launches["count"] = r.launches.launches.size();
    launches["cpu_total_ms"] = ms(double(r.launches.cpuTotal));
    launches["gpu_total_ms"] = ms(double(r.launches.gpuTotal));
    launches["launch_delay_total_ms"] = ms(double(r.launches.delayTotal));
    launches["gpu_shorter_than_launch"] = r.launches.shorterThanLaunch;
    launches["long_runtime_calls"] = r.launches.longCalls;
    launches["long_launch_delays"] = r.launches.longDelays;
    j["launch_stats"] = std::move(launches);
    J device;
    device["name"] = r.deviceName;
    if (r.peak) {
        device["peak"] = r.peak->name;
        device["tflops_bf16"] = r.peak->tflopsBf16;
        device["tflops_fp32"] = r.peak->tflopsFp32;
        device["memory_tbps"] = r.peak->memoryTBps;
    }
    j["device"] = std::move(device);
    J roof = J::array();
    for (const RooflinePoint& p : r.roofline) {
        J row;
        row["sheet"] = p.sheet;
        row["op"] = p.label;
        row["flops_per_byte"] = p.flopsPerByte;
        row["tflops_per_s"] = p.tflopsPerS;
        if (p.roofTflops > 0) {
            row["roof_tflops_per_s"] = p.roofTflops;
            row["fraction_of_roof"] = p.fractionOfRoof();
        }
        row["kernel_us"] = p.kernelUs;
        row["calls"] = p.calls;
        roof.push_back(std::move(row));
    }
    j["roofline"] = std::move(roof);
    J findings = J::array();
    for (const Finding& f : r.findings) {
        J row;
        row["title"] = f.title;
        row["detail"] = f.detail;
        row["weight"] = f.weight;
        row["events"] = f.events.size();
        findings.push_back(std::move(row));
    }
    j["findings"] = std::move(findings);
    return dumpJson(j, 1) + "\n";
}

std::string overviewReportText(const OverviewReport& r, size_t rowLimit)
{
    std::string o;
    char buf[512];
    o += "Findings\n";
    if (r.findings.empty()) o += "  nothing crossed a finding's threshold\n";
    for (const Finding& f : r.findings) {
        o += "  - " + f.title + "\n      " + f.detail + "\n";
    }
    const StepBreakdown& b = r.steps;
    if (!b.steps.empty()) {
        std::snprintf(buf, sizeof buf, "\nStep time breakdown (%s%zu step%s, mean %.3f ms%s)\n",
                      b.wholeTrace ? "no ProfilerStep: whole trace as " : "", b.steps.size(),
                      b.steps.size() == 1 ? "" : "s", ms(b.averageTotal),
                      b.onDevice ? ", spans include the GPU work each step launched" : "");
        o += buf;
        for (size_t c = 0; c < kStepCategoryCount; ++c) {
            std::snprintf(buf, sizeof buf, "  %-14s %10.3f ms %7.2f %%\n", stepCategoryName(StepCategory(c)),
                          ms(b.average[c]), b.averageTotal > 0 ? 100 * b.average[c] / b.averageTotal : 0.0);
            o += buf;
        }
    }
    if (!r.idle.empty()) {
        o += "\nGPU idle time by stream (HTA: host wait, kernel wait, other)\n";
        for (const StreamIdle& s : r.idle) {
            std::snprintf(buf, sizeof buf, "  device %d stream %lld  %10.3f ms %10.3f ms %10.3f ms\n",
                          s.device, (long long)s.stream, ms(double(s.time[0])), ms(double(s.time[1])),
                          ms(double(s.time[2])));
            o += buf;
        }
    }
    if (r.peak) {
        std::snprintf(buf, sizeof buf,
                      "\nDevice: %s -> peaks of %s (%.0f TFLOPS/s BF16, %.1f TFLOPS/s FP32, %.2f TB/s)\n",
                      r.deviceName.empty() ? "(given)" : r.deviceName.c_str(), r.peak->name.c_str(),
                      r.peak->tflopsBf16, r.peak->tflopsFp32, r.peak->memoryTBps);
        o += buf;
    } else if (!r.deviceName.empty()) {
        o += "\nDevice: " + r.deviceName + " (not in the peak table; give --device-peak for % of peak)\n";
    }
    o += '\n';
    o += overviewText(r.gpu, rowLimit);
    // Op, kernel and device names come from the trace: no control byte of theirs reaches a terminal.
    return escapeText(o, true);
}

} // namespace ks
