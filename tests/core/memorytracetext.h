#pragma once

// Builds small Kineto-style trace JSON for the memory tests: ops as complete events and allocator
// events as "[memory]" instants, with times in microseconds as the file format has them.

#include "core/io/tracereader.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ks::test {

class TraceText {
public:
    // A complete event; args is extra JSON members for "args" (without braces), e.g.
    // "\"Fwd thread id\": 1".
    TraceText& op(const std::string& name, int64_t ts, int64_t dur, const std::string& cat = "cpu_op",
                  int tid = 1, const std::string& args = {})
    {
        std::string a = "\"External id\": " + std::to_string(++m_ids);
        if (!args.empty()) a += ", " + args;
        m_events.push_back("{\"ph\": \"X\", \"cat\": \"" + cat + "\", \"name\": \"" + name +
                           "\", \"pid\": 1, \"tid\": " + std::to_string(tid) +
                           ", \"ts\": " + std::to_string(ts) + ", \"dur\": " + std::to_string(dur) +
                           ", \"args\": {" + a + "}}");
        return *this;
    }
    TraceText& annotation(const std::string& name, int64_t ts, int64_t dur, int tid = 1)
    {
        return op(name, ts, dur, "user_annotation", tid);
    }
    TraceText& python(const std::string& name, int64_t ts, int64_t dur, int tid = 1)
    {
        return op(name, ts, dur, "python_function", tid);
    }
    // An allocator event; addr 0 leaves "Addr" out (as 2021 traces do), total < 0 leaves the totals out.
    TraceText& mem(int64_t ts, int64_t bytes, uint64_t addr, int deviceType = 1, int deviceId = 0,
                   int tid = 1, int64_t totalAllocated = -1, int64_t totalReserved = -1)
    {
        std::string a = "\"Device Type\": " + std::to_string(deviceType) +
                        ", \"Device Id\": " + std::to_string(deviceId) +
                        ", \"Bytes\": " + std::to_string(bytes);
        if (addr) a += ", \"Addr\": " + std::to_string(addr);
        if (totalAllocated >= 0) a += ", \"Total Allocated\": " + std::to_string(totalAllocated);
        if (totalReserved >= 0) a += ", \"Total Reserved\": " + std::to_string(totalReserved);
        m_events.push_back(
            "{\"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"s\": \"t\", \"name\": \"[memory]\", "
            "\"pid\": 1, \"tid\": " +
            std::to_string(tid) + ", \"ts\": " + std::to_string(ts) + ", \"args\": {" + a + "}}");
        return *this;
    }
    TraceText& raw(const std::string& event)
    {
        m_events.push_back(event);
        return *this;
    }
    TraceText& baseTime(int64_t ns)
    {
        m_base = ns;
        return *this;
    }

    std::string json() const
    {
        std::string s = "{\"schemaVersion\": 1, ";
        if (m_base >= 0) s += "\"baseTimeNanoseconds\": " + std::to_string(m_base) + ", ";
        s += "\"traceEvents\": [";
        for (size_t i = 0; i < m_events.size(); ++i)
            s += (i ? ",\n" : "\n") + m_events[i];
        s += "\n]}";
        return s;
    }

    std::unique_ptr<Trace> load() const
    {
        LoadResult r = loadTraceData(json());
        return std::move(r.trace);
    }

private:
    std::vector<std::string> m_events;
    int64_t m_ids = 0;
    int64_t m_base = -1;
};

// The shared traces that hold "[memory]" events (INDEX.md numbers 2, 27, 28, 31, 39).
// Three ops with four allocations and frees on CUDA and the CPU: the small trace of the memory
// view's and table models' tests.
inline std::unique_ptr<Trace> smallMemoryTrace()
{
    return TraceText()
        .op("aten::empty", 10, 10)
        .op("aten::relu", 50, 10)
        .op("aten::mul", 100, 10)
        .mem(12, 1024, 0x100, 1, 0, 1, 1024, 2048)
        .mem(52, 4096, 0x200, 1, 0, 1, 5120, 8192)
        .mem(55, -1024, 0x100, 1, 0, 1, 4096, 8192)
        .mem(102, 64, 0x300, 0, -1)
        .load();
}

inline std::vector<std::string> sharedMemoryTraces()
{
    const std::string dir = KS_SHARED_TRACES;
    return {
        dir + "/pytorch_kineto__tb_plugin__samples__resnet50_num_workers_0__worker0.1623143089861.pt.trace."
              "json.gz",
        dir + "/AMD-AGI_TraceLens__tests__traces__h100__gaunernst_bert-small-uncased__1016001.json.gz",
        dir + "/AMD-AGI_TraceLens__tests__traces__h100__Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz",
        dir + "/AMD-AGI_TraceLens__tests__traces__mi300__ddp_resnet18_no_pool__train_resnet18.json.gz",
        dir +
            "/AMD-AGI_TraceLens__tests__traces__perf_model__normalization__normalization_layer_test.json.gz",
    };
}

} // namespace ks::test
