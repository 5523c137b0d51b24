// libFuzzer target for the trace reader: any bytes must give a trace or a one-line error, never a
// crash, a hang or a sanitizer report. Build with clang (core instrumented too):
//
//   CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DKINETOSCOPE_GUI=OFF -DKINETOSCOPE_FUZZ=ON \
//       -DCMAKE_CXX_FLAGS="-fsanitize=fuzzer-no-link,address,undefined"
//   cmake --build build-fuzz --target fuzz_reader
//   build-fuzz/bench/fuzz_reader -max_total_time=300 CORPUS_DIR
//
// Small chunks make the chunk boundary recovery run on small inputs too.

#include "io/tracereader.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    for (size_t chunk : {size_t(0), size_t(64)}) {
        ks::LoadOptions options;
        options.threads = 2;
        options.chunkBytes = chunk;
        const ks::LoadResult r = ks::loadTraceData(text, options);
        if (r.ok() == !r.error.empty()) std::abort(); // exactly one of trace and error
        if (r.error.find('\n') != std::string::npos) std::abort();
    }
    return 0;
}
