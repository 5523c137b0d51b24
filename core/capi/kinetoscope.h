/* Kinetoscope recording C ABI (version 1).
 *
 * A stable C interface to the in-process recorder, for C programs, other languages and the
 * Python module (resources/python/kinetoscope). Link with -lkinetoscope.
 *
 * Conventions: functions returning int return 0 on success and -1 on failure, with a message in
 * ks_last_error() (per thread). Strings are UTF-8 and NUL-terminated. Strings returned to the
 * caller are freed with ks_string_free(). The hot-path calls (ranges, marks, counters,
 * allocations) never fail and cost one relaxed load when no profiler is recording.
 */
#ifndef KINETOSCOPE_H
#define KINETOSCOPE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KS_ABI_VERSION 1
#if defined(__GNUC__)
#define KS_API __attribute__((visibility("default")))
#else
#define KS_API
#endif

typedef struct ks_profiler ks_profiler;
typedef void (*ks_trace_ready_fn)(ks_profiler* profiler, void* user);
/* recording: 1 as a window starts recording (before anything is recorded), 0 as it stops (before
 * its trace is built and on_trace_ready runs). */
typedef void (*ks_window_fn)(ks_profiler* profiler, int recording, void* user);

KS_API uint32_t ks_abi_version(void);
KS_API const char* ks_last_error(void);
KS_API void ks_string_free(char* s);

/* options: JSON object, every key optional:
 *   {"activities": ["cpu", "cuda", "xpu"],
 *    "schedule": {"wait": 1, "warmup": 1, "active": 2, "repeat": 1, "skip_first": 0, "skip_first_wait": 0},
 *    "record_shapes": false, "profile_memory": false, "with_stack": false, "native_stack": true,
 *    "with_flops": false}
 * NULL or "" means torch's defaults (CPU, no schedule). Returns NULL on a bad option.
 * with_stack: every range gets the call stack it was opened from as its "Call stack" arg (frames
 * innermost first, joined by ';', as Kineto writes it). By default that is the native stack of the
 * calling thread, captured at the range's begin (return addresses only, up to 32 frames, no locks)
 * and symbolized when the window is built: "function (libname.so+0x1a2b)", or "libname.so+0x1a2b"
 * for functions the module does not export (link programs with -rdynamic to name theirs).
 * native_stack: false records only the stacks callers pass to ks_range_push_stack (the Python
 * module does this with the Python stack). */
KS_API ks_profiler* ks_profiler_create(const char* options_json);
/* A profiler driven by a custom schedule (torch's `schedule` argument as any callable): fn returns
 * the ProfilerAction for a step (0 NONE, 1 WARMUP, 2 RECORD, 3 RECORD_AND_SAVE); it replaces any
 * "schedule" in the options. fn is called from start() and step() on the calling thread. */
typedef int (*ks_schedule_fn)(int64_t step, void* user);
KS_API ks_profiler* ks_profiler_create_scheduled(const char* options_json, ks_schedule_fn fn, void* user);
KS_API void ks_profiler_destroy(ks_profiler* p);
KS_API int ks_profiler_start(ks_profiler* p);
KS_API int ks_profiler_step(ks_profiler* p);
KS_API int ks_profiler_stop(ks_profiler* p);
KS_API int64_t ks_profiler_step_num(const ks_profiler* p);
/* Called from step()/stop() on the calling thread when a window is ready (on_trace_ready). */
KS_API void ks_profiler_set_trace_ready(ks_profiler* p, ks_trace_ready_fn fn, void* user);
/* Called at each window's start and stop (torch starts its execution trace observer there). */
KS_API void ks_profiler_set_window_callback(ks_profiler* p, ks_window_fn fn, void* user);
/* Makes on_trace_ready write <dir>/<worker>.<time_ns>.pt.trace.json[.gz] (worker NULL: host_pid). */
KS_API int ks_profiler_set_tensorboard_handler(ks_profiler* p, const char* dir, const char* worker,
                                               int use_gzip);
KS_API int ks_profiler_add_metadata(ks_profiler* p, const char* key, const char* value);
KS_API int ks_profiler_add_metadata_json(ks_profiler* p, const char* key, const char* json);
/* Status lines for requested activities that are not recorded, '\n'-separated; free the result. */
KS_API char* ks_profiler_status(const ks_profiler* p);
/* Results of the last finished window. */
KS_API int ks_profiler_export_chrome_trace(ks_profiler* p, const char* path);
/* prof.key_averages(group_by_input_shape, group_by_stack_n).table(...) as torch prints it.
 * options: JSON object, every key optional: {"sort_by": "self_cpu_time_total", "row_limit": 100,
 * "group_by_input_shape": false, "group_by_stack_n": 0, "top_level_events_only": false,
 * "header": "...", "time_unit": "ms", "max_name_column_width": 55, "max_shapes_column_width": 80,
 * "max_src_column_width": 75, "memory_units": "new"|"legacy"}. Free the result; NULL on error. */
KS_API char* ks_profiler_table(const ks_profiler* p, const char* options_json);
/* prof.events() of the last window as a JSON array, one object per FunctionEvent in torch's order:
 * {"name", "thread", "start_us", "end_us", "self_cpu_us", "device_us", "self_device_us", "device",
 * "user_annotation", "top_level", "stack"} (stack: FunctionEvent.stack, frames innermost first, as
 * torch filters them and gives backward events their forward op's). Free the result; NULL on error. */
KS_API char* ks_profiler_events(const ks_profiler* p);
/* prof.key_averages(group_by_input_shape, group_by_stack_n) rows as a JSON array of objects
 * {"key", "count", "cpu_time_total", "self_cpu_time_total", "device_time_total",
 * "self_device_time_total", "cpu_memory_usage", "self_cpu_memory_usage", "device_memory_usage",
 * "self_device_memory_usage", "flops", "input_shapes", "stack", "is_user_annotation",
 * "is_device", "top_level"} (times in us, memory in bytes). Free the result; NULL on error. */
KS_API char* ks_profiler_key_averages(const ks_profiler* p, int group_by_input_shape, int group_by_stack_n);
/* export_stacks(path, metric): metric NULL means "self_cpu_time_total". */
KS_API int ks_profiler_export_stacks(const ks_profiler* p, const char* path, const char* metric);
/* export_memory_timeline(path, device): .html/.json/.json.gz/.raw.json.gz by name; device like
 * "cuda:0" or "cpu", NULL for the device with the most allocator activity. */
KS_API int ks_profiler_export_memory_timeline(const ks_profiler* p, const char* path, const char* device);

/* Recording hot path. Names are interned once (cache the id). */
KS_API uint32_t ks_intern(const char* name);
KS_API void ks_range_push(uint32_t name);
KS_API void ks_range_push_name(const char* name);
/* args_json: a JSON object whose members become the range's args, e.g. {"Input Dims": [[2, 3]]}. */
KS_API void ks_range_push_args(uint32_t name, const char* args_json);
/* A range whose call stack the caller knows (an interpreter's own stack): call_stack holds frames
 * innermost first, joined by ';', e.g. "train.py(12): step;train.py(40): main". It becomes the
 * slice's "Call stack" arg instead of a native stack, and is recorded even without with_stack
 * (check ks_recording_stacks() first to build the text only when wanted). Identical texts are
 * stored once. args_json as for ks_range_push_args, or NULL. */
KS_API void ks_range_push_stack(uint32_t name, const char* call_stack, const char* args_json);
/* ks_range_push_stack with the stack text already interned (ks_intern id, 0: none). */
KS_API void ks_range_push_stack_id(uint32_t name, uint32_t call_stack);
/* 1 while a profiler with with_stack is recording. */
KS_API int ks_recording_stacks(void);
KS_API void ks_range_pop(void);
/* A range of category python_function (torch's Python tracer: "nn.Module: Linear"); ends with
 * ks_range_pop. */
KS_API void ks_python_push(uint32_t name);
KS_API void ks_mark(uint32_t name);
/* An instant with the args of a ks_payload id (0: none); a caller that marks the same args often
 * stores them once. */
KS_API void ks_mark_payload(uint32_t name, uint64_t payload);
KS_API void ks_counter(uint32_t name, double value);
/* device_type uses c10::DeviceType numbers (0 CPU, 1 CUDA, 20 XPU); device_index -1 for CPU. */
KS_API void ks_record_alloc(const void* ptr, int64_t bytes, int device_type, int device_index);
KS_API void ks_record_free(const void* ptr, int device_type, int device_index);
/* c10's memory report: alloc_size > 0 an allocation, < 0 the free of -alloc_size bytes. */
KS_API void ks_record_memory(const void* ptr, int64_t alloc_size, int device_type, int device_index);
/* Stores args (a JSON object) for ks_op_push; returns its id (0: none or not valid). Each call
 * stores a new copy: callers that pass the same args often keep the id. */
KS_API uint64_t ks_payload(const char* args_json);
/* An operator range (category "cpu_op"), ended by ks_range_pop: payload from ks_payload (0: none),
 * record_function_id (also its "External id"), sequence_nr (-1: none) and the forward thread id
 * become Kineto's args, so forward/backward links work; thread_id (torch's number for the calling
 * thread, RecordFunction::currentThreadId()) pairs forward ops with their backward functions for
 * the "fwdbwd" arrows. Used by libkinetoscope_torch. */
KS_API void ks_op_push(uint32_t name, uint64_t payload, uint64_t record_function_id, int64_t sequence_nr,
                       uint64_t fwd_thread_id, uint64_t thread_id);
/* ks_op_push with the operator's call stack: stack_text is the ks_intern id of its "Call stack"
 * text (frames innermost first, joined by ';'; 0: none), recorded whether or not with_stack is on.
 * libkinetoscope_torch passes the Python stack of with_stack profiles. */
KS_API void ks_op_push_stack(uint32_t name, uint64_t payload, uint64_t record_function_id,
                             int64_t sequence_nr, uint64_t fwd_thread_id, uint64_t thread_id,
                             uint32_t stack_text);
KS_API void ks_set_thread_name(const char* name);
KS_API int ks_recording(void);
/* Monotonic clock of the recorder, in ns. */
KS_API int64_t ks_now_ns(void);

/* Live streaming to a Kinetoscope viewer (docs/live-protocol.md).
 *
 * ks_stream_to() connects to a viewer's session socket (endpoint NULL or "": $KINETOSCOPE_ENDPOINT,
 * which a viewer sets for the programs it launches; Run > Listen for connections shows one for
 * programs started by hand), switches recording on and streams every range, mark, counter and
 * allocation recorded through this library from a background thread, as it happens. Nothing blocks
 * the calling threads: when the viewer falls behind, batches are dropped and counted.
 *
 * options_json (NULL or a JSON object): {"flush_ms": 10, "max_pending_mb": 32, "program": "name"};
 * the whole object is also shown by the viewer as the program's capture options.
 * The stream ends with ks_stream_stop() or at exit. */
KS_API int ks_stream_to(const char* endpoint, const char* options_json);
KS_API int ks_stream_stop(void);
/* 1 while connected and streaming. */
KS_API int ks_stream_active(void);
/* Counts a training step for `requester` ("Optimizer", "ProfilerStep", ...); the global step is the
 * maximum over requesters (like torch's KinetoStepTracker), and the step that ends is sent at once.
 * Returns the number of steps completed so far, or -1 when not streaming. */
KS_API int64_t ks_stream_step(const char* requester);
/* The first step starts now (default: when streaming started) unless a step has already ended. */
KS_API void ks_stream_step_origin(void);
/* level: 0 info, 1 warning, 2 error. Shown in the viewer's console. */
KS_API void ks_stream_log(int level, const char* text);
/* A key/value fact about the program ("torch": "1.13.1"). */
KS_API void ks_stream_info(const char* key, const char* value);
/* A finished torch.profiler window exported to `path`, covering steps first..last. anchors holds
 * n_anchors pairs (ProfilerStep#label, monotonic ns when that step began) that place it on the
 * timeline; start_ns/end_ns (monotonic, 0 if unknown) bracket the window. remove_after: the viewer
 * deletes the file once merged (only inside its own window directory). */
KS_API int ks_stream_window(const char* path, int64_t first_step, int64_t last_step, int64_t start_ns,
                            int64_t end_ns, const int64_t* anchors, int n_anchors, int remove_after);
/* In a forked child: reconnect with the child's own pid (done automatically on the next ks_stream_*
 * call; Python's os.register_at_fork calls it right away). */
KS_API int ks_stream_after_fork(void);
/* Events dropped so far because the viewer could not keep up. */
KS_API uint64_t ks_stream_dropped(void);

#ifdef __cplusplus
}
#endif

#endif /* KINETOSCOPE_H */
