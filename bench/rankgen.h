#pragma once

// Kineto-shaped traces of the ranks of a synthetic data-parallel job, whose every number is known:
// step times, HTA overlap, collective sizes and the straggler. Used by tests/core/tst_ranks.cpp,
// bench_job and jobgen (the GUI's 64-rank screenshot). Times are integer µs, as older Kineto wrote.
//
// Per step k (1..steps) of rank r, starting where the previous one ended (t0 for the first), lasting
// period (+ the slow rank's extra, + jitter):
//   CPU  ProfilerStep#k [s, period]; aten::mm [s+5, 40] launching gemm; c10d::allreduce_ [s+60, 30]
//        > record_param_comms (Collective name allreduce, In/Out msg nelems, Group size, dtype Float)
//        > nccl:all_reduce, launching the NCCL kernel
//   GPU  gemm [s+100, compute(r)] on stream 7, compute(r) = compute + r (+ stragglerDelay on the
//        straggler); ncclDevKernel_AllReduce [s+100+compute(r)-overlap, until s+8100] on stream 20:
//        every rank's allreduce ends together, so the late rank's starts last;
//        ncclDevKernel_AllGather [s+8200+r, 50] with Kineto 2.4's args on the kernel itself
//        (In msg nelems 1000, Out msg nelems 1000 × world, BFloat16).
//   padding: pairs of aten::add + its kernel after the collectives (from s+8400), until the file reaches
//   padBytes.

#include <cstdint>
#include <string>

namespace ks::rankgen {

struct Options {
    int world = 16;
    int steps = 4;
    int64_t t0 = 1000000;
    int64_t period = 10000;
    int64_t compute = 4000;
    int64_t overlap = 500;
    int straggler = -1; // the rank whose computation ends late
    int64_t stragglerDelay = 2000;
    int slowRank = -1; // a rank whose every step is longer (after the collectives)
    int64_t slowExtra = 0;
    int64_t jitter = 0; // up to this many µs more per step, varying by rank and step
    int64_t allreduceElements = 1 << 20;
    uint64_t padBytes = 0; // grow each rank to about this many bytes with extra small kernels
};

inline int64_t computeUs(const Options& o, int rank)
{
    return o.compute + rank + (rank == o.straggler ? o.stragglerDelay : 0);
}
// The allreduce kernel's duration on a rank (the same in every step).
inline int64_t allreduceUs(const Options& o, int rank)
{
    return 8000 - computeUs(o, rank) + o.overlap;
}
inline int64_t stepUs(const Options& o, int rank, int step = 0)
{
    uint64_t h = uint64_t(rank) * 0x9e3779b97f4a7c15ull ^ uint64_t(step) * 0xc2b2ae3d27d4eb4full;
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 32;
    return o.period + (rank == o.slowRank ? o.slowExtra : 0) +
           (o.jitter > 0 ? int64_t(h % uint64_t(o.jitter)) : 0);
}

namespace detail {

inline void x(std::string& out, const char* cat, const std::string& name, int64_t ts, int64_t dur, int pid,
              int tid, const std::string& args)
{
    out += "{\"ph\":\"X\",\"cat\":\"";
    out += cat;
    out += "\",\"name\":\"";
    out += name;
    out += "\",\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(tid) +
           ",\"ts\":" + std::to_string(ts) + ",\"dur\":" + std::to_string(dur) + ",\"args\":" + args + "},\n";
}

inline std::string ids(int64_t corr)
{
    return "{\"correlation\":" + std::to_string(corr) + ",\"External id\":" + std::to_string(corr) + "}";
}

inline std::string kernelArgs(int stream, int64_t corr, const std::string& extra = "")
{
    return "{\"device\":0,\"stream\":" + std::to_string(stream) + ",\"correlation\":" + std::to_string(corr) +
           ",\"External id\":" + std::to_string(corr) + extra + "}";
}

} // namespace detail

// The whole trace file of one rank.
inline std::string rankTrace(const Options& o, int rank)
{
    using detail::x;
    std::string out;
    out += "{\"schemaVersion\":1,\"distributedInfo\":{\"backend\":\"nccl\",\"rank\":" + std::to_string(rank) +
           ",\"world_size\":" + std::to_string(o.world) + "},\n\"traceEvents\":[\n";
    out += "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":0,\"tid\":0,\"args\":{\"name\":\"GPU 0\"}},\n";
    int64_t corr = 1;
    const std::string world = std::to_string(o.world);
    const std::string n = std::to_string(o.allreduceElements);
    // Padding per step, sized from one pair's text.
    int64_t padPerStep = 0;
    if (o.padBytes) {
        std::string probe;
        x(probe, "cpu_op", "aten::add", 0, 1, 1, 2, detail::ids(1000000));
        x(probe, "cuda_runtime", "cudaLaunchKernel", 0, 1, 1, 2, detail::ids(1000000));
        x(probe, "kernel", "elementwise_kernel", 0, 1, 0, 7, detail::kernelArgs(7, 1000000));
        padPerStep = int64_t(o.padBytes / uint64_t(o.steps) / probe.size());
    }
    int64_t s = o.t0;
    for (int k = 1; k <= o.steps; ++k) {
        const int64_t step = stepUs(o, rank, k);
        const int64_t c = computeUs(o, rank);
        x(out, "user_annotation", "ProfilerStep#" + std::to_string(k), s, step, 1, 1, "{}");
        x(out, "cpu_op", "aten::mm", s + 5, 40, 1, 1, detail::ids(corr));
        x(out, "cuda_runtime", "cudaLaunchKernel", s + 10, 5, 1, 1, detail::ids(corr));
        x(out, "kernel", "gemm_kernel", s + 100, c, 0, 7, detail::kernelArgs(7, corr));
        ++corr;
        x(out, "cpu_op", "c10d::allreduce_", s + 60, 30, 1, 1, "{}");
        x(out, "cpu_op", "record_param_comms", s + 62, 26, 1, 1,
          "{\"Collective name\":\"allreduce\",\"In msg nelems\":" + n + ",\"Out msg nelems\":" + n +
              ",\"Group size\":" + world + ",\"dtype\":\"Float\"}");
        x(out, "user_annotation", "nccl:all_reduce", s + 64, 20, 1, 1,
          "{\"Input Dims\":[[" + n + "]],\"Input type\":[\"float\"]}");
        x(out, "cuda_runtime", "cudaLaunchKernel", s + 66, 5, 1, 1, detail::ids(corr));
        const int64_t a = s + 100 + c - o.overlap;
        x(out, "kernel", "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)", a,
          s + 8100 - a, 0, 20, detail::kernelArgs(20, corr));
        ++corr;
        x(out, "cuda_runtime", "cudaLaunchKernel", s + 91, 3, 1, 1, detail::ids(corr));
        x(out, "kernel", "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)", s + 8200 + rank,
          50, 0, 20,
          detail::kernelArgs(
              20, corr,
              ",\"Collective name\":\"_allgather_base\",\"In msg nelems\":1000,\"Out msg nelems\":" +
                  std::to_string(1000 * o.world) + ",\"Group size\":" + world + ",\"dtype\":\"BFloat16\""));
        ++corr;
        // Padding: small ops and kernels after the collectives, one µs each.
        for (int64_t p = 0; p < padPerStep; ++p) {
            const int64_t t = s + 8400 + (p % 1500);
            x(out, "cpu_op", "aten::add", t, 1, 1, 2, detail::ids(corr));
            x(out, "cuda_runtime", "cudaLaunchKernel", t, 1, 1, 2, detail::ids(corr));
            x(out, "kernel", "elementwise_kernel", t + 1, 1, 0, 7, detail::kernelArgs(7, corr));
            ++corr;
        }
        s += step;
    }
    out.resize(out.size() - 2); // the last ",\n"
    out += "\n]}\n";
    return out;
}

} // namespace ks::rankgen
