#pragma once

#include <cstdint>
#include <map>

namespace ks::live {

// CPU utilisation and resident memory of processes, read from /proc (Linux). Works for any
// process of the user whether or not it streams anything, so a session shows its target's load
// even when no event arrives.
class ProcSampler {
public:
    struct Sample {
        double cpuPercent = 0; // since the previous sample of this pid (100 = one core busy)
        double rssMiB = 0;
        bool hasCpu = false; // false for a pid's first sample
    };

    // False when the process is gone (or /proc cannot be read).
    bool sample(int pid, int64_t monoNs, Sample& out);
    void forget(int pid) { m_prev.erase(pid); }

private:
    struct Prev {
        uint64_t cpuTicks = 0;
        int64_t monoNs = 0;
    };
    std::map<int, Prev> m_prev;
};

} // namespace ks::live
