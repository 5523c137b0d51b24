/* A C program using only kinetoscope.h: records ranges on two threads, marks, counters and
 * allocations under a scheduled profiler, exports each window, and checks error reporting; then
 * records call stacks with with_stack.
 * Usage: c_client OUTDIR   (writes OUTDIR/window*.pt.trace.json and OUTDIR/stack.pt.trace.json) */
#include "kinetoscope.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char* g_out;
static int g_windows;

static void on_ready(ks_profiler* p, void* user)
{
    (void)user;
    char path[4096];
    snprintf(path, sizeof path, "%s/window%d.pt.trace.json", g_out, g_windows++);
    if (ks_profiler_export_chrome_trace(p, path) != 0) {
        fprintf(stderr, "export failed: %s\n", ks_last_error());
        exit(1);
    }
}

static void* worker(void* arg)
{
    (void)arg;
    ks_set_thread_name("c-worker");
    uint32_t name = ks_intern("worker_task");
    for (int i = 0; i < 50; ++i) {
        ks_range_push(name);
        ks_range_pop();
    }
    return NULL;
}

/* Exported (the program links with -rdynamic) and never inlined: the innermost frame of its range. */
__attribute__((noipa)) void c_stack_leaf(void)
{
    ks_range_push_name("native");
    ks_range_pop();
}

static int record_stacks(void)
{
    ks_profiler* p = ks_profiler_create("{\"with_stack\": true}");
    if (!p || ks_recording_stacks()) return 1;
    ks_profiler_start(p);
    if (!ks_recording_stacks()) return 2;
    c_stack_leaf();
    ks_range_push_stack(ks_intern("explicit"), "app.lua(3): f;app.lua(9): main", "{\"n\": 1}");
    ks_range_pop();
    ks_profiler_stop(p);
    char path[4096];
    snprintf(path, sizeof path, "%s/stack.pt.trace.json", g_out);
    const int rc = ks_profiler_export_chrome_trace(p, path);
    ks_profiler_destroy(p);
    return rc == 0 && !ks_recording_stacks() ? 0 : 3;
}

int main(int argc, char** argv)
{
    if (argc != 2) return 2;
    g_out = argv[1];
    if (ks_abi_version() != KS_ABI_VERSION) return 3;
    if (ks_profiler_create("{\"activities\": [\"gpu\"]}") != NULL || strstr(ks_last_error(), "gpu") == NULL) {
        fprintf(stderr, "a bad option was accepted\n");
        return 4;
    }
    ks_profiler* p =
        ks_profiler_create("{\"schedule\": {\"wait\": 0, \"warmup\": 1, \"active\": 2, \"repeat\": 2},"
                           " \"profile_memory\": true}");
    if (!p) {
        fprintf(stderr, "create: %s\n", ks_last_error());
        return 5;
    }
    ks_profiler_set_trace_ready(p, on_ready, NULL);
    ks_profiler_add_metadata(p, "client", "c");
    uint32_t step = ks_intern("train_step");
    uint32_t loss = ks_intern("loss");
    if (ks_profiler_start(p) != 0) return 6;
    for (int s = 0; s < 6; ++s) {
        ks_range_push_args(step, "{\"step\": 1}");
        pthread_t t;
        pthread_create(&t, NULL, worker, NULL);
        pthread_join(t, NULL);
        void* buf = malloc(1000);
        ks_record_alloc(buf, 1000, 0, -1);
        ks_record_free(buf, 0, -1);
        free(buf);
        ks_counter(loss, 1.0 / (s + 1));
        ks_mark(ks_intern("checkpoint"));
        ks_range_pop();
        ks_profiler_step(p);
    }
    ks_profiler_stop(p);
    ks_profiler_destroy(p);
    printf("windows %d\n", g_windows);
    if (g_windows != 2) return 7;
    const int stacks = record_stacks();
    if (stacks != 0) fprintf(stderr, "with_stack: step %d failed: %s\n", stacks, ks_last_error());
    return stacks == 0 ? 0 : 8;
}
