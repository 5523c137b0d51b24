#include "core/analysis/overview/perfformulas.h"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace ks {

namespace {

// --- GEMM -------------------------------------------------------------------------------------

std::optional<PerfEstimate> gemm(const OpCall& c)
{
    const OpArgList& d = *c.dims;
    const OpArgList& t = *c.types;
    const OpArgList& st = *c.strides;
    const PerfVariant v = c.info->variant;
    const bool withC = v == PerfVariant::Addmm || v == PerfVariant::Baddbmm; // the added C comes first
    const size_t a = withC ? 1 : 0, b = a + 1;
    if (!d.isIntList(a) || !d.isIntList(b)) return std::nullopt;
    const std::vector<int64_t> A = d.ints(a), B = d.ints(b);
    const bool batched = v == PerfVariant::Bmm || v == PerfVariant::Baddbmm;
    int64_t batch = 1, M, N, K;
    if (batched) {
        if (A.size() != 3 || B.size() != 3) return std::nullopt;
        batch = A[0], M = A[1], K = A[2], N = B[2];
    } else {
        if (A.size() != 2 || B.size() != 2) return std::nullopt;
        M = A[0], K = A[1], N = B[1];
    }
    const bool bias = withC || (v == PerfVariant::ScaledMm && d.size() == 3);
    const std::string_view ta = t.str(a), tb = t.str(b);
    PerfEstimate e;
    if (batched) e.params.push_back({"B", pv(std::to_string(batch))});
    e.params.push_back({"M", pv(std::to_string(M))});
    e.params.push_back({"N", pv(std::to_string(N))});
    e.params.push_back({"K", pv(std::to_string(K))});
    e.params.push_back({"bias", pv(pyBool(bias))});
    e.params.push_back({"stride_A", pv(st.isIntList(a) ? pyTuple(st.ints(a)) : "None")});
    e.params.push_back({"stride_B", pv(st.isIntList(b) ? pyTuple(st.ints(b)) : "None")});
    e.params.push_back({"dtype_A_B", pv(pyTupleOfStrings({{ta, true}, {tb, true}}))});
    if (!batched) e.params.push_back({"B", pv("1")});
    if (!c.gemmKernel.empty()) e.params.push_back({"transpose", pv(gemmTranspose(c.gemmKernel))});
    const double m = double(M), n = double(N), k = double(K);
    e.flops = double(batch) * (2 * m * n * k + (bias ? m * n : 0));
    const int bpe = bytesPerElement(ta);
    int outBpe = bpe;
    if (v == PerfVariant::ScaledMm) outBpe = bpe == 1 ? 2 : (bpe == 2 || bpe == 4 ? bpe : 0);
    if (bpe > 0 && outBpe > 0)
        e.bytes = double(batch) * (m * k * bpe + k * n * bpe + m * n * outBpe + (bias ? n * bpe : 0));
    return e;
}

// --- SDPA forward ----------------------------------------------------------------------------

std::optional<PerfEstimate> sdpa(const OpCall& c)
{
    const OpArgList& d = *c.dims;
    const OpArgList& ci = *c.concrete;
    if (!d.isIntList(0) || !d.isIntList(1) || !d.isIntList(2)) return std::nullopt;
    const std::vector<int64_t> q = d.ints(0), k = d.ints(1), v = d.ints(2);
    if (q.size() != 4 || k.size() != 4 || v.size() != 4) return std::nullopt;
    // (batch, heads, sequence, head dim)
    if (q[0] != k[0] || q[0] != v[0] || k[1] != v[1] || k[2] != v[2] || q[3] != k[3]) return std::nullopt;
    const bool flash = c.info->variant == PerfVariant::SdpaFlash;
    const size_t dropoutAt = flash ? 3 : 5, causalAt = flash ? 4 : 6;
    double dropout = 0;
    const std::string_view dt = ci.str(dropoutAt);
    if (!dt.empty() && dt != "None") {
        std::string tmp(dt);
        char* end = nullptr;
        const double x = std::strtod(tmp.c_str(), &end);
        if (end && *end == '\0') dropout = x;
    }
    const std::string_view ct = ci.str(causalAt);
    const bool causal = !ct.empty() && ct != "None" && (ct == "True" || ct == "true" || ct == "TRUE");
    const double B = double(q[0]), HQ = double(q[1]), NQ = double(q[2]), HKV = double(k[1]),
                 NKV = double(k[2]), DQK = double(q[3]), DV = double(v[3]);
    if (causal && q[2] != k[2]) return std::nullopt; // TraceLens raises: causal needs N_Q == N_KV
    PerfEstimate e;
    e.params = {{"B", pv(std::to_string(q[0]))},
                {"N_Q", pv(std::to_string(q[2]))},
                {"H_Q", pv(std::to_string(q[1]))},
                {"N_KV", pv(std::to_string(k[2]))},
                {"H_KV", pv(std::to_string(k[1]))},
                {"d_h_qk", pv(std::to_string(q[3]))},
                {"d_h_v", pv(std::to_string(v[3]))},
                {"dropout", pv(pyFloat(dropout))},
                {"causal", pv(pyBool(causal))},
                {"flash_impl", pv(pyBool(flash))},
                {"dtype_A_B", pv(pyTupleOfStrings({{c.types->str(0), true}, {c.types->str(1), true}}))}};
    if (c.backward) {
        // Recompute of QK^T (flash), dV, dP, dQ, dK; GQA adds the head reduction of dK and dV.
        const double group = double(q[1] / k[1] - 1);
        double f = flash ? B * HQ * (2 * NQ * NKV * DQK) : 0;
        f += B * HQ * (2 * NKV * NQ * DV) + B * NKV * DV * group;
        f += B * HQ * (2 * NQ * NKV * DV);
        f += B * HQ * (2 * NQ * NKV * DQK);
        f += B * HQ * (2 * NKV * NQ * DQK) + B * NKV * DQK * group;
        e.flops = causal ? f / 2 : f;
        // Q, K, V and dO read; dQ, dK, dV written (2 bytes each, as TraceLens assumes).
        e.bytes =
            (2 * B * NQ * HQ * DQK + 2 * B * NKV * HKV * DQK + 2 * B * NKV * HKV * DV + B * NQ * HQ * DV) * 2;
        return e;
    }
    e.flops = B * HQ * (2 * NQ * NKV * DQK) + B * HQ * (2 * NQ * DV * NKV);
    if (causal) e.flops /= 2;
    // TraceLens assumes 2 bytes per element for attention whatever the dtype.
    e.bytes = (B * NQ * HQ * DQK + B * NKV * HKV * DQK + B * NKV * HKV * DV + B * NQ * HQ * DV) * 2;
    return e;
}

// --- convolution -----------------------------------------------------------------------------

// A stride/padding/dilation string such as "[2, 2]" (one value stands for every spatial dim); the
// default when the argument is empty.
bool convTuple(std::string_view text, size_t ndims, int64_t fallback, std::vector<int64_t>& out)
{
    if (text.empty()) {
        out.assign(ndims, fallback);
        return true;
    }
    if (!parseIntListText(text, out) || out.empty()) return false;
    if (out.size() == 1) out.assign(ndims, out[0]);
    return out.size() == ndims;
}

std::optional<PerfEstimate> conv(const OpCall& c)
{
    const OpArgList& d = *c.dims;
    const OpArgList& ci = *c.concrete;
    const bool bwd = c.info->variant == PerfVariant::ConvBwd;
    // forward: (input, weight, bias, stride, padding, dilation, transposed, output_padding, groups)
    // backward: (grad_output, input, weight, bias_sizes, stride, ..., groups, output_mask)
    const size_t x = bwd ? 1 : 0, w = x + 1, a = bwd ? 4 : 3;
    if (!d.isIntList(x) || !d.isIntList(w)) return std::nullopt;
    const std::vector<int64_t> xs = d.ints(x), ws = d.ints(w);
    if (xs.size() < 3 || xs.size() > 5 || ws.size() != xs.size()) return std::nullopt;
    const size_t nd = xs.size() - 2;
    std::vector<int64_t> stride, padding, dilation, outPad;
    if (!convTuple(ci.str(a), nd, 1, stride) || !convTuple(ci.str(a + 1), nd, 0, padding) ||
        !convTuple(ci.str(a + 2), nd, 1, dilation) || !convTuple(ci.str(a + 4), nd, 0, outPad))
        return std::nullopt;
    const bool transposed = ci.str(a + 3) == "True";
    int64_t groups = 0;
    const std::string_view g = ci.str(a + 5);
    if (std::from_chars(g.data(), g.data() + g.size(), groups).ec != std::errc()) return std::nullopt;
    const std::string_view ti = c.types->str(x), tw = c.types->str(w);
    if (ti != tw) return std::nullopt; // TraceLens rejects mixed input/weight dtypes
    // A bias is a given tensor (TraceLens's forward model tests len(Input Dims) == 3 instead, which a
    // Kineto trace never has; see docs/analyze.md).
    const bool bias = d.isTensor(bwd ? 3 : 2);
    std::vector<int64_t> out{xs[0], transposed ? ws[1] : ws[0]};
    for (size_t i = 0; i < nd; ++i) {
        const int64_t in = xs[2 + i], k = ws[2 + i];
        out.push_back(
            transposed
                ? (in - 1) * stride[i] - 2 * padding[i] + dilation[i] * (k - 1) + outPad[i] + 1
                : int64_t(double(in + 2 * padding[i] - dilation[i] * (k - 1) - 1) / double(stride[i]) + 1));
    }
    PerfEstimate e;
    const char* convNd = nd == 1 ? "conv1d" : nd == 2 ? "conv2d" : "conv3d";
    e.params = {{"convNd", pv(convNd)},
                {"input_shape", pv(pyTuple(xs))},
                {"filter_shape", pv(pyTuple(ws))},
                {"dtype_input_weight", pv(pyTupleOfStrings({{ti, true}, {tw, true}}))},
                {"input_stride", pv(c.strides->isIntList(x) ? pyTuple(c.strides->ints(x)) : "None")},
                {"weight_stride", pv(c.strides->isIntList(w) ? pyTuple(c.strides->ints(w)) : "None")},
                {"bias", pv(pyBool(bias))},
                {"stride", pv(pyTuple(stride))},
                {"padding", pv(pyTuple(padding))},
                {"dilation", pv(pyTuple(dilation))},
                {"transposed_conv", pv(pyBool(transposed))},
                {"output_padding", pv(pyTuple(outPad))},
                {"groups", pv(std::to_string(groups))}};
    const double px = product(xs), pw = product(ws), po = product(out);
    const double perOut = 2 * product(std::vector<int64_t>(ws.begin() + 1, ws.end()));
    const double batch = double(xs[0]);
    const int bpe = bytesPerElement(ti);
    if (!bwd) {
        e.flops = (transposed ? px : po) * perOut + (bias ? po : 0);
        if (bpe > 0) e.bytes = (px + pw + (bias ? double(out[1]) : 0) + po) * bpe;
        return e;
    }
    // Input gradient: a (transposed) convolution of the output gradient with the weights; weight
    // gradient: input x output gradient over batch and space.
    const double outSpatial = po / (batch * double(out[1])), inSpatial = px / (batch * double(xs[1]));
    const double inputGrad = (transposed ? px : po) * perOut;
    const double weightGrad = pw * 2 * batch * (transposed ? inSpatial : outSpatial);
    e.flops = inputGrad + weightGrad + (bias ? po : 0);
    // TraceLens adds the bias gradient as elements, not bytes; kept for comparability.
    if (bpe > 0) e.bytes = 2 * (po + pw + px) * bpe + (bias ? po + double(out[1]) : 0);
    return e;
}

// --- elementwise -------------------------------------------------------------------------------

std::optional<PerfEstimate> unary(const OpCall& c)
{
    const OpArgList& d = *c.dims;
    const OpArgList& t = *c.types;
    if (!d.isIntList(0)) return std::nullopt;
    const std::vector<int64_t> shape = d.ints(0);
    const bool out = d.isTensor(1); // TraceLens: a second, non-empty tensor is the output
    PerfEstimate e;
    e.params = {{"op_shape", pv(pyTuple(shape))},
                {"dtype_in_out", pv(pyTupleOfStrings({{t.str(0), true}, {t.str(1), out}}))},
                {"stride_input", pv(c.strides->isIntList(0) ? pyTuple(c.strides->ints(0)) : "None")},
                {"stride_output", pv(out && c.strides->isIntList(1) ? pyTuple(c.strides->ints(1)) : "")}};
    const double n = product(shape);
    e.flops = n;
    const int bin = bytesPerElement(t.str(0));
    const int bout = out ? bytesPerElement(t.str(1)) : bin;
    if (bin > 0 && bout > 0) e.bytes = n * bin + n * bout;
    return e;
}

std::optional<PerfEstimate> binary(const OpCall& c)
{
    const OpArgList& d = *c.dims;
    const OpArgList& t = *c.types;
    if (!d.isIntList(0) || !d.isIntList(1)) return std::nullopt;
    const std::vector<int64_t> s1 = d.ints(0), s2 = d.ints(1);
    // Broadcast shape, numpy rules.
    const size_t nd = std::max(s1.size(), s2.size());
    std::vector<int64_t> bshape(nd);
    for (size_t i = 0; i < nd; ++i) {
        const int64_t a = i + s1.size() >= nd ? s1[i + s1.size() - nd] : 1;
        const int64_t b = i + s2.size() >= nd ? s2[i + s2.size() - nd] : 1;
        if (a != b && a != 1 && b != 1) return std::nullopt;
        bshape[i] = std::max(a, b);
    }
    const bool out = d.isTensor(2);
    PerfEstimate e;
    e.params = {
        {"shape_in1", pv(pyTuple(s1))},
        {"shape_in2", pv(pyTuple(s2))},
        {"dtype_in1_in2_out", pv(pyTupleOfStrings({{t.str(0), true}, {t.str(1), true}, {t.str(2), out}}))},
        {"stride_input1", pv(c.strides->isIntList(0) ? pyTuple(c.strides->ints(0)) : "None")},
        {"stride_input2", pv(c.strides->isIntList(1) ? pyTuple(c.strides->ints(1)) : "None")},
        {"stride_output", pv(out && c.strides->isIntList(2) ? pyTuple(c.strides->ints(2)) : "")}};
    const double n1 = product(s1), n2 = product(s2), no = product(bshape);
    e.flops = no;
    const int b1 = bytesPerElement(t.str(0)), b2 = bytesPerElement(t.str(1));
    int bo = 0;
    if (out)
        bo = bytesPerElement(t.str(2));
    else if (b1 > 0 && b2 > 0)
        bo = (!s1.empty() && !s2.empty()) ? std::max(b1, b2) : b1;
    if (b1 > 0 && b2 > 0 && bo > 0) e.bytes = n1 * b1 + n2 * b2 + no * bo;
    return e;
}

// --- reductions ---------------------------------------------------------------------------------

std::optional<PerfEstimate> reduce(const OpCall& c)
{
    const OpArgList& d = *c.dims;
    const OpArgList& ci = *c.concrete;
    if (!d.isIntList(0)) return std::nullopt;
    const std::vector<int64_t> shape = d.ints(0);
    const double nin = product(shape);
    // Kineto writes Concrete Inputs as strings: keepdim is the last "True"/"False", dim the last
    // integer or integer list before it. (TraceLens looks for Python bools and ints there, finds
    // none, and so always reduces to one element; see docs/analyze.md.)
    bool keepdim = false;
    size_t keepAt = SIZE_MAX;
    for (size_t i = ci.size(); i-- > 1;) {
        const std::string_view s = ci.str(i);
        if (s == "True" || s == "False") {
            keepdim = s == "True";
            keepAt = i;
            break;
        }
    }
    std::vector<int64_t> dims;
    bool haveDim = false;
    for (size_t i = ci.size(); i-- > 1;) {
        if (i == keepAt) continue;
        const std::string_view s = ci.str(i);
        if (s.empty()) continue;
        if (parseIntListText(s, dims)) {
            haveDim = true;
            break;
        }
        int64_t x;
        const auto r = std::from_chars(s.data(), s.data() + s.size(), x);
        if (r.ec == std::errc() && r.ptr == s.data() + s.size()) {
            dims = {x};
            haveDim = true;
            break;
        }
    }
    double nout = 1;
    if (c.name.find("cumsum") != std::string_view::npos || c.name.find("cumprod") != std::string_view::npos) {
        nout = nin;
    } else if (haveDim && !dims.empty()) {
        std::vector<int64_t> out = shape;
        const int64_t nd = int64_t(shape.size());
        std::vector<int64_t> ds;
        for (int64_t x : dims)
            ds.push_back(x < 0 ? nd + x : x);
        std::sort(ds.rbegin(), ds.rend());
        for (int64_t x : ds)
            if (x >= 0 && x < int64_t(out.size())) {
                if (keepdim)
                    out[size_t(x)] = 1;
                else
                    out.erase(out.begin() + x);
            }
        nout = out.empty() ? 1 : product(out);
    }
    std::string_view type = "sum";
    if (c.name.find("mean") != std::string_view::npos)
        type = "mean";
    else if (c.name.find("max") != std::string_view::npos)
        type = "max";
    else if (c.name.find("min") != std::string_view::npos)
        type = "min";
    else if (c.name.find("norm") != std::string_view::npos)
        type = "norm";
    PerfEstimate e;
    e.params = {{"num_input_elems", pv(std::to_string(int64_t(nin)))},
                {"num_output_elems", pv(std::to_string(int64_t(nout)))},
                {"dtype_in_out", pv(pyTupleOfStrings({{c.types->str(0), true}, {"", false}}))},
                {"reduce_type", pv(std::string(type))}};
    e.flops = nin;
    const int b = bytesPerElement(c.types->str(0));
    if (b > 0) e.bytes = nin * b + nout * b;
    return e;
}

} // namespace

std::string gemmTranspose(std::string_view name)
{
    // Tensile: some prefix, then C, A and B each followed by three index letters.
    for (size_t i = 0; i + 15 <= name.size(); ++i) {
        auto lower3 = [&](size_t at) {
            for (size_t k = at; k < at + 3; ++k)
                if (name[k] < 'a' || name[k] > 'z') return false;
            return true;
        };
        if (name[i] == 'C' && lower3(i + 1) && name[i + 4] == '_' && name[i + 5] == 'A' && lower3(i + 6) &&
            name[i + 9] == '_' && name[i + 10] == 'B' && lower3(i + 11)) {
            auto flag = [&](std::string_view plain, std::string_view transposed) -> std::string {
                if (name.find(plain) != std::string_view::npos) return "False";
                if (name.find(transposed) != std::string_view::npos) return "True";
                return "None";
            };
            return "(" + flag("_Ailk_", "_Alik_") + ", " + flag("_Bljk_", "_Bjlk_") + ")";
        }
    }
    if (name.substr(0, 5) == "nvjet") {
        const std::string_view last = name.substr(name.rfind('_') + 1);
        if (last.size() < 2) return {};
        return std::string("(") + (last[0] == 'T' ? "True" : "False") + ", " +
               (last[1] == 'T' ? "True" : "False") + ")";
    }
    return {};
}

std::optional<PerfEstimate> estimatePerf(const OpCall& c)
{
    if (!c.info || !c.dims || !c.types || !c.strides || !c.concrete) return std::nullopt;
    switch (c.info->family) {
    case PerfFamily::Gemm:
        return gemm(c);
    case PerfFamily::Sdpa:
        return sdpa(c);
    case PerfFamily::Conv:
        return conv(c);
    case PerfFamily::Unary:
        return unary(c);
    case PerfFamily::Binary:
        return binary(c);
    case PerfFamily::Reduce:
        return reduce(c);
    case PerfFamily::Norm:
        return estimateNorm(c);
    case PerfFamily::None:
        break;
    }
    return std::nullopt;
}

} // namespace ks