/* A C program that streams to a live session through kinetoscope.h alone (ks_stream_to with the
 * KINETOSCOPE_ENDPOINT a viewer or `kinetoscope record` sets). Modes:
 *   ranges STEPS     per step: a "train_step" range holding "forward"/"backward" ranges, a counter,
 *                    an allocation and its free, a worker thread's ranges; then ks_stream_step()
 *   latency STEPS MS steps of MS milliseconds each (a busy range), for step latency
 *   oplatency OPS MS OPS short "op" ranges (50 us busy), one every MS milliseconds, no steps: an
 *                    op's end reaches the viewer only through the sender's periodic drain
 *   flood SECONDS RATE  ranges at RATE events/s (0: as fast as possible) for SECONDS, then the
 *                    count generated and the peak RSS
 *   opflood SECONDS RATE  the same with operators (ks_op_push) at RATE ops/s
 *   args COUNT       COUNT ranges, each with args of its own (~450 bytes, all different: a caller
 *                    that never reuses a payload), paced, then the peak RSS
 *   slow             one short step every 20 ms until killed (kill -9 tests)
 * Prints "step N" after each step and "sent N dropped M" at the end. */
#include "kinetoscope.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void sleep_ms(double ms)
{
    struct timespec ts;
    ts.tv_sec = (time_t)(ms / 1000);
    ts.tv_nsec = (long)((ms - (double)ts.tv_sec * 1000) * 1e6);
    nanosleep(&ts, NULL);
}

static void* worker(void* arg)
{
    int n = *(int*)arg;
    ks_set_thread_name("c-worker");
    uint32_t name = ks_intern("worker_task");
    for (int i = 0; i < n; ++i) {
        ks_range_push(name);
        sleep_ms(0.2);
        ks_range_pop();
    }
    return NULL;
}

static int run_ranges(int steps)
{
    uint32_t train = ks_intern("train_step"), fwd = ks_intern("forward"), bwd = ks_intern("backward");
    uint32_t loss = ks_intern("loss");
    for (int s = 0; s < steps; ++s) {
        pthread_t t;
        int work = 5;
        pthread_create(&t, NULL, worker, &work);
        ks_range_push(train);
        ks_range_push_args(fwd, "{\"Input Dims\": [[32, 64]], \"step\": 1}");
        sleep_ms(2);
        ks_range_pop();
        void* buf = malloc(4096);
        ks_record_alloc(buf, 4096, 0, -1);
        ks_range_push(bwd);
        sleep_ms(3);
        ks_range_pop();
        ks_record_free(buf, 0, -1);
        free(buf);
        ks_counter(loss, 1.0 / (s + 1));
        ks_range_pop();
        pthread_join(t, NULL);
        ks_stream_step("Step");
        printf("step %d\n", s);
        fflush(stdout);
    }
    return 0;
}

static int run_latency(int steps, double ms)
{
    uint32_t busy = ks_intern("busy");
    for (int s = 0; s < steps; ++s) {
        ks_range_push(busy);
        int64_t until = ks_now_ns() + (int64_t)(ms * 1e6);
        while (ks_now_ns() < until) {
        }
        ks_range_pop();
        ks_stream_step("Step");
    }
    return 0;
}

static int run_oplatency(int ops, double ms)
{
    uint32_t op = ks_intern("op");
    for (int i = 0; i < ops; ++i) {
        ks_range_push(op);
        int64_t until = ks_now_ns() + 50000;
        while (ks_now_ns() < until) {
        }
        ks_range_pop();
        sleep_ms(ms);
    }
    return 0;
}

/* The process's peak resident memory so far (VmHWM), for the memory cap test. */
static void print_peak_rss(void)
{
    FILE* f = fopen("/proc/self/status", "r");
    char line[256];
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "VmHWM:", 6)) printf("peak rss %ld KiB\n", atol(line + 6));
    if (f) fclose(f);
}

/* ops: torch observer's operators (ks_op_push: Begin + OpInfo + End) instead of plain ranges, at
 * RATE ops/s rather than events/s. */
static int run_flood(double seconds, double rate, int ops)
{
    uint32_t name = ks_intern(ops ? "op" : "flood");
    int64_t start = ks_now_ns();
    int64_t end = start + (int64_t)(seconds * 1e9);
    uint64_t events = 0, bursts = 0;
    while (1) {
        int64_t now = ks_now_ns();
        if (now >= end) break;
        /* Paced: what is due by now at the given rate, then a short sleep, so the target uses only
         * the CPU recording needs and the machine's other cores stay with the viewer. */
        uint64_t due = rate > 0 ? (uint64_t)((double)(now - start) * rate / 1e9) : events + 65536;
        while (events < due) {
            if (ops)
                ks_op_push(name, 0, events + 1, (int64_t)events, 0, 1);
            else
                ks_range_push(name);
            ks_range_pop();
            events += ops ? 1 : 2;
        }
        if (++bursts % 64 == 0) ks_stream_step("Step");
        if (rate > 0) sleep_ms(0.5);
    }
    printf("generated %llu %s in %.3f s\n", (unsigned long long)events, ops ? "ops" : "events",
           (ks_now_ns() - start) / 1e9);
    print_peak_rss();
    return 0;
}

static int run_args(int count)
{
    uint32_t name = ks_intern("arg");
    char pad[401];
    memset(pad, 'x', sizeof pad - 1);
    pad[sizeof pad - 1] = 0;
    char json[512];
    for (int i = 0; i < count; ++i) {
        snprintf(json, sizeof json, "{\"i\": %d, \"pad\": \"%s\"}", i, pad);
        ks_range_push_args(name, json);
        ks_range_pop();
        if (i % 1000 == 999) sleep_ms(1); /* paced: the sender keeps up, no event is dropped */
    }
    printf("generated %d ranges\n", count);
    print_peak_rss();
    return 0;
}

static int run_slow(void)
{
    uint32_t name = ks_intern("slow_step");
    for (int s = 0;; ++s) {
        ks_range_push(name);
        sleep_ms(20);
        ks_range_pop();
        ks_stream_step("Step");
        printf("step %d\n", s);
        fflush(stdout);
    }
    return 0;
}

int main(int argc, char** argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: c_stream ranges|latency|oplatency|flood|opflood|args|slow ...\n");
        return 2;
    }
    if (ks_stream_to(NULL, "{\"program\": \"c_stream\"}") != 0) {
        fprintf(stderr, "ks_stream_to failed: %s\n", ks_last_error());
        return 1;
    }
    ks_stream_log(0, "c_stream connected");
    int rc;
    if (!strcmp(argv[1], "ranges"))
        rc = run_ranges(argc > 2 ? atoi(argv[2]) : 5);
    else if (!strcmp(argv[1], "latency"))
        rc = run_latency(argc > 2 ? atoi(argv[2]) : 100, argc > 3 ? atof(argv[3]) : 10);
    else if (!strcmp(argv[1], "oplatency"))
        rc = run_oplatency(argc > 2 ? atoi(argv[2]) : 300, argc > 3 ? atof(argv[3]) : 10);
    else if (!strcmp(argv[1], "flood"))
        rc = run_flood(argc > 2 ? atof(argv[2]) : 3, argc > 3 ? atof(argv[3]) : 0, 0);
    else if (!strcmp(argv[1], "opflood"))
        rc = run_flood(argc > 2 ? atof(argv[2]) : 3, argc > 3 ? atof(argv[3]) : 0, 1);
    else if (!strcmp(argv[1], "args"))
        rc = run_args(argc > 2 ? atoi(argv[2]) : 1000);
    else if (!strcmp(argv[1], "slow"))
        rc = run_slow();
    else {
        fprintf(stderr, "unknown mode %s\n", argv[1]);
        return 2;
    }
    unsigned long long dropped = (unsigned long long)ks_stream_dropped();
    ks_stream_stop();
    printf("dropped %llu\n", dropped);
    return rc;
}
