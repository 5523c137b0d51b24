#include "kinetosynth.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <string>
#include <vector>

namespace ks::bench {

namespace {

constexpr int64_t kPid = 25286;
constexpr int64_t kMainTid = 25286;
constexpr int64_t kBackwardTid = 25411;
constexpr int64_t kStream = 7;
// Kineto's relative timestamps are taken from a base floored to three months, so they are large.
constexpr int64_t kStartNs = 1428625731456483;
constexpr int64_t kBaseTimeNs = 1751410836000000000;

class Rng {
public:
    explicit Rng(uint64_t seed) : m_s(seed * 0x9e3779b97f4a7c15ULL + 1) {}
    uint64_t next()
    {
        m_s ^= m_s >> 12;
        m_s ^= m_s << 25;
        m_s ^= m_s >> 27;
        return m_s * 0x2545f4914f6cdd1dULL;
    }
    int64_t range(int64_t lo, int64_t hi) { return lo + int64_t(next() % uint64_t(hi - lo + 1)); }
    bool chance(int percent) { return int(next() % 100) < percent; }
    template <typename T>
    const T& pick(const std::vector<T>& v)
    {
        return v[next() % v.size()];
    }

private:
    uint64_t m_s;
};

// Kernel names are long C++ template signatures in real traces; a few dozen distinct ones recur.
std::vector<std::string> kernelNames()
{
    std::vector<std::string> out;
    const char* elems[] = {"float", "c10::BFloat16", "c10::Half", "int", "long"};
    const char* ops[] = {"add", "mul", "gelu", "silu", "copy", "fill", "div", "neg"};
    for (const char* op : ops)
        for (const char* el : elems)
            out.push_back(std::string("void at::native::vectorized_elementwise_kernel<4, at::native::") + op +
                          "_kernel_cuda(at::TensorIteratorBase&)::{lambda(" + el +
                          ")#1}, std::array<char*, 2ul> >(int, "
                          "at::native::" +
                          op + "_kernel_cuda(at::TensorIteratorBase&)::{lambda(" + el +
                          ")#1}, std::array<char*, 2ul>)");
    for (int tile : {64, 128, 256})
        out.push_back("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize" + std::to_string(tile) + "x" +
                      std::to_string(tile / 2) +
                      "x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas");
    out.push_back("void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float, "
                  "at::native::(anonymous namespace)::SoftMaxForwardEpilogue>(float*, float const*, int)");
    out.push_back(
        "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps<float, "
        "float, float, float>, unsigned int, float, 4> >(at::native::ReduceOp<float, "
        "at::native::MeanOps<float, float, float, float>, unsigned int, float, 4>)");
    return out;
}

struct OpKind {
    const char* name;
    const char* backward;
    int inputs;
};

const OpKind kOps[] = {
    {"aten::linear", "AddmmBackward0", 3},
    {"aten::layer_norm", "NativeLayerNormBackward0", 5},
    {"aten::gelu", "GeluBackward0", 2},
    {"aten::add", "AddBackward0", 3},
    {"aten::softmax", "SoftmaxBackward0", 3},
    {"aten::mul", "MulBackward0", 2},
    {"aten::dropout", "NativeDropoutBackward0", 3},
};

class Generator {
public:
    Generator(const SynthOptions& o, const std::function<void(std::string_view)>& sink)
        : m_opt(o), m_sink(sink), m_rng(o.seed), m_kernels(kernelNames())
    {
        m_buf.reserve(1 << 17);
        for (int i = 0; i < 240; ++i)
            m_pyFiles.push_back("/usr/lib/python3/site-packages/torch/nn/modules/module_" +
                                std::to_string(i % 40) + ".py(" + std::to_string(100 + i * 7) +
                                "): _call_impl_" + std::to_string(i));
        for (int b : {1, 2, 4, 8, 16, 32})
            for (int s : {128, 512, 2048})
                m_shapes.push_back({b, s});
    }

    SynthStats run()
    {
        header();
        int64_t step = 5; // profile.step() counts from the first wait/warmup step
        while (m_stats.bytes + m_buf.size() < m_opt.targetBytes || m_stats.steps == 0) {
            oneStep(step++);
            ++m_stats.steps;
        }
        footer();
        flush();
        return m_stats;
    }

private:
    // --- text output ----------------------------------------------------------------------------
    void flush()
    {
        if (m_buf.empty()) return;
        m_sink(m_buf);
        m_stats.bytes += m_buf.size();
        m_buf.clear();
    }

    void put(std::string_view s) { m_buf.append(s); }
    void putInt(int64_t v)
    {
        char tmp[24];
        const int n = std::snprintf(tmp, sizeof tmp, "%" PRId64, v);
        m_buf.append(tmp, size_t(n));
    }
    // Kineto prints ns as µs with exactly three decimals.
    void putMicros(int64_t ns)
    {
        char tmp[32];
        const int n = std::snprintf(tmp, sizeof tmp, "%" PRId64 ".%03" PRId64, ns / 1000, ns % 1000);
        m_buf.append(tmp, size_t(n));
    }
    void putDouble(double v)
    {
        char tmp[32];
        const int n = std::snprintf(tmp, sizeof tmp, "%f", v);
        m_buf.append(tmp, size_t(n));
    }
    void putString(std::string_view s)
    {
        m_buf.push_back('"');
        m_buf.append(s);
        m_buf.push_back('"');
    }

    void beginEvent()
    {
        if (m_events++ > 0)
            put(m_opt.compact ? ",\n" : ",\n  ");
        else
            put(m_opt.compact ? "\n" : "\n  ");
        // Parts of a step are built in side buffers (parents are written before their children but
        // timed after them), which must not be flushed out of order.
        if (m_sideDepth == 0 && m_buf.size() > (64 << 10)) flush();
        ++m_stats.events;
    }

    // The head of an event: ph, cat, name, pid, tid, ts (and dur for X).
    void head(char ph, const char* cat, std::string_view name, int64_t pid, int64_t tid, int64_t ts,
              int64_t dur)
    {
        beginEvent();
        put(m_opt.compact ? "{\"ph\": \"" : "{\n    \"ph\": \"");
        m_buf.push_back(ph);
        put("\", \"cat\": \"");
        put(cat);
        put("\", \"name\": ");
        putString(name);
        put(", \"pid\": ");
        putInt(pid);
        put(", \"tid\": ");
        putInt(tid);
        put(m_opt.compact ? ", \"ts\": " : ",\n    \"ts\": ");
        putMicros(ts);
        if (dur >= 0) {
            put(", \"dur\": ");
            putMicros(dur);
        }
    }
    void argsOpen() { put(m_opt.compact ? ", \"args\": {" : ",\n    \"args\": {\n      "); }
    void close() { put(m_opt.compact ? "}" : "\n  }"); }
    void argsClose() { put(m_opt.compact ? "}}" : "\n    }\n  }"); }

    void flow(char ph, const char* cat, uint64_t id, int64_t pid, int64_t tid, int64_t ts)
    {
        beginEvent();
        put(m_opt.compact ? "{\"ph\": \"" : "{\n    \"ph\": \"");
        m_buf.push_back(ph);
        put("\", \"id\": ");
        putInt(int64_t(id));
        put(", \"pid\": ");
        putInt(pid);
        put(", \"tid\": ");
        putInt(tid);
        put(", \"ts\": ");
        putMicros(ts);
        put(m_opt.compact ? ", \"cat\": \"" : ",\n    \"cat\": \"");
        put(cat);
        put("\", \"name\": \"");
        put(cat);
        put(ph == 'f' ? "\", \"bp\": \"e\"" : "\"");
        close();
    }

    // --- events ---------------------------------------------------------------------------------
    struct Shape {
        int batch;
        int seq;
    };

    void cpuOp(const OpKind& op, int64_t ts, int64_t dur, int64_t ext, int64_t seq, const Shape& sh)
    {
        head('X', "cpu_op", op.name, kPid, kMainTid, ts, dur);
        argsOpen();
        put("\"External id\": ");
        putInt(ext);
        put(", \"Record function id\": 0, \"Ev Idx\": ");
        putInt(m_evIdx++);
        if (seq >= 0 || m_opt.argHeavy) {
            put(", \"Sequence number\": ");
            putInt(seq >= 0 ? seq : m_seq + 7);
            put(", \"Fwd thread id\": 0");
        }
        put(", \"Input Dims\": [");
        for (int i = 0; i < op.inputs; ++i) {
            put(i ? ", " : "");
            if (i == 0) {
                put("[");
                putInt(sh.batch);
                put(", ");
                putInt(sh.seq);
                put(", 1024]");
            } else if (i == 1) {
                put("[1024, 1024]");
            } else {
                put("[]");
            }
        }
        put("], \"Input type\": [");
        for (int i = 0; i < op.inputs; ++i)
            put(i == 0 ? "\"c10::BFloat16\"" : i == 1 ? ", \"c10::BFloat16\"" : ", \"Scalar\"");
        put("], \"Input Strides\": [");
        for (int i = 0; i < op.inputs; ++i)
            put(i == 0 ? "[1048576, 1024, 1]" : i == 1 ? ", [1024, 1]" : ", []");
        put("], \"Concrete Inputs\": [");
        for (int i = 0; i < op.inputs; ++i)
            put(i < 2 ? (i ? ", \"\"" : "\"\"") : ", \"1\"");
        put("]");
        argsClose();
    }

    void runtime(const char* cat, const char* name, int cbid, int64_t ts, int64_t dur, int64_t corr,
                 int64_t ext)
    {
        head('X', cat, name, kPid, m_tid, ts, dur);
        argsOpen();
        if (ext >= 0) {
            put("\"External id\": ");
            putInt(ext);
            put(", ");
        }
        put("\"cbid\": ");
        putInt(cbid);
        put(", \"correlation\": ");
        putInt(corr);
        argsClose();
    }

    void kernel(std::string_view name, int64_t ts, int64_t dur, int64_t corr, int64_t ext)
    {
        head('X', "kernel", name, 0, kStream, ts, dur);
        argsOpen();
        put("\"External id\": ");
        putInt(ext);
        put(m_opt.compact ? ", \"queued\": 0, \"device\": 0, \"context\": 1, \"stream\": 7, \"correlation\": "
            : m_opt.argHeavy ? ",\n      \"queued\": 0, \"device\": 0, \"context\": 1,\n      \"stream\": 7, "
                               "\"correlation\": "
                             : ",      \"queued\": 0, \"device\": 0, \"context\": 1,      \"stream\": 7, "
                               "\"correlation\": ");
        putInt(corr);
        const char* sep = m_opt.argHeavy && !m_opt.compact ? ",\n      " : ", ";
        put(sep);
        put("\"registers per thread\": ");
        putInt(m_rng.range(16, 255));
        put(sep);
        put("\"shared memory\": ");
        putInt(m_rng.chance(50) ? 0 : m_rng.range(1, 228) * 1024);
        const int64_t grid = m_rng.range(1, 4096);
        const int64_t block = int64_t(32) << m_rng.range(0, 5);
        put(sep);
        put("\"blocks per SM\": ");
        putDouble(double(grid) / 132.0);
        put(sep);
        put("\"warps per SM\": ");
        putDouble(double(grid * block / 32) / 132.0);
        put(sep);
        put("\"grid\": [");
        putInt(grid);
        put(", 1, 1]");
        put(sep);
        put("\"block\": [");
        putInt(block);
        put(", 1, 1]");
        put(sep);
        put("\"est. achieved occupancy %\": ");
        putInt(m_rng.range(3, 100));
        argsClose();
        flow('f', "ac2g", uint64_t(corr), 0, kStream, ts);
    }

    void memcpy(int64_t ts, int64_t dur, int64_t corr, int64_t ext, bool set)
    {
        head('X', set ? "gpu_memset" : "gpu_memcpy",
             set ? "Memset (Device)" : "Memcpy HtoD (Pinned -> Device)", 0, kStream, ts, dur);
        const int64_t bytes = m_rng.range(4, 1 << 24);
        argsOpen();
        put("\"External id\": ");
        putInt(ext);
        put(", \"device\": 0, \"context\": 1, \"stream\": 7, \"correlation\": ");
        putInt(corr);
        put(", \"bytes\": ");
        putInt(bytes);
        put(", \"memory bandwidth (GB/s)\": ");
        putDouble(double(bytes) / double(std::max<int64_t>(dur, 1)));
        argsClose();
        flow('f', "ac2g", uint64_t(corr), 0, kStream, ts);
    }

    void memoryEvent(int64_t ts, int64_t bytes)
    {
        beginEvent();
        put(m_opt.compact
                ? "{\"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"s\": \"t\", \"name\": \"[memory]\", "
                : "{\n    \"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"s\": \"t\", \"name\": "
                  "\"[memory]\",\n    ");
        put("\"pid\": ");
        putInt(kPid);
        put(", \"tid\": ");
        putInt(m_tid);
        put(m_opt.compact ? ", \"ts\": " : ",\n    \"ts\": ");
        putMicros(ts);
        m_allocated += bytes;
        argsOpen();
        put("\"Total Reserved\": 2629828608, \"Total Allocated\": ");
        putInt(m_allocated);
        put(", \"Bytes\": ");
        putInt(bytes);
        put(", \"Addr\": ");
        putInt(int64_t(137877174353920ULL + uint64_t(m_rng.range(0, 1 << 20)) * 512));
        put(", \"Device Id\": 0, \"Device Type\": 1, \"Ev Idx\": ");
        putInt(m_evIdx++);
        argsClose();
    }

    void pythonFrame(std::string_view name, int64_t ts, int64_t dur, int64_t id, int64_t parent)
    {
        head('X', "python_function", name, kPid, kMainTid, ts, dur);
        argsOpen();
        put("\"Python parent id\": ");
        if (parent < 0)
            put("null");
        else
            putInt(parent);
        put(", \"Python id\": ");
        putInt(id);
        put(", \"Ev Idx\": ");
        putInt(m_evIdx++);
        argsClose();
    }

    // One kernel launch from inside an op at cpu time t: runtime call, its flow start, the kernel.
    int64_t launch(int64_t t, int64_t ext)
    {
        const int64_t corr = m_corr++;
        const int64_t dur = m_rng.range(3000, 9000);
        const bool driver = m_rng.chance(10);
        const bool copy = m_rng.chance(4);
        runtime(driver ? "cuda_driver" : "cuda_runtime",
                driver ? "cuLaunchKernel"
                : copy ? "cudaMemcpyAsync"
                       : "cudaLaunchKernel",
                driver ? 307 : 211, t, dur, corr, ext);
        flow('s', "ac2g", uint64_t(corr), kPid, m_tid, t);
        const int64_t start = std::max(m_gpu, t + m_rng.range(4000, 20000));
        const int64_t kdur = m_rng.range(1500, 400000);
        if (copy)
            memcpy(start, kdur, corr, ext, m_rng.chance(30));
        else
            kernel(m_rng.pick(m_kernels), start, kdur, corr, ext);
        m_gpu = start + kdur + m_rng.range(500, 3000);
        return t + dur;
    }

    // A forward op: cpu_op with a child op that launches work, plus allocator traffic.
    int64_t forwardOp(const OpKind& op, int64_t t, const Shape& sh,
                      std::vector<std::pair<int64_t, int64_t>>& fwd)
    {
        const int64_t ext = m_ext++;
        const int64_t seqNo = m_seq++;
        // Children first so the parent's duration covers them; written parent first (Kineto order).
        const int64_t childStart = t + m_rng.range(2000, 8000);
        int64_t c = childStart + m_rng.range(1000, 3000);
        m_tid = kMainTid;
        std::vector<int64_t> launches;
        const int n = int(m_rng.range(1, 2));
        for (int i = 0; i < n; ++i) {
            launches.push_back(c);
            c += m_rng.range(9000, 20000);
        }
        const int64_t childEnd = c + m_rng.range(1000, 3000);
        const int64_t end = childEnd + m_rng.range(2000, 6000);
        cpuOp(op, t, end - t, ext, seqNo, sh);
        flow('s', "fwdbwd", uint64_t(seqNo + 1), kPid, kMainTid, t);
        fwd.push_back({seqNo, int64_t(&op - kOps)});
        const OpKind child{op.name == std::string_view("aten::linear") ? "aten::addmm"
                                                                       : "aten::empty_strided",
                           nullptr, op.inputs};
        const int64_t childExt = m_ext++;
        cpuOp(child, childStart, childEnd - childStart, childExt, -1, sh);
        if (m_opt.argHeavy) {
            // Argument-only ops between the launches, as torch records them (views, empties).
            static const OpKind small[] = {{"aten::view", nullptr, 2},
                                           {"aten::empty", nullptr, 6},
                                           {"aten::as_strided", nullptr, 4},
                                           {"aten::reshape", nullptr, 2},
                                           {"aten::t", nullptr, 1}};
            int64_t s = childStart + 100;
            const int count = int(m_rng.range(2, 4));
            for (int i = 0; i < count && s + 400 < launches.front(); ++i) {
                const int64_t d = std::min<int64_t>(m_rng.range(200, 900), launches.front() - s - 100);
                cpuOp(small[m_rng.next() % 5], s, d, m_ext++, -1, sh);
                s += d + 50;
            }
        }
        for (int64_t lt : launches)
            launch(lt, childExt);
        if (m_rng.chance(60)) memoryEvent(childStart + 500, int64_t(sh.batch) * sh.seq * 2048);
        return end;
    }

    int64_t backwardOp(int64_t seqNo, const OpKind& op, int64_t t)
    {
        m_tid = kBackwardTid;
        const int64_t ext = m_ext++;
        const int64_t c = t + m_rng.range(3000, 9000);
        std::string name = std::string("autograd::engine::evaluate_function: ") + op.backward;
        const int64_t end = c + m_rng.range(20000, 40000);
        head('X', "cpu_op", name, kPid, kBackwardTid, t, end - t);
        argsOpen();
        put("\"External id\": ");
        putInt(ext);
        put(", \"Record function id\": 0, \"Sequence number\": ");
        putInt(seqNo);
        put(", \"Fwd thread id\": 1, \"Ev Idx\": ");
        putInt(m_evIdx++);
        argsClose();
        head('X', "cpu_op", op.backward, kPid, kBackwardTid, c, end - c - 1000);
        argsOpen();
        put("\"External id\": ");
        putInt(m_ext++);
        put(", \"Record function id\": 0, \"Sequence number\": ");
        putInt(seqNo);
        put(", \"Fwd thread id\": 1, \"Ev Idx\": ");
        putInt(m_evIdx++);
        argsClose();
        flow('f', "fwdbwd", uint64_t(seqNo + 1), kPid, kBackwardTid, c);
        launch(c + 2000, ext);
        if (m_rng.chance(50)) memoryEvent(end - 500, -int64_t(m_rng.range(1, 64)) * 1048576);
        m_tid = kMainTid;
        return end;
    }

    void oneStep(int64_t step)
    {
        const int64_t stepStart = m_cpu;
        const int64_t gpuStepStart = std::max(m_gpu, stepStart + 20000);
        const Shape sh = m_rng.pick(m_shapes);
        // The step annotation is written first but its duration is known only at the end, so the
        // body goes to a side buffer until then.
        std::string outer;
        outer.swap(m_buf);
        ++m_sideDepth;
        const uint64_t eventsBefore = m_events;
        m_events = 1; // body events always need a leading separator
        int64_t t = stepStart + 5000;
        const int64_t pyRoot = m_pyId++;
        const int64_t pyStart = t;
        std::vector<std::pair<int64_t, int64_t>> fwd;
        for (int layer = 0; layer < m_opt.layers; ++layer) {
            const int64_t pyId = m_pyId++;
            const int64_t ls = t;
            const int opsPerLayer = int(m_rng.range(3, 6));
            t += 1000;
            std::string save;
            save.swap(m_buf);
            for (int i = 0; i < opsPerLayer; ++i)
                t = forwardOp(kOps[m_rng.next() % (sizeof kOps / sizeof kOps[0])], t + m_rng.range(500, 3000),
                              sh, fwd) +
                    1000;
            std::string ops;
            ops.swap(m_buf);
            m_buf.swap(save);
            pythonFrame(m_rng.pick(m_pyFiles), ls, t - ls + 500, pyId, pyRoot);
            m_buf += ops;
            t += 2000;
        }
        // Optimizer and loss: a synchronisation call gets Kineto's unmatched 'f'.
        const int64_t corr = m_corr++;
        runtime("cuda_runtime", "cudaStreamSynchronize", 131, t, 50000, corr, -1);
        flow('f', "ac2g", uint64_t(corr), kPid, kMainTid, t);
        t += 52000;
        // Backward on the autograd thread, newest forward op first.
        int64_t bt = t + 3000;
        for (auto it = fwd.rbegin(); it != fwd.rend(); ++it)
            bt = backwardOp(it->first, kOps[it->second], bt + m_rng.range(500, 2000));
        t = std::max(t, bt) + 4000;
        std::string stepBody;
        stepBody.swap(m_buf);
        m_buf.swap(outer);
        --m_sideDepth;
        m_events = eventsBefore;
        const std::string stepName = "ProfilerStep#" + std::to_string(step);
        pythonFrame("train.py(88): train_step", pyStart - 2000, t - pyStart + 2500, pyRoot, -1);
        head('X', "user_annotation", stepName, kPid, kMainTid, stepStart, t - stepStart + 1000);
        argsOpen();
        put("\"External id\": ");
        putInt(m_ext++);
        put(", \"Record function id\": 0, \"Ev Idx\": ");
        putInt(m_evIdx++);
        argsClose();
        m_buf += stepBody;
        if (m_buf.size() > (64 << 10)) flush();
        head('X', "gpu_user_annotation", stepName, 0, kStream, gpuStepStart - 1, m_gpu - gpuStepStart + 2);
        argsOpen();
        put("\"External id\": ");
        putInt(m_ext - 1);
        argsClose();
        m_cpu = t + 10000;
        m_last = std::max(m_cpu, m_gpu);
    }

    void header()
    {
        if (m_opt.compact) {
            put("{\"schemaVersion\": 1, \"deviceProperties\": [{\"id\": 0, \"name\": \"NVIDIA H100 80GB "
                "HBM3\", "
                "\"totalGlobalMem\": 84929347584, \"computeMajor\": 9, \"computeMinor\": 0, \"numSms\": "
                "132}], "
                "\"record_shapes\": 1, \"profile_memory\": 1, \"with_stack\": 1, \"displayTimeUnit\": "
                "\"ms\", "
                "\"baseTimeNanoseconds\": ");
            putInt(kBaseTimeNs);
            put(", \"traceEvents\": [");
            return;
        }
        put("\n{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [\n    {\n      \"id\": 0, \"name\": "
            "\"NVIDIA "
            "H100 80GB HBM3\", \"totalGlobalMem\": 84929347584,\n      \"computeMajor\": 9, "
            "\"computeMinor\": 0,\n"
            "      \"maxThreadsPerBlock\": 1024, \"maxThreadsPerMultiprocessor\": 2048,\n      "
            "\"regsPerBlock\": "
            "65536, \"warpSize\": 32,\n      \"sharedMemPerBlock\": 49152, \"numSms\": 132\n    }\n  ],\n"
            "  \"record_shapes\": 1,\n  \"profile_memory\": 1,\n  \"with_stack\": 1,\n  \"cupti_version\": "
            "24,\n"
            "  \"cuda_runtime_version\": 12040,\n  \"cuda_driver_version\": 12080,\n  \"trace_id\": "
            "\"4C1A3B2D9E8F4A6B\",\n  \"displayTimeUnit\": \"ms\",\n  \"baseTimeNanoseconds\": ");
        putInt(kBaseTimeNs);
        put(",\n  \"traceEvents\": [");
    }

    void meta(const char* what, int64_t pid, int64_t tid, const char* key, std::string_view value, bool quote)
    {
        beginEvent();
        put("{\"name\": \"");
        put(what);
        put("\", \"ph\": \"M\", \"ts\": ");
        putMicros(kStartNs);
        put(", \"pid\": ");
        putInt(pid);
        put(", \"tid\": ");
        putInt(tid);
        put(", \"args\": {\"");
        put(key);
        put("\": ");
        if (quote)
            putString(value);
        else
            put(value);
        put("}}");
    }

    void footer()
    {
        meta("process_name", kPid, 0, "name", "python3", true);
        meta("process_labels", kPid, 0, "labels", "CPU", true);
        meta("process_name", 0, 0, "name", "python3", true);
        meta("process_labels", 0, 0, "labels", "GPU 0", true);
        meta("process_sort_index", 0, 0, "sort_index", "5000000", false);
        meta("thread_name", kPid, kMainTid, "name", "thread 25286 (python3)", true);
        meta("thread_name", kPid, kBackwardTid, "name", "thread 25411 (pt_autograd_0)", true);
        meta("thread_name", 0, kStream, "name", "stream 7 ", true);
        beginEvent();
        put("{\"ph\": \"X\", \"cat\": \"Trace\", \"ts\": ");
        putMicros(kStartNs);
        put(", \"dur\": ");
        putMicros(m_last - kStartNs);
        put(", \"pid\": \"Spans\", \"tid\": \"PyTorch Profiler\", \"name\": \"PyTorch Profiler (0)\", "
            "\"args\": "
            "{\"Op count\": 0}}");
        beginEvent();
        put("{\"name\": \"Iteration Start: PyTorch Profiler\", \"ph\": \"i\", \"s\": \"g\", \"pid\": "
            "\"Traces\", "
            "\"tid\": \"Trace PyTorch Profiler\", \"ts\": ");
        putMicros(kStartNs);
        put("}");
        beginEvent();
        put("{\"name\": \"Record Window End\", \"ph\": \"i\", \"s\": \"g\", \"pid\": \"\", \"tid\": \"\", "
            "\"ts\": ");
        putMicros(m_last + 1000);
        put("}");
        put(m_opt.compact ? "], \"traceName\": \"/tmp/synthetic.pt.trace.json\"}\n"
                          : "\n  ],\n  \"traceName\": \"/tmp/synthetic.pt.trace.json\"\n}\n");
    }

    SynthOptions m_opt;
    const std::function<void(std::string_view)>& m_sink;
    Rng m_rng;
    std::vector<std::string> m_kernels;
    std::vector<std::string> m_pyFiles;
    std::vector<Shape> m_shapes;
    std::string m_buf;
    SynthStats m_stats;
    uint64_t m_events = 0;
    int m_sideDepth = 0;
    int64_t m_cpu = kStartNs + 100000;
    int64_t m_gpu = kStartNs + 100000;
    int64_t m_last = kStartNs;
    int64_t m_tid = kMainTid;
    int64_t m_ext = 1000;
    int64_t m_corr = 600000;
    int64_t m_seq = 18000;
    int64_t m_evIdx = 0;
    int64_t m_pyId = 1;
    int64_t m_allocated = 1003059712;
};

} // namespace

SynthStats writeSynthTrace(const SynthOptions& options, const std::function<void(std::string_view)>& sink)
{
    Generator g(options, sink);
    return g.run();
}

} // namespace ks::bench
