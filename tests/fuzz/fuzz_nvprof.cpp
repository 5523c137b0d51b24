// libFuzzer target for the nvprof reader: any bytes after SQLite's header must give a trace or a
// one-line error, never a crash, a hang or a sanitizer report, and no control bytes in what the
// reader says (table names and SQLite's messages come from the file). A trace that loads also goes
// through the nvprof summary (torch's parse_nvprof_trace tree). Seeds: corpus/nvprof/.
// Build and run: tests/fuzz/run_fuzz.sh, docs/fuzzing.md.

#include "core/analysis/summary/nvprofaverages.h"
#include "core/io/tracereader.h"
#include "fuzzcheck.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

using ks::fuzz::checkMessage;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    // Every input takes the SQLite path: the header is forced, the rest is the fuzzer's.
    static const char kHeader[] = "SQLite format 3";
    std::string input(reinterpret_cast<const char*>(data), size);
    if (input.size() < 16) input.resize(16, '\0');
    std::memcpy(input.data(), kHeader, 16);
    const ks::LoadResult r = ks::loadTraceData(input);
    if (r.ok() == !r.error.empty()) std::abort(); // exactly one of trace and error
    checkMessage(r.error);
    for (const std::string& w : r.warnings)
        checkMessage(w);
    if (r.ok()) {
        bool kernels = false;
        const auto rows = ks::NvprofAverages::compute(*r.trace, &kernels);
        for (const ks::KeyAverage& row : rows)
            if (row.count <= 0) std::abort();
    }
    return 0;
}
