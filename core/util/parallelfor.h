#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <system_error>
#include <thread>
#include <vector>

namespace ks {

// The most worker threads any computation starts, whatever it is asked for: each costs a stack and
// per-thread state, and past the core count more only cost memory.
inline constexpr unsigned kMaxWorkers = 1024;

// Number of worker threads to use when the caller asked for `requested` (0 = one per hardware
// thread), at most kMaxWorkers.
inline unsigned workerCount(unsigned requested)
{
    if (requested != 0) return std::min(requested, kMaxWorkers);
    return std::max(1u, std::thread::hardware_concurrency());
}

// Runs fn(i) for every i in [0, n) on up to `threads` threads (0 = one per hardware thread). Items
// are claimed one at a time, so a few large items and many small ones still balance as long as the
// caller lists the large ones first. fn must not throw.
template <typename Fn>
void parallelFor(size_t n, unsigned threads, Fn&& fn)
{
    const size_t workers = std::min<size_t>(workerCount(threads), n);
    if (workers <= 1) {
        for (size_t i = 0; i < n; ++i)
            fn(i);
        return;
    }
    std::atomic<size_t> next{0};
    auto work = [&] {
        for (size_t i = next.fetch_add(1); i < n; i = next.fetch_add(1))
            fn(i);
    };
    std::vector<std::thread> pool;
    pool.reserve(workers - 1);
    // A thread the system refuses (its thread or memory limit) leaves the work to those started.
    try {
        for (size_t t = 1; t < workers; ++t)
            pool.emplace_back(work);
    } catch (const std::system_error&) {
    }
    work();
    for (auto& t : pool)
        t.join();
}

} // namespace ks
