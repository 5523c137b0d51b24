#include "core/analysis/summary/flopcounter.h"

#include <charconv>

namespace ks {

namespace {

struct Cursor {
    const char* p;
    const char* end;

    void skipSpace()
    {
        while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
            ++p;
    }
    bool eat(char c)
    {
        skipSpace();
        if (p < end && *p == c) {
            ++p;
            return true;
        }
        return false;
    }
    bool peek(char c)
    {
        skipSpace();
        return p < end && *p == c;
    }
    // An integer token; false (nothing consumed) for anything else, including non-integral numbers.
    bool integer(int64_t& v)
    {
        skipSpace();
        const char* q = p;
        auto r = std::from_chars(q, end, v);
        if (r.ec != std::errc() || (r.ptr < end && (*r.ptr == '.' || *r.ptr == 'e' || *r.ptr == 'E')))
            return false;
        p = r.ptr;
        return true;
    }
    // Skips one JSON value of any kind.
    bool skipValue()
    {
        skipSpace();
        if (p >= end) return false;
        if (*p == '"') {
            for (++p; p < end && *p != '"'; ++p)
                if (*p == '\\') ++p;
            if (p >= end) return false;
            ++p;
            return true;
        }
        if (*p == '[' || *p == '{') {
            const char close = *p == '[' ? ']' : '}';
            ++p;
            if (eat(close)) return true;
            do {
                if (close == '}') {
                    if (!skipValue() || !eat(':')) return false;
                }
                if (!skipValue()) return false;
            } while (eat(','));
            return eat(close);
        }
        while (p < end && *p != ',' && *p != ']' && *p != '}' && *p != ' ')
            ++p;
        return true;
    }
};

// Reads a list of integers ("[2, 3]") into out; false when the text is anything else.
bool intList(Cursor& c, std::vector<int64_t>& out)
{
    if (!c.eat('[')) return false;
    if (c.eat(']')) return true;
    do {
        int64_t v;
        if (!c.integer(v)) return false;
        out.push_back(v);
    } while (c.eat(','));
    return c.eat(']');
}

} // namespace

FlopOp FlopCounter::opOf(std::string_view name)
{
    if (name == "aten::mm") return FlopOp::Mm;
    if (name == "aten::addmm") return FlopOp::Addmm;
    if (name == "aten::bmm") return FlopOp::Bmm;
    if (name == "aten::baddbmm") return FlopOp::Baddbmm;
    if (name == "aten::conv2d") return FlopOp::Conv2d;
    if (name == "aten::mul") return FlopOp::Mul;
    if (name == "aten::add") return FlopOp::Add;
    return FlopOp::None;
}

bool FlopCounter::parseDims(std::string_view json)
{
    m_values.clear();
    m_dims.clear();
    Cursor c{json.data(), json.data() + json.size()};
    if (!c.eat('[')) return false;
    if (c.eat(']')) return true;
    do {
        Item it;
        it.first = uint32_t(m_values.size());
        const Cursor save = c;
        if (c.peek('[') && intList(c, m_values)) {
            it.isList = true;
            it.size = uint32_t(m_values.size() - it.first);
        } else {
            // Nested lists (tensor lists), strings, nulls: not a shape this rule can use.
            m_values.resize(it.first);
            c = save;
            if (!c.skipValue()) return false;
        }
        m_dims.push_back(it);
    } while (c.eat(','));
    return c.eat(']');
}

bool FlopCounter::parseConcrete(std::string_view json)
{
    m_concreteValues.clear();
    m_concrete.clear();
    Cursor c{json.data(), json.data() + json.size()};
    if (!c.eat('[')) return false;
    if (c.eat(']')) return true;
    do {
        Item it;
        it.first = uint32_t(m_concreteValues.size());
        c.skipSpace();
        if (c.p < c.end && *c.p == '"') {
            // The value is a string holding Python-ish text: "[1, 1]", "1", "" or "'same'".
            const char* s = c.p + 1;
            const char* e = s;
            while (e < c.end && *e != '"') {
                if (*e == '\\') ++e;
                ++e;
            }
            if (e >= c.end) return false;
            Cursor inner{s, e};
            int64_t v;
            if (inner.peek('[')) {
                if (intList(inner, m_concreteValues)) {
                    inner.skipSpace();
                    it.isList = inner.p == inner.end;
                }
            } else if (inner.integer(v)) {
                inner.skipSpace();
                if (inner.p == inner.end) {
                    m_concreteValues.push_back(v);
                    it.isInt = true;
                }
            }
            if (!it.isList && !it.isInt) m_concreteValues.resize(it.first);
            it.size = uint32_t(m_concreteValues.size() - it.first);
            c.p = e + 1;
        } else if (!c.skipValue()) {
            return false;
        }
        m_concrete.push_back(it);
    } while (c.eat(','));
    return c.eat(']');
}

uint64_t FlopCounter::product(const Item& it) const
{
    uint64_t p = 1;
    for (uint32_t i = 0; i < it.size; ++i)
        p *= uint64_t(m_values[it.first + i]);
    return p;
}

uint64_t FlopCounter::matmul(size_t a, size_t b) const
{
    if (m_dims.size() <= std::max(a, b) || !m_dims[a].isList || !m_dims[b].isList) return 0;
    const Item& m1 = m_dims[a];
    if (m1.size == 0) return 0;
    const uint64_t k = uint64_t(m_values[m1.first + m1.size - 1]);
    if (k == 0) return 0;
    return 2 * (product(m1) / k) * product(m_dims[b]);
}

uint64_t FlopCounter::batchedMatmul(size_t a, size_t b) const
{
    if (m_dims.size() <= std::max(a, b) || !m_dims[a].isList || !m_dims[b].isList) return 0;
    const Item& m1 = m_dims[a];
    if (m1.size == 0) return 0;
    const uint64_t batch = uint64_t(m_values[m1.first]);
    const uint64_t k = uint64_t(m_values[m1.first + m1.size - 1]);
    if (batch == 0 || k == 0) return 0;
    return 2 * product(m1) / k / batch * product(m_dims[b]);
}

uint64_t FlopCounter::conv2d() const
{
    if (m_dims.size() < 2 || m_concrete.size() < 7) return 0;
    const Item& in = m_dims[0];
    const Item& w = m_dims[1];
    if (!in.isList || in.size != 4 || !w.isList || w.size != 4) return 0;
    for (size_t i = 3; i <= 5; ++i)
        if (!m_concrete[i].isList || m_concrete[i].size != 2) return 0;
    if (!m_concrete[6].isInt) return 0;
    auto cv = [this](size_t arg, size_t i) { return m_concreteValues[m_concrete[arg].first + i]; };
    const int64_t groups = cv(6, 0);
    const int64_t s0 = cv(3, 0), s1 = cv(3, 1);
    if (groups == 0 || s0 * s1 == 0) return 0;
    const int64_t p0 = cv(4, 0), p1 = cv(4, 1);
    const int64_t d0 = cv(5, 0), d1 = cv(5, 1);
    auto iv = [this](const Item& it, size_t i) { return m_values[it.first + i]; };
    const int64_t n = iv(in, 0), cin = iv(in, 1), h = iv(in, 2), wd = iv(in, 3);
    const int64_t cout = iv(w, 0), kh = iv(w, 2), kw = iv(w, 3);
    const int64_t hout = (h + 2 * p0 - d0 * (kh - 1) - 1) / s0 + 1;
    const int64_t wout = (wd + 2 * p1 - d1 * (kw - 1) - 1) / s1 + 1;
    return uint64_t(2) * uint64_t(n) * uint64_t(hout) * uint64_t(wout) * uint64_t(kh) * uint64_t(kw) *
           uint64_t(cin) * uint64_t(cout) / uint64_t(groups);
}

uint64_t FlopCounter::conv2dFromOutput(std::string_view inputDims, std::string_view outputDims)
{
    if (!parseDims(inputDims) || m_dims.size() < 2) return 0;
    const Item in = m_dims[0];
    const Item w = m_dims[1];
    if (!in.isList || in.size != 4 || !w.isList || w.size != 4) return 0;
    int64_t x[4], k[4];
    for (size_t i = 0; i < 4; ++i) {
        x[i] = m_values[in.first + i];
        k[i] = m_values[w.first + i];
    }
    if (!parseDims(outputDims) || m_dims.empty()) return 0;
    const Item out = m_dims[0];
    if (!out.isList || out.size != 4) return 0;
    const int64_t n = m_values[out.first], cout = m_values[out.first + 1];
    const int64_t hout = m_values[out.first + 2], wout = m_values[out.first + 3];
    // The weight is [C_out, C_in / groups, kh, kw]; a gradient of another shape is not this conv's.
    if (n != x[0] || cout != k[0] || k[1] <= 0 || x[1] % k[1] != 0) return 0;
    const int64_t groups = x[1] / k[1];
    if (groups == 0) return 0;
    return uint64_t(2) * uint64_t(n) * uint64_t(hout) * uint64_t(wout) * uint64_t(k[2]) * uint64_t(k[3]) *
           uint64_t(x[1]) * uint64_t(cout) / uint64_t(groups);
}

uint64_t FlopCounter::count(FlopOp op, std::string_view inputDims, std::string_view concreteInputs)
{
    if (op == FlopOp::None || !parseDims(inputDims)) return 0;
    switch (op) {
    case FlopOp::Mm:
        return matmul(0, 1);
    case FlopOp::Addmm:
        return matmul(1, 2);
    case FlopOp::Bmm:
        return batchedMatmul(0, 1);
    case FlopOp::Baddbmm:
        return batchedMatmul(1, 2);
    case FlopOp::Conv2d:
        return parseConcrete(concreteInputs) ? conv2d() : 0;
    case FlopOp::Mul:
    case FlopOp::Add:
        return !m_dims.empty() && m_dims[0].isList ? product(m_dims[0]) : 0;
    case FlopOp::None:
        break;
    }
    return 0;
}

} // namespace ks
