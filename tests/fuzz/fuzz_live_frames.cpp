// libFuzzer target for the live protocol's receiving end: any bytes from a target must give frames
// or a one-line error, and any frame must be applied to the trace or refused with a one-line error;
// never a crash, a hang, a sanitizer report or an allocation far beyond what arrived. The first
// byte picks how the bytes are cut into reads, so frame reassembly across reads is covered too.
// Built from tests/fuzz/live.cmake (KINETOSCOPE_FUZZ, clang); run e.g.
//
//   build-fuzz/tests/fuzz/fuzz_live_frames -max_total_time=300 -rss_limit_mb=1024 \
//       CORPUS_DIR tests/fuzz/corpus/live_frames

#include "core/live/framestream.h"
#include "core/live/liveingest.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <unistd.h>

namespace {

void oneLine(const std::string& error)
{
    if (error.empty() || error.find('\n') != std::string::npos) std::abort();
}

// An empty window directory: window frames name files that are not there (or not allowed).
const std::string& windowDir()
{
    static const std::string dir = [] {
        std::string t = "/tmp/ks-fuzz-live-XXXXXX";
        if (!::mkdtemp(t.data())) std::abort();
        return t;
    }();
    return dir;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    if (size == 0) return 0;
    const size_t piece = 1 + size_t(data[0]) * 64;
    ++data;
    --size;
    ks::Trace trace;
    ks::live::LiveIngest in(trace);
    in.setBudget(64 << 20);
    in.setWindowDir(windowDir());
    const auto c = in.open(1);
    ks::live::FrameStream stream;
    ks::live::Frame f;
    std::string error;
    bool open = true;
    for (size_t off = 0; off < size && open; off += piece) {
        stream.feed(reinterpret_cast<const char*>(data + off), std::min(piece, size - off));
        while (open && stream.next(f)) {
            if (!in.apply(c, f, error)) {
                oneLine(error);
                open = false;
            }
        }
        if (open && stream.failed()) {
            oneLine(stream.error());
            open = false;
        }
    }
    in.close(c);
    in.publish();
    in.takeLogs();
    in.takeSteps();
    return 0;
}
