// libFuzzer target for merging a torch.profiler window file into a live trace: the file's bytes
// (after a 24-byte header giving the window's start and two step anchors) are written into the
// session's window directory and announced by a Window frame. Any content must be merged or give
// a one-line error, never a crash or a sanitizer report (times at the ends of int64 included).
// Built from tests/fuzz/live.cmake; run e.g.
//
//   build-fuzz/tests/fuzz/fuzz_live_window -max_total_time=300 CORPUS_DIR tests/fuzz/corpus/live_window

#include "core/live/framestream.h"
#include "core/live/liveingest.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unistd.h>

namespace {

const std::string& windowDir()
{
    static const std::string dir = [] {
        std::string t = "/tmp/ks-fuzz-window-XXXXXX";
        if (!::mkdtemp(t.data())) std::abort();
        return t;
    }();
    return dir;
}

bool apply(ks::live::LiveIngest& in, ks::live::LiveIngest::ConnId c, const std::string& bytes)
{
    ks::live::FrameStream s;
    s.feed(bytes.data(), bytes.size());
    ks::live::Frame f;
    std::string error;
    while (s.next(f))
        if (!in.apply(c, f, error)) {
            if (error.empty() || error.find('\n') != std::string::npos) std::abort();
            return false;
        }
    return !s.failed();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    int64_t head[3] = {0, 0, 0};
    const size_t h = std::min(size, sizeof head);
    std::memcpy(head, data, h);
    data += h;
    size -= h;
    const std::string path = windowDir() + "/w.pt.trace.json";
    if (FILE* f = std::fopen(path.c_str(), "wb")) {
        std::fwrite(data, 1, size, f);
        std::fclose(f);
    } else {
        std::abort();
    }

    ks::Trace trace;
    ks::live::LiveIngest in(trace);
    in.setBudget(64 << 20);
    in.setWindowDir(windowDir());
    const auto c = in.open(1);
    std::string b;
    ks::live::HelloFrame hello;
    hello.pid = 1;
    hello.program = "fuzz";
    ks::live::encodeHello(b, hello);
    ks::live::WindowFrame w;
    w.path = path;
    w.firstStep = 1;
    w.lastStep = 2;
    w.startNs = head[0];
    w.anchors = {{0, 1}, {0, 2}, {1, head[1]}, {2, head[2]}};
    w.removeAfter = false;
    ks::live::encodeWindow(b, w);
    apply(in, c, b);
    for (const ks::live::LogLine& l : in.takeLogs())
        if (l.text.find('\n') != std::string::npos) std::abort();
    in.close(c);
    in.publish();
    return 0;
}
