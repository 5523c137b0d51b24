#include "analysis/overview/perfformulas.h"

#include "util/jsonwrite.h"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace ks {

namespace {

void skipSpace(std::string_view s, size_t& i)
{
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i])))
        ++i;
}

// Skips one JSON value of any shape starting at s[i].
bool skipValue(std::string_view s, size_t& i)
{
    skipSpace(s, i);
    if (i >= s.size()) return false;
    if (s[i] == '"') {
        for (++i; i < s.size(); ++i) {
            if (s[i] == '\\')
                ++i;
            else if (s[i] == '"')
                return ++i, true;
        }
        return false;
    }
    if (s[i] == '[' || s[i] == '{') {
        int depth = 0;
        for (; i < s.size(); ++i) {
            if (s[i] == '"') {
                if (!skipValue(s, i)) return false;
                --i;
            } else if (s[i] == '[' || s[i] == '{') {
                ++depth;
            } else if (s[i] == ']' || s[i] == '}') {
                if (--depth == 0) return ++i, true;
            }
        }
        return false;
    }
    while (i < s.size() && s[i] != ',' && s[i] != ']' && s[i] != '}')
        ++i;
    return true;
}

bool parseInt(std::string_view s, size_t& i, int64_t& out)
{
    skipSpace(s, i);
    const auto r = std::from_chars(s.data() + i, s.data() + s.size(), out);
    if (r.ec != std::errc()) return false;
    i = size_t(r.ptr - s.data());
    return true;
}

// Python's int list from a Concrete Inputs string such as "[-1]" or "[512]" (ast.literal_eval).
bool parseIntListText(std::string_view s, std::vector<int64_t>& out)
{
    out.clear();
    size_t i = 0;
    skipSpace(s, i);
    if (i >= s.size() || s[i] != '[') return false;
    ++i;
    skipSpace(s, i);
    if (i < s.size() && s[i] == ']') return true;
    for (;;) {
        int64_t v;
        if (!parseInt(s, i, v)) return false;
        out.push_back(v);
        skipSpace(s, i);
        if (i < s.size() && s[i] == ',') {
            ++i;
            continue;
        }
        return i < s.size() && s[i] == ']';
    }
}

bool parseBoolListText(std::string_view s, std::vector<bool>& out)
{
    out.clear();
    size_t i = 0;
    while (i < s.size()) {
        if (s.substr(i, 4) == "True")
            out.push_back(true), i += 4;
        else if (s.substr(i, 5) == "False")
            out.push_back(false), i += 5;
        else
            ++i;
    }
    return !out.empty();
}

double product(const std::vector<int64_t>& v)
{
    double p = 1;
    for (int64_t x : v)
        p *= double(x);
    return p;
}

std::string pyStr(std::string_view s)
{
    // Python's repr of a str: single quotes unless the text holds one.
    const char q =
        s.find('\'') != std::string_view::npos && s.find('"') == std::string_view::npos ? '"' : '\'';
    std::string out(1, q);
    for (char c : s) {
        if (c == '\\' || c == q) out += '\\';
        out += c;
    }
    out += q;
    return out;
}

std::string pyOptStr(std::string_view s, bool present)
{
    return present ? pyStr(s) : "None";
}

std::string pyBool(bool b)
{
    return b ? "True" : "False";
}

ParamValue pv(std::string s)
{
    return ParamValue{std::move(s)};
}

std::string pyTupleOfStrings(std::initializer_list<std::pair<std::string_view, bool>> items)
{
    std::string out = "(";
    bool first = true;
    for (const auto& [s, present] : items) {
        if (!first) out += ", ";
        first = false;
        out += pyOptStr(s, present);
    }
    if (items.size() == 1) out += ",";
    return out + ")";
}

std::string pyBoolList(const std::vector<bool>& v)
{
    std::string out = "[";
    for (size_t i = 0; i < v.size(); ++i)
        out += (i ? ", " : "") + pyBool(v[i]);
    return out + "]";
}

bool isTrueText(std::string_view s)
{
    return s == "True" || s == "true";
}

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

// --- normalization ---------------------------------------------------------------------------------

std::optional<PerfEstimate> norm(const OpCall& c)
{
    const OpArgList& d = *c.dims;
    const OpArgList& t = *c.types;
    const OpArgList& ci = *c.concrete;
    const PerfVariant v = c.info->variant;
    size_t in = 0;
    bool affine = false, bias = true, training = true, backward = false, floatChannels = false;
    std::vector<bool> mask;
    double channels = 0;
    std::vector<int64_t> tmp;
    switch (v) {
    case PerfVariant::BatchNorm:
    case PerfVariant::InstanceNorm:
        // (input, weight, bias, running_mean, running_var, training/use_input_stats, ...)
        affine = d.isTensor(1);
        training = isTrueText(ci.str(5));
        break;
    case PerfVariant::BatchNormBwd:
        // (grad_out, input, weight, running_mean, running_var, save_mean, save_invstd, train, ...)
        in = 1;
        affine = d.isTensor(2);
        training = isTrueText(ci.str(7));
        mask = {true};
        backward = true;
        break;
    case PerfVariant::BatchNormBwdCudnn:
        // (input, grad_output, weight, ...): inference-only by construction.
        affine = d.isTensor(2);
        training = false;
        mask = {true};
        backward = true;
        break;
    case PerfVariant::LayerNorm:
    case PerfVariant::RmsNorm:
        // (input, normalized_shape, weight, bias, eps)
        if (!parseIntListText(ci.str(1), tmp)) return std::nullopt;
        channels = product(tmp);
        affine = d.isTensor(2);
        bias = v == PerfVariant::LayerNorm && d.isTensor(3);
        training = v == PerfVariant::LayerNorm;
        break;
    case PerfVariant::LayerNormBwd:
        // (grad_out, input, normalized_shape, mean, rstd, weight, bias, output_mask)
        in = 1;
        if (!parseIntListText(ci.str(2), tmp)) return std::nullopt;
        channels = product(tmp);
        if (!parseBoolListText(ci.str(7), mask) || mask.size() < 3) return std::nullopt;
        affine = mask[1];
        bias = mask[2];
        backward = true;
        break;
    case PerfVariant::RmsNormBwd:
        // (grad_out, input, normalized_shape, rstd, weight, output_mask)
        in = 1;
        if (!parseIntListText(ci.str(2), tmp)) return std::nullopt;
        channels = product(tmp);
        if (!parseBoolListText(ci.str(5), mask) || mask.size() < 2) return std::nullopt;
        affine = d.isTensor(4);
        bias = false;
        training = false;
        backward = true;
        break;
    case PerfVariant::GroupNorm:
        // group_norm (input, num_groups, weight, bias, ...); native_group_norm (input, weight, bias, ...)
        affine = d.isTensor(2) || d.isTensor(1);
        break;
    case PerfVariant::GroupNormBwd: {
        // (grad_out, input, mean, rstd, weight, N, C, HxW, group, output_mask)
        in = 1;
        affine = d.isTensor(4);
        int64_t groups = 0;
        const std::string_view g = ci.str(8);
        if (std::from_chars(g.data(), g.data() + g.size(), groups).ec != std::errc() || groups <= 0)
            return std::nullopt;
        if (!parseBoolListText(ci.str(9), mask)) return std::nullopt;
        if (!d.isIntList(1) || d.ints(1).size() < 2) return std::nullopt;
        channels = double(d.ints(1)[1]) / double(groups); // TraceLens: channels per group
        floatChannels = true;
        backward = true;
        break;
    }
    default:
        return std::nullopt;
    }
    if (!d.isIntList(in)) return std::nullopt;
    const std::vector<int64_t> shape = d.ints(in);
    if (channels == 0) {
        if (shape.size() < 2) return std::nullopt;
        channels = double(shape[1]);
    }
    if (channels <= 0) return std::nullopt;
    PerfEstimate e;
    const int64_t ic = int64_t(channels);
    e.params = {{"op_shape", pv(pyTuple(shape))},
                {"dtype_in_out", pv(pyTupleOfStrings({{t.str(in), true}, {"", false}}))},
                {"stride_input", pv(c.strides->isIntList(in) ? pyTuple(c.strides->ints(in)) : "None")},
                {"stride_output", pv("")},
                {"num_channels",
                 pv(floatChannels || double(ic) != channels ? pyFloat(channels) : std::to_string(ic))},
                {"has_bias", pv(pyBool(bias))},
                {"is_affine", pv(pyBool(affine))},
                {"is_training", pv(pyBool(training))}};
    if (backward) e.params.push_back({"output_mask", pv(pyBoolList(mask))});
    const double n = product(shape), C = channels;
    const int bpe = bytesPerElement(t.str(in));
    if (v == PerfVariant::RmsNorm) {
        e.flops = n / C * (2 * C + 2) + n * (affine ? 2 : 1);
        if (bpe > 0) e.bytes = n * bpe * 2 + (affine ? C * bpe : 0);
        return e;
    }
    if (v == PerfVariant::RmsNormBwd) {
        // grad_out * weight, x_hat, then grad_in from a dot product; grad_weight when asked.
        double f = (affine ? n : 0) + n;
        if (mask[0]) f += 6 * n;
        if (mask[1] && affine) f += n + (n / C > 1 ? n : 0);
        e.flops = f;
        if (bpe > 0) e.bytes = n * bpe * 3 + (affine ? C * bpe * 2 : 0);
        return e;
    }
    if (!backward) {
        e.flops = C * 3 + (training ? n * 3 : 0) + C * 3 + 2 * n;
        const int weights = 2 + (affine ? 1 + (bias ? 1 : 0) : 0) + (training ? 2 : 0);
        if (bpe > 0) e.bytes = n * bpe * 2 + weights * C * bpe;
        return e;
    }
    const double perChannel = n / C;
    double f = (training ? 0 : 3) + 4 * perChannel;
    if (!mask.empty() && mask[0]) {
        if (training) f += 5 * perChannel;
    } else {
        f += 2 * perChannel;
    }
    e.flops = C * f;
    if (bpe > 0) {
        double b = n * bpe + n * bpe * ((!mask.empty() && mask[0] && training) ? 2 : 1);
        if (training) b += C * bpe;
        if (affine) {
            b += C * bpe;
            if (training) b += C * bpe * (bias ? 2 : 1);
        }
        e.bytes = b;
    }
    return e;
}

} // namespace

bool OpArgList::parse(std::string_view s)
{
    m_items.clear();
    m_values.clear();
    size_t i = 0;
    skipSpace(s, i);
    if (i >= s.size() || s[i] != '[') return false;
    ++i;
    skipSpace(s, i);
    if (i < s.size() && s[i] == ']') return true;
    while (i < s.size()) {
        skipSpace(s, i);
        Item it;
        const size_t at = i;
        if (s[i] == '"') {
            it.kind = Kind::String;
            size_t j = i + 1;
            while (j < s.size() && s[j] != '"')
                j += s[j] == '\\' ? 2 : 1;
            it.text = s.substr(i + 1, std::min(j, s.size()) - i - 1);
            i = j + 1;
        } else if (s[i] == '[') {
            // An integer list, unless it nests or holds anything else.
            it.kind = Kind::IntList;
            it.first = uint32_t(m_values.size());
            size_t j = i + 1;
            skipSpace(s, j);
            bool ok = true;
            if (j < s.size() && s[j] == ']') {
                ++j;
            } else {
                for (;;) {
                    int64_t v;
                    if (!parseInt(s, j, v)) {
                        ok = false;
                        break;
                    }
                    m_values.push_back(v);
                    skipSpace(s, j);
                    if (j < s.size() && s[j] == ',') {
                        ++j;
                        continue;
                    }
                    if (j < s.size() && s[j] == ']')
                        ++j;
                    else
                        ok = false;
                    break;
                }
            }
            if (ok) {
                it.size = uint32_t(m_values.size() - it.first);
                i = j;
            } else {
                m_values.resize(it.first);
                it = Item{};
                i = at;
                if (!skipValue(s, i)) return false;
            }
        } else if (s.substr(i, 4) == "null") {
            it.kind = Kind::Null;
            i += 4;
        } else if (s[i] == '-' || std::isdigit(static_cast<unsigned char>(s[i]))) {
            it.kind = Kind::Number;
            if (!skipValue(s, i)) return false;
            it.text = s.substr(at, i - at);
        } else {
            if (!skipValue(s, i)) return false;
        }
        m_items.push_back(it);
        skipSpace(s, i);
        if (i < s.size() && s[i] == ',') {
            ++i;
            continue;
        }
        return i < s.size() && s[i] == ']';
    }
    return false;
}

std::vector<int64_t> OpArgList::ints(size_t i) const
{
    if (!isIntList(i)) return {};
    const Item& it = m_items[i];
    return std::vector<int64_t>(m_values.begin() + it.first, m_values.begin() + it.first + it.size);
}

int bytesPerElement(std::string_view dtype)
{
    std::string l(dtype);
    std::transform(l.begin(), l.end(), l.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    if (l == "double" || l == "long int") return 8;
    if (l == "float" || l == "scalar" || l == "int") return 4;
    if (l == "c10::half" || l == "c10::bfloat16") return 2;
    if (l == "c10::float8_e4m3fnuz" || l == "c10::float8_e4m3fn" || l == "c10::float8_e5m2" ||
        l == "c10::float8_e8m0fnu" || l == "unsigned char" || l == "signed char" || l == "fp8" ||
        l == "c10::float4_e2m1fn_x2" || l == "fp4")
        return 1;
    return 0;
}

std::string pyTuple(const std::vector<int64_t>& v)
{
    std::string out = "(";
    for (size_t i = 0; i < v.size(); ++i)
        out += (i ? ", " : "") + std::to_string(v[i]);
    if (v.size() == 1) out += ",";
    return out + ")";
}

std::string pyFloat(double d)
{
    std::string out;
    appendJsonDouble(out, d);
    return out;
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
        return norm(c);
    case PerfFamily::None:
        break;
    }
    return std::nullopt;
}

} // namespace ks
