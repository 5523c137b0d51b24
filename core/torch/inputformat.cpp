#include "inputformat.h"

#include <c10/util/string_view.h>
#include <charconv>
#include <cstring>

namespace ks::torchobs {

namespace {

void appendInt(std::string& out, int64_t v)
{
    char buf[24];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    out.append(buf, r.ptr);
}

void appendJsonString(std::string& out, std::string_view s)
{
    out += '"';
    for (char c : s) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if (static_cast<unsigned char>(c) < 0x20) {
            out += ' ';
        } else {
            out += c;
        }
    }
    out += '"';
}

std::string scalarText(const c10::IValue& v)
{
    if (v.isBool()) return v.toBool() ? "True" : "False";
    if (v.isInt()) return std::to_string(v.toInt());
    if (v.isDouble()) {
        // Shortest text that reads back as the same double, like Python's repr.
        char buf[32];
        const auto r = std::to_chars(buf, buf + sizeof buf, v.toDouble());
        return std::string(buf, r.ptr);
    }
    return {};
}

} // namespace

void formatInputs(c10::ArrayRef<const c10::IValue> inputs, std::string& out)
{
    out.clear();
    out += "{\"Input Dims\": [";
    bool first = true;
    for (const c10::IValue& v : inputs) {
        if (!first) out += ", ";
        first = false;
        out += '[';
        if (v.isTensor()) {
            const at::Tensor& t = v.toTensor();
            // An undefined tensor (an optional input left out) has no sizes.
            if (t.defined()) {
                bool firstDim = true;
                for (int64_t d : t.sizes()) {
                    if (!firstDim) out += ", ";
                    firstDim = false;
                    appendInt(out, d);
                }
            }
        }
        out += ']';
    }
    out += "], \"Input type\": [";
    first = true;
    for (const c10::IValue& v : inputs) {
        if (!first) out += ", ";
        first = false;
        if (v.isTensor()) {
            const at::Tensor& t = v.toTensor();
            if (t.defined()) {
                const c10::string_view n = t.dtype().name();
                appendJsonString(out, std::string_view(n.data(), n.size()));
            } else {
                out += "\"\"";
            }
        } else if (v.isScalar() || v.isBool()) {
            out += "\"Scalar\"";
        } else if (v.isTensorList()) {
            out += "\"TensorList\"";
        } else if (v.isList()) {
            out += "\"GenericList\"";
        } else {
            out += "\"\"";
        }
    }
    out += "], \"Concrete Inputs\": [";
    first = true;
    for (const c10::IValue& v : inputs) {
        if (!first) out += ", ";
        first = false;
        appendJsonString(out, (v.isScalar() || v.isBool()) ? scalarText(v) : std::string());
    }
    out += "]}";
}

void inputSignature(c10::ArrayRef<const c10::IValue> inputs, std::vector<int64_t>& out)
{
    // One tag per input, then what that kind of input contributes to the text.
    enum : int64_t {
        kTensor = 1,
        kUndefined,
        kDouble,
        kInt,
        kBool,
        kOtherScalar,
        kTensorList,
        kList,
        kOther
    };
    out.clear();
    for (const c10::IValue& v : inputs) {
        if (v.isTensor()) {
            const at::Tensor& t = v.toTensor();
            if (!t.defined()) {
                out.push_back(kUndefined);
                continue;
            }
            out.push_back(kTensor);
            out.push_back(int64_t(t.scalar_type()));
            out.push_back(t.dim());
            for (int64_t d : t.sizes())
                out.push_back(d);
        } else if (v.isBool()) {
            out.push_back(kBool);
            out.push_back(v.toBool());
        } else if (v.isInt()) {
            out.push_back(kInt);
            out.push_back(v.toInt());
        } else if (v.isDouble()) {
            out.push_back(kDouble);
            const double d = v.toDouble();
            int64_t bits;
            std::memcpy(&bits, &d, sizeof bits);
            out.push_back(bits);
        } else if (v.isScalar()) {
            out.push_back(kOtherScalar);
        } else if (v.isTensorList()) {
            out.push_back(kTensorList);
        } else if (v.isList()) {
            out.push_back(kList);
        } else {
            out.push_back(kOther);
        }
    }
}

} // namespace ks::torchobs
