#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <vector>

namespace ks::collect {

// Maps timestamps of another clock (CUPTI's CLOCK_REALTIME ns by default, a Level Zero host clock)
// onto the recorder's CLOCK_MONOTONIC ns. The offset between the two is sampled again and again
// rather than once: a realtime clock can be stepped by NTP, and each timestamp is converted with
// the newest sample taken before it, so a step only mis-places what falls between the step and the
// next sample.
class ClockOffset {
public:
    using ReadNs = std::function<int64_t()>;

    // foreign reads the other clock; monotonic defaults to CLOCK_MONOTONIC.
    explicit ClockOffset(ReadNs foreign, ReadNs monotonic = {});

    // One bracketed sample: monotonic, foreign, monotonic; the best of a few tries (narrowest
    // bracket) is kept. Thread-safe.
    void sample();
    // foreign ns -> monotonic ns. Before the first sample() it takes one.
    int64_t toMonotonic(int64_t foreignNs);
    // foreign - monotonic of the newest sample.
    int64_t offset();
    size_t sampleCount();

private:
    struct Sample {
        int64_t foreignNs;
        int64_t offset; // foreign - monotonic
    };

    ReadNs m_foreign;
    ReadNs m_monotonic;
    std::mutex m_mutex;
    std::vector<Sample> m_samples; // ascending foreignNs
};

} // namespace ks::collect
