#include "core/analysis/ranks/collectives.h"

#include "core/util/saturate.h"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace ks {

namespace {

std::string lower(std::string_view s)
{
    std::string out(s);
    for (char& c : out)
        c = char(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

bool startsWith(std::string_view s, std::string_view p)
{
    return s.substr(0, p.size()) == p;
}

// What the trace says about one collective's buffers, gathered from the kernel and the ops around it.
struct CommInfo {
    std::string op, dtype;
    int64_t in = 0, out = 0, group = 0;

    void mergeFrom(const CommInfo& o)
    {
        if (op.empty()) op = o.op;
        if (dtype.empty()) dtype = o.dtype;
        if (!in) in = o.in;
        if (!out) out = o.out;
        if (!group) group = o.group;
    }
    bool complete() const { return !op.empty() && !dtype.empty() && (in || out); }
};

// record_param_comms' keys, which Kineto ≥ 2.4 also copies onto the kernel.
void readCommArgs(const Trace& t, ArgsRef ref, CommInfo& info)
{
    if (!ref.valid()) return;
    t.args().forEach(ref, [&](const Arg& a) {
        if (a.key == "Collective name" && a.value.type == ArgType::String)
            info.op = normalizeCollectiveOp(a.value.text);
        else if (a.key == "In msg nelems" && a.value.isNumber())
            info.in = a.value.toInt();
        else if (a.key == "Out msg nelems" && a.value.isNumber())
            info.out = a.value.toInt();
        else if (a.key == "Group size" && a.value.isNumber())
            info.group = a.value.toInt();
        else if (a.key == "dtype" && a.value.type == ArgType::String)
            info.dtype = std::string(a.value.text);
        return true;
    });
}

// The first input of an nccl:* op: elements from "Input Dims" ([[19618307]]), dtype from "Input type".
void readInputDims(const Trace& t, ArgsRef ref, CommInfo& info)
{
    if (!ref.valid()) return;
    const ArgValue dims = t.args().get(ref, "Input Dims");
    if (dims.type == ArgType::Json) {
        std::string_view s = dims.text;
        const size_t open = s.find('[', 1);
        const size_t close = open == std::string_view::npos ? open : s.find(']', open);
        if (close != std::string_view::npos) {
            int64_t n = 1;
            bool any = false;
            std::string_view inner = s.substr(open + 1, close - open - 1);
            while (!inner.empty()) {
                while (!inner.empty() && (inner[0] == ' ' || inner[0] == ','))
                    inner.remove_prefix(1);
                int64_t v = 0;
                const auto r = std::from_chars(inner.data(), inner.data() + inner.size(), v);
                if (r.ec != std::errc()) break;
                n = mulSaturated(n, v);
                any = true;
                inner.remove_prefix(size_t(r.ptr - inner.data()));
            }
            if (any && !info.in) info.in = n;
        }
    }
    const ArgValue types = t.args().get(ref, "Input type");
    if (types.type == ArgType::Json && info.dtype.empty()) {
        const size_t q = types.text.find('"');
        const size_t e = q == std::string_view::npos ? q : types.text.find('"', q + 1);
        if (e != std::string_view::npos && e > q + 1)
            info.dtype = std::string(types.text.substr(q + 1, e - q - 1));
    }
}

// What one CPU op says: record_param_comms carries the sizes, nccl:* / gloo:* name the op and their
// first input is the buffer, c10d::* names the op.
void readCommOp(const Trace& t, SliceRef op, CommInfo& info)
{
    const SliceTrack& s = t.slices(op.track);
    const std::string_view name = t.str(s.name(op.index));
    CommInfo c;
    if (name == "record_param_comms") {
        readCommArgs(t, s.args(op.index), c);
    } else if (startsWith(name, "nccl:") || startsWith(name, "gloo:")) {
        c.op = normalizeCollectiveOp(name);
        readInputDims(t, s.args(op.index), c);
    } else if (startsWith(name, "c10d::")) {
        c.op = normalizeCollectiveOp(name);
    }
    info.mergeFrom(c);
}

// The CPU ops around a launch: the launching op, the ops nested in it (torch nests nccl:* inside
// record_param_comms inside c10d::*, and a launch may sit at any of those levels), then its parents.
void readLaunchingOps(const Trace& t, SliceRef op, CommInfo& info)
{
    if (!op.valid()) return;
    const SliceTrack& s = t.slices(op.track);
    readCommOp(t, op, info);
    const TimeNs end = s.end(op.index);
    for (size_t j = op.index + 1, n = 0; j < s.size() && s.start(j) < end && n < 8 && !info.complete();
         ++j, ++n)
        readCommOp(t, SliceRef{op.track, uint32_t(j)}, info);
    int64_t parent = s.parent(op.index);
    for (int hops = 0; parent >= 0 && hops < 6 && !info.complete(); ++hops) {
        readCommOp(t, SliceRef{op.track, uint32_t(parent)}, info);
        parent = s.parent(size_t(parent));
    }
}

Collective makeCollective(const CommInfo& info, std::string_view name, TimeNs start, TimeNs dur)
{
    Collective c;
    c.op = info.op.empty() ? std::string("other") : info.op;
    c.name = std::string(name);
    c.dtype = info.dtype;
    c.elements = std::max(info.in, info.out);
    const int size = dtypeSize(info.dtype);
    c.bytes = size > 0 ? mulSaturated(c.elements, size) : 0;
    c.groupSize = info.group;
    c.start = start;
    c.duration = dur;
    return c;
}

} // namespace

std::string normalizeCollectiveOp(std::string_view name)
{
    const std::string low = lower(name);
    std::string_view v = low;
    for (std::string_view lib : {"nccl:", "gloo:", "c10d::"})
        if (startsWith(v, lib)) v.remove_prefix(lib.size());
    std::string s;
    for (char c : v)
        if (c != '_') s.push_back(c);
    v = s;
    for (bool stripped = true; stripped;) {
        stripped = false;
        for (std::string_view suffix : {"intotensor", "coalesced", "tensor", "base"}) {
            if (v.size() > suffix.size() && v.ends_with(suffix)) {
                v.remove_suffix(suffix.size());
                stripped = true;
                break; // "intotensor" before "tensor" again
            }
        }
    }
    static constexpr std::string_view kOps[] = {"allreduce", "allgather", "reducescatter", "alltoall",
                                                "broadcast", "reduce",    "sendrecv",      "send",
                                                "recv",      "barrier",   "gather",        "scatter"};
    for (std::string_view op : kOps)
        if (v == op) return std::string(op);
    if (v == "alltoallv" || v == "alltoallsingle") return "alltoall";
    return {};
}

std::string collectiveOpFromKernelName(std::string_view k)
{
    for (std::string_view prefix : {"ncclDevKernel_", "ncclKernel_", "rcclKernel_", "ncclDevKernelDebug_"}) {
        if (!startsWith(k, prefix)) continue;
        std::string_view rest = k.substr(prefix.size());
        const size_t cut = rest.find_first_of("_(<");
        std::string op = normalizeCollectiveOp(rest.substr(0, cut));
        return op.empty() ? std::string("other") : op;
    }
    return "other";
}

bool isCommunicationKernelName(std::string_view name)
{
    const std::string l = lower(name.substr(0, std::min<size_t>(name.size(), 64)));
    return l.find("nccl") != std::string::npos || l.find("rccl") != std::string::npos;
}

int dtypeSize(std::string_view d)
{
    if (startsWith(d, "c10::")) d.remove_prefix(5);
    const std::string l = lower(d);
    if (l == "float" || l == "float32" || l == "int" || l == "int32" || l == "uint32" || l == "unsigned int")
        return 4;
    if (l == "double" || l == "float64" || l == "long" || l == "long int" || l == "int64" || l == "uint64" ||
        l == "complexfloat" || l == "long long")
        return 8;
    if (l == "half" || l == "float16" || l == "bfloat16" || l == "short" || l == "int16" || l == "short int")
        return 2;
    if (l == "char" || l == "byte" || l == "bool" || l == "int8" || l == "uint8" || l == "unsigned char" ||
        l == "signed char" || startsWith(l, "float8"))
        return 1;
    if (l == "complexdouble") return 16;
    return 0;
}

double busBandwidthFactor(std::string_view op, int64_t n)
{
    if (n <= 0) return 1.0;
    const double r = double(n);
    if (op == "allreduce") return 2.0 * (r - 1) / r;
    if (op == "allgather" || op == "reducescatter" || op == "alltoall") return (r - 1) / r;
    return 1.0;
}

std::vector<Collective> extractCollectives(const Trace& t, const LinkIndex& links, TimeNs offset)
{
    std::vector<Collective> out;
    for (size_t ti = 0; ti < t.trackCount(); ++ti) {
        const Track& tr = t.track(TrackId(uint32_t(ti)));
        const SliceTrack& s = tr.slices;
        for (size_t i = 0; i < s.size(); ++i) {
            if (t.kindOf(s.category(i)) != EventKind::Kernel) continue;
            const std::string_view name = t.str(s.name(i));
            if (!isCommunicationKernelName(name)) continue;
            const SliceRef ref{tr.id, uint32_t(i)};
            CommInfo info;
            readCommArgs(t, s.args(i), info);
            if (!info.complete()) readLaunchingOps(t, links.launchingOp(ref), info);
            if (info.op.empty()) info.op = collectiveOpFromKernelName(name);
            Collective c = makeCollective(info, name, addSaturated(s.start(i), offset), s.duration(i));
            c.stream = tr.stream;
            out.push_back(std::move(c));
        }
    }
    if (out.empty()) {
        // No device communication (gloo, CPU-only traces): the CPU ops are the collectives. The
        // outermost op that names one counts, once.
        for (size_t ti = 0; ti < t.trackCount(); ++ti) {
            const Track& tr = t.track(TrackId(uint32_t(ti)));
            if (tr.kind != TrackKind::CpuThread) continue;
            const SliceTrack& s = tr.slices;
            TimeNs coveredUntil = INT64_MIN;
            for (size_t i = 0; i < s.size(); ++i) {
                const std::string_view name = t.str(s.name(i));
                const bool rpc = name == "record_param_comms";
                if (!rpc && !startsWith(name, "nccl:") && !startsWith(name, "gloo:")) continue;
                if (s.start(i) < coveredUntil) continue; // inside the collective counted already
                CommInfo info;
                readLaunchingOps(t, SliceRef{tr.id, uint32_t(i)}, info);
                if (info.op.empty() && !rpc) continue;
                Collective c = makeCollective(info, name, addSaturated(s.start(i), offset), s.duration(i));
                c.onDevice = false;
                c.stream = -1;
                out.push_back(std::move(c));
                coveredUntil = s.end(i);
            }
        }
    }
    std::stable_sort(out.begin(), out.end(),
                     [](const Collective& a, const Collective& b) { return a.start < b.start; });
    return out;
}

} // namespace ks
