// The C ABI over ks::record (see kinetoscope.h). Every entry point catches exceptions: nothing may
// unwind into C or Python callers.

#include "core/analysis/summary/sortkey.h"
#include "core/collect/collectors.h"
#include "core/live/streamsender.h"
#include "core/record/api.h"
#include "core/record/profiler.h"
#include "core/util/jsonvalidate.h"
#include "kinetoscope.h"
#include "profilerhandle.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>

using namespace ks::record;

namespace {

thread_local std::string t_error;

int failWith(const std::string& msg)
{
    t_error = msg;
    return -1;
}

template <typename Fn>
int guarded(Fn&& fn)
{
    try {
        fn();
        t_error.clear();
        return 0;
    } catch (const std::exception& e) {
        return failWith(e.what());
    } catch (...) {
        return failWith("unknown error");
    }
}

char* copyString(const std::string& s)
{
    char* out = static_cast<char*>(std::malloc(s.size() + 1));
    if (out) std::memcpy(out, s.c_str(), s.size() + 1);
    return out;
}

ProfilerOptions parseOptions(const char* text)
{
    ProfilerOptions o;
    if (!text || !*text) return o;
    const nlohmann::json j = nlohmann::json::parse(text);
    if (!j.is_object()) throw std::invalid_argument("options must be a JSON object");
    for (auto it = j.begin(); it != j.end(); ++it) {
        const std::string& k = it.key();
        if (k == "activities") {
            o.activities.clear();
            for (const auto& a : it.value()) {
                std::string s = a.get<std::string>();
                for (char& c : s)
                    c = char(std::tolower(static_cast<unsigned char>(c)));
                if (s == "cpu")
                    o.activities.push_back(Activity::CPU);
                else if (s == "cuda")
                    o.activities.push_back(Activity::CUDA);
                else if (s == "xpu")
                    o.activities.push_back(Activity::XPU);
                else
                    throw std::invalid_argument("unknown activity \"" + s + "\" (cpu, cuda, xpu)");
            }
        } else if (k == "schedule") {
            const auto& s = it.value();
            Schedule sc;
            sc.wait = s.value("wait", int64_t(0));
            sc.warmup = s.value("warmup", int64_t(0));
            sc.active = s.value("active", int64_t(1));
            sc.repeat = s.value("repeat", int64_t(0));
            sc.skipFirst = s.value("skip_first", int64_t(0));
            sc.skipFirstWait = s.value("skip_first_wait", int64_t(0));
            o.schedule = sc;
        } else if (k == "record_shapes") {
            o.recordShapes = it.value().get<bool>();
        } else if (k == "profile_memory") {
            o.profileMemory = it.value().get<bool>();
        } else if (k == "with_stack") {
            o.withStack = it.value().get<bool>();
        } else if (k == "native_stack") {
            o.nativeStacks = it.value().get<bool>();
        } else if (k == "with_flops") {
            o.withFlops = it.value().get<bool>();
        } else {
            throw std::invalid_argument("unknown option \"" + k + "\"");
        }
    }
    return o;
}

} // namespace

extern "C" {

uint32_t ks_abi_version(void)
{
    return KS_ABI_VERSION;
}
const char* ks_last_error(void)
{
    return t_error.c_str();
}
void ks_string_free(char* s)
{
    std::free(s);
}

ks_profiler* ks_profiler_create(const char* options_json)
{
    return ks_profiler_create_scheduled(options_json, nullptr, nullptr);
}

ks_profiler* ks_profiler_create_scheduled(const char* options_json, ks_schedule_fn schedule, void* user)
{
    try {
        auto p = std::make_unique<ks_profiler>();
        static std::once_flag collectors;
        std::call_once(collectors, ks::collect::installBuiltinCollectors);
        ProfilerOptions o = parseOptions(options_json);
        if (schedule) {
            o.scheduleFn = [schedule, user](int64_t step) {
                const int a = schedule(step, user);
                return a >= 0 && a <= 3 ? ProfilerAction(a) : ProfilerAction::None;
            };
        }
        ks_profiler* raw = p.get();
        o.onTraceReady = [raw](Profiler&) {
            if (raw->handler) raw->handler(*raw->profiler);
            if (raw->readyFn) raw->readyFn(raw, raw->readyUser);
        };
        o.onWindow = [raw](Profiler&, bool recording) {
            if (raw->windowFn) raw->windowFn(raw, recording ? 1 : 0, raw->windowUser);
        };
        p->profiler = std::make_unique<Profiler>(std::move(o));
        t_error.clear();
        return p.release();
    } catch (const std::exception& e) {
        failWith(e.what());
        return nullptr;
    }
}

void ks_profiler_destroy(ks_profiler* p)
{
    try {
        delete p;
    } catch (...) {
    }
}

int ks_profiler_start(ks_profiler* p)
{
    return p ? guarded([&] { p->profiler->start(); }) : failWith("null profiler");
}
int ks_profiler_step(ks_profiler* p)
{
    return p ? guarded([&] { p->profiler->step(); }) : failWith("null profiler");
}
int ks_profiler_stop(ks_profiler* p)
{
    return p ? guarded([&] { p->profiler->stop(); }) : failWith("null profiler");
}
int64_t ks_profiler_step_num(const ks_profiler* p)
{
    return p ? p->profiler->stepNum() : -1;
}

void ks_profiler_set_trace_ready(ks_profiler* p, ks_trace_ready_fn fn, void* user)
{
    if (!p) return;
    p->readyFn = fn;
    p->readyUser = user;
}

void ks_profiler_set_window_callback(ks_profiler* p, ks_window_fn fn, void* user)
{
    if (!p) return;
    p->windowFn = fn;
    p->windowUser = user;
}

int ks_profiler_set_tensorboard_handler(ks_profiler* p, const char* dir, const char* worker, int use_gzip)
{
    if (!p || !dir) return failWith("null argument");
    return guarded([&] { p->handler = tensorboardTraceHandler(dir, worker ? worker : "", use_gzip != 0); });
}

int ks_profiler_add_metadata(ks_profiler* p, const char* key, const char* value)
{
    if (!p || !key || !value) return failWith("null argument");
    return guarded([&] { p->profiler->addMetadata(key, value); });
}

int ks_profiler_add_metadata_json(ks_profiler* p, const char* key, const char* json)
{
    if (!p || !key || !json) return failWith("null argument");
    return guarded([&] {
        // Reject text that would make the exported trace unreadable.
        if (!ks::isValidJson(json)) throw std::invalid_argument(std::string("not valid JSON: ") + json);
        p->profiler->addMetadataJson(key, json);
    });
}

char* ks_profiler_status(const ks_profiler* p)
{
    if (!p) return nullptr;
    std::string s;
    for (const std::string& line : p->profiler->status())
        s += line + "\n";
    return copyString(s);
}

int ks_profiler_export_chrome_trace(ks_profiler* p, const char* path)
{
    if (!p || !path) return failWith("null argument");
    return guarded([&] {
        const ks::SaveResult r = p->profiler->exportChromeTrace(path);
        if (!r.ok) throw std::runtime_error(r.error);
    });
}

char* ks_profiler_table(const ks_profiler* p, const char* options_json)
{
    if (!p) {
        failWith("null argument");
        return nullptr;
    }
    std::string text;
    const int rc = guarded([&] {
        nlohmann::json j = nlohmann::json::object();
        if (options_json && *options_json) j = nlohmann::json::parse(options_json);
        if (!j.is_object()) throw std::invalid_argument("options must be a JSON object");
        ks::TableOptions o;
        if (j.contains("sort_by") && !j["sort_by"].is_null()) {
            const std::string key = j["sort_by"].get<std::string>();
            if (!ks::parseSortKey(key, o.sortBy)) throw std::invalid_argument("unknown sort_by: " + key);
        }
        o.rowLimit = j.value("row_limit", int64_t(100));
        o.topLevelOnly = j.value("top_level_events_only", false);
        if (j.contains("header") && !j["header"].is_null()) o.header = j["header"].get<std::string>();
        if (j.contains("time_unit") && !j["time_unit"].is_null()) {
            o.timeUnit = j["time_unit"].get<std::string>();
            if (o.timeUnit != "s" && o.timeUnit != "ms" && o.timeUnit != "us")
                throw std::invalid_argument("time_unit must be s, ms or us");
        }
        o.maxNameColumnWidth = j.value("max_name_column_width", o.maxNameColumnWidth);
        o.maxShapesColumnWidth = j.value("max_shapes_column_width", o.maxShapesColumnWidth);
        o.maxSourceColumnWidth = j.value("max_src_column_width", o.maxSourceColumnWidth);
        if (j.value("memory_units", std::string("new")) == "legacy")
            o.memoryUnits = ks::pyformat::MemoryUnits::Legacy;
        text = p->profiler->table(o, j.value("group_by_input_shape", false), j.value("group_by_stack_n", 0));
    });
    return rc == 0 ? copyString(text) : nullptr;
}

int ks_profiler_export_stacks(const ks_profiler* p, const char* path, const char* metric)
{
    if (!p || !path) return failWith("null argument");
    return guarded([&] {
        std::string error;
        if (!p->profiler->exportStacks(path, metric ? metric : "self_cpu_time_total", &error))
            throw std::runtime_error(error);
    });
}

int ks_profiler_export_memory_timeline(const ks_profiler* p, const char* path, const char* device)
{
    if (!p || !path) return failWith("null argument");
    return guarded([&] {
        std::string error;
        if (!p->profiler->exportMemoryTimeline(path, device ? device : "", &error))
            throw std::runtime_error(error);
    });
}

uint32_t ks_intern(const char* name)
{
    try {
        return name ? internName(name) : 0;
    } catch (...) {
        return 0;
    }
}

void ks_range_push(uint32_t name)
{
    rangeBegin(name);
}
void ks_range_push_name(const char* name)
{
    if (recording() && name) rangeBegin(ks_intern(name));
}
void ks_range_push_args(uint32_t name, const char* args_json)
{
    if (!recording()) return;
    uint64_t payload = 0;
    if (args_json && *args_json) {
        try {
            payload = Recorder::instance().addPayload(args_json);
        } catch (...) {
        }
    }
    rangeBegin(name, payload);
}
void ks_range_push_stack(uint32_t name, const char* call_stack, const char* args_json)
{
    if (!recording()) return;
    uint64_t payload = 0;
    uint32_t stack = 0;
    try {
        if (args_json && *args_json) payload = Recorder::instance().addPayload(args_json);
        // Interned: the same call site gives the same text, which is then stored once.
        if (call_stack && *call_stack) stack = internName(call_stack);
    } catch (...) {
    }
    if (stack != 0)
        rangeBeginWithStack(name, stack, payload);
    else
        rangeBegin(name, payload);
}
void ks_range_push_stack_id(uint32_t name, uint32_t call_stack)
{
    if (call_stack != 0)
        rangeBeginWithStack(name, call_stack);
    else
        rangeBegin(name);
}
int ks_recording_stacks(void)
{
    return recording() && stacksWanted() ? 1 : 0;
}
void ks_range_pop(void)
{
    rangeEnd();
}
void ks_mark(uint32_t name)
{
    mark(name);
}
void ks_python_push(uint32_t name)
{
    pythonBegin(name);
}
void ks_mark_payload(uint32_t name, uint64_t payload)
{
    mark(name, payload);
}
void ks_counter(uint32_t name, double value)
{
    counter(name, value);
}
void ks_record_alloc(const void* ptr, int64_t bytes, int device_type, int device_index)
{
    recordAlloc(ptr, bytes, uint8_t(device_type), int16_t(device_index));
}
void ks_record_free(const void* ptr, int device_type, int device_index)
{
    recordFree(ptr, uint8_t(device_type), int16_t(device_index));
}
void ks_record_memory(const void* ptr, int64_t alloc_size, int device_type, int device_index)
{
    if (alloc_size > 0)
        recordAlloc(ptr, alloc_size, uint8_t(device_type), int16_t(device_index));
    else if (alloc_size < 0)
        recordFree(ptr, uint8_t(device_type), int16_t(device_index), -alloc_size);
}
uint64_t ks_payload(const char* args_json)
{
    if (!args_json || !*args_json) return 0;
    try {
        return Recorder::instance().addPayload(args_json);
    } catch (...) {
        return 0;
    }
}
void ks_op_push(uint32_t name, uint64_t payload, uint64_t record_function_id, int64_t sequence_nr,
                uint64_t fwd_thread_id, uint64_t thread_id)
{
    opBegin(name, payload, record_function_id, sequence_nr, fwd_thread_id, uint32_t(thread_id));
}
void ks_op_push_stack(uint32_t name, uint64_t payload, uint64_t record_function_id, int64_t sequence_nr,
                      uint64_t fwd_thread_id, uint64_t thread_id, uint32_t stack_text)
{
    opBegin(name, payload, record_function_id, sequence_nr, fwd_thread_id, uint32_t(thread_id), stack_text);
}
void ks_set_thread_name(const char* name)
{
    try {
        if (name) Recorder::instance().setCurrentThreadName(name);
    } catch (...) {
    }
}
int ks_recording(void)
{
    return recording() ? 1 : 0;
}
int64_t ks_now_ns(void)
{
    return int64_t(Clock::monotonicNs());
}

int ks_stream_to(const char* endpoint, const char* options_json)
{
    return guarded([&] {
        ks::live::SenderOptions o;
        std::string ep = endpoint ? endpoint : "";
        if (ep.empty()) {
            const char* env = std::getenv("KINETOSCOPE_ENDPOINT");
            if (!env || !*env)
                throw std::invalid_argument("no endpoint given and KINETOSCOPE_ENDPOINT is not set");
            ep = env;
        }
        o.endpoint = ep;
        if (options_json && *options_json) {
            const nlohmann::json j = nlohmann::json::parse(options_json);
            if (!j.is_object()) throw std::invalid_argument("options must be a JSON object");
            o.flushMs = std::clamp(j.value("flush_ms", o.flushMs), 1, 1000);
            o.maxPendingBytes =
                size_t(std::clamp(j.value("max_pending_mb", int64_t(32)), int64_t(1), int64_t(4096))) << 20;
            o.program = j.value("program", std::string());
            o.capture = j.dump();
        }
        std::string error;
        if (!ks::live::processSender().start(o, error)) throw std::runtime_error(error);
        static std::once_flag atExit;
        // The last batch and the goodbye go out when the program ends normally.
        std::call_once(atExit, [] { std::atexit([] { ks::live::processSender().stop(0); }); });
    });
}

int ks_stream_stop(void)
{
    return guarded([] { ks::live::processSender().stop(1); });
}

int ks_stream_active(void)
{
    return ks::live::processSender().active() ? 1 : 0;
}

int64_t ks_stream_step(const char* requester)
{
    try {
        return ks::live::processSender().step(requester && *requester ? requester : "Step");
    } catch (...) {
        return -1;
    }
}

void ks_stream_step_origin(void)
{
    try {
        ks::live::processSender().stepOrigin();
    } catch (...) {
    }
}

void ks_stream_log(int level, const char* text)
{
    if (!text) return;
    try {
        const auto l = level <= 0   ? ks::live::LogLevel::Info
                       : level == 1 ? ks::live::LogLevel::Warning
                                    : ks::live::LogLevel::Error;
        ks::live::processSender().log(l, text);
    } catch (...) {
    }
}

void ks_stream_info(const char* key, const char* value)
{
    if (!key || !value) return;
    try {
        ks::live::processSender().info(key, value);
    } catch (...) {
    }
}

int ks_stream_window(const char* path, int64_t first_step, int64_t last_step, int64_t start_ns,
                     int64_t end_ns, const int64_t* anchors, int n_anchors, int remove_after)
{
    if (!path || (n_anchors > 0 && !anchors)) return failWith("null argument");
    return guarded([&] {
        if (!ks::live::processSender().active()) throw std::runtime_error("not streaming");
        ks::live::WindowFrame w;
        w.path = path;
        w.firstStep = first_step;
        w.lastStep = last_step;
        w.startNs = start_ns;
        w.endNs = end_ns;
        w.removeAfter = remove_after != 0;
        for (int i = 0; i < n_anchors; ++i)
            w.anchors.emplace_back(anchors[2 * i], anchors[2 * i + 1]);
        ks::live::processSender().window(std::move(w));
    });
}

int ks_stream_after_fork(void)
{
    return guarded([] {
        std::string error;
        if (!ks::live::processSender().afterForkInChild(error)) throw std::runtime_error(error);
    });
}

uint64_t ks_stream_dropped(void)
{
    return ks::live::processSender().stats().eventsDropped;
}

} // extern "C"
