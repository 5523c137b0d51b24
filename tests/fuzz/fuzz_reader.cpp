// libFuzzer target for the trace reader: any bytes must give a trace or a one-line error, never a
// crash, a hang, unbounded memory or a sanitizer report; and nothing the reader says may carry raw
// control bytes from the input. Build and run: tests/fuzz/run_fuzz.sh, docs/fuzzing.md.
//
// The first byte picks how the rest reaches the reader, so one corpus covers every input path:
//   0 (mod 3)  the bytes as a plain file
//   1          the bytes gzip-compressed (the JSON paths, through the decompressor)
//   2          the bytes after a gzip magic number (corrupt and truncated gzip streams)
// Each input is read twice: with the default chunk size and with 64-byte chunks, so the chunk
// boundary recovery (rejoining, repairing, truncation) runs on small inputs too.

#include "core/io/tracereader.h"
#include "fuzzcheck.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <zlib.h>

namespace {

using ks::fuzz::checkMessage;

std::string gzip(std::string_view in)
{
    z_stream z{};
    if (deflateInit2(&z, 1, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK) std::abort();
    std::string out(deflateBound(&z, uLong(in.size())) + 64, '\0');
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
    z.avail_in = uInt(in.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = uInt(out.size());
    if (deflate(&z, Z_FINISH) != Z_STREAM_END) std::abort();
    out.resize(z.total_out);
    deflateEnd(&z);
    return out;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    if (size == 0) return 0;
    const std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
    std::string input;
    switch (data[0] % 3) {
    case 0:
        input.assign(rest);
        break;
    case 1:
        input = gzip(rest);
        break;
    default:
        input = std::string("\x1f\x8b", 2) + std::string(rest);
        break;
    }
    // One parser thread with the default chunks; two with tiny chunks, for the parallel merge.
    for (unsigned threads : {1u, 2u}) {
        ks::LoadOptions options;
        options.threads = threads;
        options.chunkBytes = threads == 1 ? 0 : 64;
        const ks::LoadResult r = ks::loadTraceData(input, options);
        if (r.ok() == !r.error.empty()) std::abort(); // exactly one of trace and error
        checkMessage(r.error);
        for (const std::string& w : r.warnings)
            checkMessage(w);
    }
    return 0;
}
