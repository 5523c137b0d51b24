#pragma once

#include "core/analysis/hta/htaevents.h"

#include <string>
#include <vector>

namespace ks::hta {

// pandas' describe() of a series: count, mean, std (n − 1), min, the quartiles (linear
// interpolation) and max.
struct Describe {
    size_t count = 0;
    double mean = 0, std = 0, min = 0, p25 = 0, p50 = 0, p75 = 0, max = 0;
};
Describe describe(std::vector<double> values);

// One point of a step function: the value holds from ts until the next point.
struct SeriesPoint {
    double ts = 0;   // µs, HTA's time
    TimeNs tsNs = 0; // the same time on the trace's ns axis
    double value = 0;
};

// HTA's TraceCounters.get_queue_length_time_series for one stream: +1 at each runtime launch
// (cudaLaunchKernel, cudaMemcpyAsync, hipLaunchKernel, ...) whose GPU work is in the trace, at the
// launch's start; −1 at the start of that work; the running sum after each. Work and launches are
// paired by correlation id, and the stream is the work's.
struct StreamQueue {
    int64_t stream = -1;
    RowKey pid; // the GPU process of the stream's first piece of work
    std::vector<SeriesPoint> series;
    Describe summary;
    // get_time_spent_blocked_on_full_queue: the time the queue length was at least the maximum
    // (each point holds until the next one on the stream), and that time over the trace's duration.
    bool reachedMax = false; // HTA reports only the streams that reached it
    double blockedUs = 0;
    double blockedRelative = 0;
};

struct QueueLengthResult {
    int64_t maxQueueLength = 1024;    // HTA's CUDA_MAX_LAUNCH_QUEUE_PER_STREAM
    std::vector<StreamQueue> streams; // by stream number
};

QueueLengthResult queueLength(const EventTable& table, int64_t maxQueueLength = 1024);

// HTA's get_memory_bw_time_series / get_memory_bw_summary: for each kind of memory operation
// (Memcpy HtoD, DtoH, DtoD, Memset, ...) the sum of the "memory bandwidth (GB/s)" of the operations
// running at each time: +bandwidth at an operation's start, −bandwidth at its end (an operation of
// 0 µs counts as 1 µs). The summary describes the series' points above zero.
struct MemoryBandwidth {
    std::string kind;
    RowKey pid; // the GPU process of the kind's first operation
    std::vector<SeriesPoint> series;
    Describe summary;
};

std::vector<MemoryBandwidth> memoryBandwidth(const EventTable& table);

} // namespace ks::hta
