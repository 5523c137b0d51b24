#pragma once

// libtorch's RecordFunction as the reference for bench_record. Kept behind a plain interface so
// that torch's headers (C++14-era, their own warnings and macros) stay out of our translation units.

#include <string>

namespace ks::bench::torchref {

// Turns torch's profiler on for the calling thread, CPU activity only: the Kineto profiler (what
// torch.profiler.profile uses), else the legacy one. Returns the mode's name, or an empty string
// with `error` set when neither starts.
std::string enableProfiler(std::string& error);
// Turns it off; what it collected is post-processed by torch (not timed) and dropped.
void disableProfiler();
// `scopes` consecutive empty RECORD_FUNCTION scopes on the calling thread (the caller times them).
void recordScopes(int scopes);

} // namespace ks::bench::torchref
