// tracegen: writes a synthetic Kineto-shaped trace of about the requested size (see kinetosynth.h).
//
//   tracegen OUT SIZE [--gzip] [--compact] [--arg-heavy] [--seed N] [--level L]
//
// SIZE is uncompressed JSON bytes with an optional K, M or G suffix. --gzip writes a gzip stream (as
// tensorboard_trace_handler(use_gzip=True) does), whatever OUT's suffix.

#include "kinetosynth.h"
#include "sizearg.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <zlib.h>

namespace {

const char* const kUsage =
    "usage: tracegen OUT SIZE[K|M|G] [--gzip] [--compact] [--arg-heavy] [--seed N] [--level 1-9]\n";

const char* const kHelp =
    "\n"
    "Writes a synthetic trace shaped like what torch.profiler writes for a training loop on one GPU\n"
    "(record_shapes, profile_memory, with_stack): ProfilerStep annotations, python_function frames,\n"
    "cpu_ops with shapes, CUDA runtime launches, kernels, memcpy/memset, ac2g and fwdbwd flows and\n"
    "[memory] events. The benchmarks in bench/ (bench_load, bench_guiload, ...) read it.\n"
    "\n"
    "  OUT          the file to write\n"
    "  SIZE         about this many bytes of uncompressed JSON (K, M, G: KiB, MiB, GiB); the trace\n"
    "               ends with the step that crosses it\n"
    "  --gzip       write a gzip stream (as tensorboard_trace_handler(use_gzip=True)), whatever\n"
    "               OUT's suffix\n"
    "  --compact    one event per line with Python's json.dumps spacing, as a re-saved file has\n"
    "  --arg-heavy  every cpu_op with the arguments real GPU traces carry (External id, Sequence\n"
    "               number, Input Dims, ...), argument-only children, kernel args one per line\n"
    "  --seed N     random seed (default 1); the same seed writes the same file\n"
    "  --level L    gzip level 1-9 (default 6)\n"
    "\n"
    "example: tracegen /tmp/heavy300.json 300M --arg-heavy\n";

int usage()
{
    std::fputs(kUsage, stderr);
    return 2;
}

} // namespace

int main(int argc, char** argv)
{
    for (int i = 1; i < argc; ++i)
        if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) {
            std::fputs(kUsage, stdout);
            std::fputs(kHelp, stdout);
            return 0;
        }
    if (argc < 3) return usage();
    ks::bench::SynthOptions opt;
    if (!ks::bench::parseSize(argv[2], opt.targetBytes)) return usage();
    bool gzip = false;
    int level = 6;
    for (int i = 3; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--gzip"))
            gzip = true;
        else if (!std::strcmp(argv[i], "--compact"))
            opt.compact = true;
        else if (!std::strcmp(argv[i], "--arg-heavy"))
            opt.argHeavy = true;
        else if (!std::strcmp(argv[i], "--seed") && i + 1 < argc)
            opt.seed = std::strtoull(argv[++i], nullptr, 10);
        else if (!std::strcmp(argv[i], "--level") && i + 1 < argc)
            level = std::atoi(argv[++i]);
        else
            return usage();
    }
    const auto t0 = std::chrono::steady_clock::now();
    ks::bench::SynthStats stats;
    bool ok = true;
    if (gzip) {
        gzFile f = gzopen(argv[1], ("wb" + std::to_string(level)).c_str());
        if (!f) {
            std::fprintf(stderr, "tracegen: cannot write %s\n", argv[1]);
            return 1;
        }
        gzbuffer(f, 1 << 20);
        stats = ks::bench::writeSynthTrace(opt, [&](std::string_view s) {
            if (ok && gzwrite(f, s.data(), unsigned(s.size())) != int(s.size())) ok = false;
        });
        ok = gzclose(f) == Z_OK && ok;
    } else {
        FILE* f = std::fopen(argv[1], "wb");
        if (!f) {
            std::fprintf(stderr, "tracegen: cannot write %s: %s\n", argv[1], std::strerror(errno));
            return 1;
        }
        stats = ks::bench::writeSynthTrace(opt, [&](std::string_view s) {
            if (ok && std::fwrite(s.data(), 1, s.size(), f) != s.size()) ok = false;
        });
        ok = std::fclose(f) == 0 && ok;
    }
    if (!ok) {
        std::fprintf(stderr, "tracegen: write to %s failed\n", argv[1]);
        return 1;
    }
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("%s: %llu bytes of JSON, %llu events, %llu steps (%.1f s)\n", argv[1],
                static_cast<unsigned long long>(stats.bytes), static_cast<unsigned long long>(stats.events),
                static_cast<unsigned long long>(stats.steps), secs);
    return 0;
}
