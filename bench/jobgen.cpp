// jobgen DIR [--ranks N] [--steps S] [--mb MB] [--straggler R] [--slow R] [--jitter US]
// Writes a synthetic data-parallel job, one Kineto trace per rank (rankgen.h), for bench_job and
// for looking at the GUI's rank overview.
#include "rankgen.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

int main(int argc, char** argv)
{
    if (argc < 2) {
        std::fprintf(
            stderr,
            "usage: jobgen DIR [--ranks N] [--steps S] [--mb MB] [--straggler R] [--slow R] [--jitter US]\n");
        return 2;
    }
    const std::string dir = argv[1];
    ks::rankgen::Options o;
    o.world = 64;
    o.steps = 8;
    o.straggler = 37;
    o.slowRank = 12;
    o.slowExtra = 1200;
    o.jitter = 400;
    for (int i = 2; i + 1 < argc; i += 2) {
        const std::string a = argv[i];
        const long long v = std::atoll(argv[i + 1]);
        if (a == "--ranks")
            o.world = int(v);
        else if (a == "--steps")
            o.steps = int(v);
        else if (a == "--mb")
            o.padBytes = uint64_t(v) << 20;
        else if (a == "--straggler")
            o.straggler = int(v);
        else if (a == "--slow")
            o.slowRank = int(v);
        else {
            std::fprintf(stderr, "jobgen: unknown option %s\n", a.c_str());
            return 2;
        }
    }
    std::filesystem::create_directories(dir);
    for (int r = 0; r < o.world; ++r) {
        const std::string path = dir + "/rank-" + std::to_string(r) + ".pt.trace.json";
        std::ofstream(path, std::ios::binary) << ks::rankgen::rankTrace(o, r);
    }
    std::printf("%d ranks in %s\n", o.world, dir.c_str());
    return 0;
}
