#include "core/analysis/overview/perfformulas.h"

#include <charconv>

namespace ks {

// --- normalization ---------------------------------------------------------------------------------

std::optional<PerfEstimate> estimateNorm(const OpCall& c)
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

} // namespace ks
