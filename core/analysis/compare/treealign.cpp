#include "core/analysis/compare/treealign.h"

#include <algorithm>
#include <cctype>

namespace ks {

std::vector<uint32_t> childRows(const SliceTrack& s, uint32_t row)
{
    std::vector<uint32_t> out;
    const size_t depth = size_t(s.depth(row)) + 1;
    if (depth >= s.levelCount()) return out;
    const TimeNs from = s.start(row), to = s.end(row);
    const SliceTrack::Level& level = s.level(depth);
    size_t i = s.firstAtDepthEndingAfter(depth, from, true);
    const size_t stop = s.endAtDepthStartingBefore(depth, to, true);
    for (; i < stop; ++i) {
        const uint32_t r = level.rows[i];
        if (r == row || s.start(r) < from || s.end(r) > to) continue;
        // Zero-length slices at the parent's very end belong to the parent only if nested by row.
        if (r < row) continue;
        out.push_back(r);
    }
    return out;
}

struct StepTreeAligner::Ctx {
    TreeAlignment* out;
};

namespace {

// Python frames name objects by address ("<built-in method encode of str object at 0x7f...>"),
// which differs between runs: the address is left out of the comparison.
std::string_view comparable(std::string_view name, std::string& scratch)
{
    const size_t at = name.find(" at 0x");
    if (at == std::string_view::npos) return name;
    size_t end = at + 6;
    while (end < name.size() && std::isxdigit(static_cast<unsigned char>(name[end])))
        ++end;
    scratch.assign(name.substr(0, at));
    scratch.append(name.substr(end));
    return scratch;
}

// Pairs (i, j) of a longest common subsequence of x and y.
template <typename Eq>
std::vector<std::pair<uint32_t, uint32_t>> lcsPairs(size_t n, size_t m, Eq&& eq, bool& approximate)
{
    std::vector<std::pair<uint32_t, uint32_t>> pairs;
    // Common head and tail cost nothing to match and are usually most of a step's ops.
    size_t head = 0;
    while (head < n && head < m && eq(head, head)) {
        pairs.emplace_back(uint32_t(head), uint32_t(head));
        ++head;
    }
    size_t tail = 0;
    while (tail < n - head && tail < m - head && eq(n - 1 - tail, m - 1 - tail))
        ++tail;
    const size_t n2 = n - head - tail, m2 = m - head - tail;
    if (n2 > 0 && m2 > 0) {
        if (n2 * m2 <= StepTreeAligner::kExactLimit) {
            // table[i][j]: LCS length of x[i..] and y[j..] (suffixes, so the walk goes forwards).
            std::vector<uint32_t> t((n2 + 1) * (m2 + 1), 0);
            auto at = [&](size_t i, size_t j) -> uint32_t& { return t[i * (m2 + 1) + j]; };
            for (size_t i = n2; i-- > 0;)
                for (size_t j = m2; j-- > 0;)
                    at(i, j) =
                        eq(head + i, head + j) ? at(i + 1, j + 1) + 1 : std::max(at(i + 1, j), at(i, j + 1));
            size_t i = 0, j = 0;
            while (i < n2 && j < m2) {
                if (eq(head + i, head + j)) {
                    pairs.emplace_back(uint32_t(head + i), uint32_t(head + j));
                    ++i;
                    ++j;
                } else if (at(i + 1, j) >= at(i, j + 1)) {
                    ++i;
                } else {
                    ++j;
                }
            }
        } else {
            approximate = true;
            constexpr size_t kLookahead = 256;
            size_t j = 0;
            for (size_t i = 0; i < n2 && j < m2; ++i) {
                for (size_t k = j; k < m2 && k < j + kLookahead; ++k) {
                    if (eq(head + i, head + k)) {
                        pairs.emplace_back(uint32_t(head + i), uint32_t(head + k));
                        j = k + 1;
                        break;
                    }
                }
            }
        }
    }
    for (size_t k = 0; k < tail; ++k)
        pairs.emplace_back(uint32_t(n - tail + k), uint32_t(m - tail + k));
    return pairs;
}

} // namespace

TreeAlignment StepTreeAligner::align(SliceRef stepA, SliceRef stepB) const
{
    TreeAlignment out;
    if (!stepA.valid() || !stepB.valid()) return out;
    out.stepSliceA = stepA;
    out.stepSliceB = stepB;
    const SliceTrack& sa = m_a.slices(stepA.track);
    const SliceTrack& sb = m_b.slices(stepB.track);
    out.stepStartA = sa.start(stepA.index);
    out.stepStartB = sb.start(stepB.index);
    out.stepDurA = sa.end(stepA.index) - out.stepStartA;
    out.stepDurB = sb.end(stepB.index) - out.stepStartB;
    Ctx ctx{&out};
    alignChildren(ctx, stepA, stepB, 0);
    return out;
}

void StepTreeAligner::emitSubtree(Ctx& ctx, bool sideB, SliceRef root, uint16_t depth) const
{
    const Trace& t = sideB ? m_b : m_a;
    const SliceTrack& s = t.slices(root.track);
    AlignedOp op;
    op.kind = sideB ? AlignedOp::Kind::Inserted : AlignedOp::Kind::Removed;
    op.depth = depth;
    op.name = std::string(t.str(s.name(root.index)));
    op.change = sideB ? DiffCategory::Added : DiffCategory::Deleted;
    const TimeNs base = sideB ? ctx.out->stepStartB : ctx.out->stepStartA;
    if (sideB) {
        op.b = root;
        op.startB = s.start(root.index) - base;
        op.durB = s.end(root.index) - s.start(root.index);
        ++ctx.out->inserted;
    } else {
        op.a = root;
        op.startA = s.start(root.index) - base;
        op.durA = s.end(root.index) - s.start(root.index);
        ++ctx.out->removed;
    }
    ctx.out->ops.push_back(std::move(op));
    if (depth == UINT16_MAX) return;
    for (uint32_t r : childRows(s, root.index))
        emitSubtree(ctx, sideB, SliceRef{root.track, r}, uint16_t(depth + 1));
}

void StepTreeAligner::alignChildren(Ctx& ctx, SliceRef pa, SliceRef pb, uint16_t depth) const
{
    const SliceTrack& sa = m_a.slices(pa.track);
    const SliceTrack& sb = m_b.slices(pb.track);
    const std::vector<uint32_t> ca = childRows(sa, pa.index);
    const std::vector<uint32_t> cb = childRows(sb, pb.index);
    std::vector<std::string_view> na(ca.size()), nb(cb.size());
    std::vector<std::string> scratch(ca.size() + cb.size()); // sized once: views stay valid
    for (size_t i = 0; i < ca.size(); ++i)
        na[i] = comparable(m_a.str(sa.name(ca[i])), scratch[i]);
    for (size_t j = 0; j < cb.size(); ++j)
        nb[j] = comparable(m_b.str(sb.name(cb[j])), scratch[ca.size() + j]);
    const auto pairs = lcsPairs(
        ca.size(), cb.size(), [&](size_t i, size_t j) { return na[i] == nb[j]; }, ctx.out->approximate);

    // Walk both sequences in order, emitting what lies between matched pairs as removed/inserted.
    size_t i = 0, j = 0;
    auto flushUntil = [&](size_t ei, size_t ej) {
        for (; i < ei; ++i)
            emitSubtree(ctx, false, SliceRef{pa.track, ca[i]}, depth);
        for (; j < ej; ++j)
            emitSubtree(ctx, true, SliceRef{pb.track, cb[j]}, depth);
    };
    for (const auto& [pi, pj] : pairs) {
        flushUntil(pi, pj);
        const SliceRef ra{pa.track, ca[pi]}, rb{pb.track, cb[pj]};
        AlignedOp op;
        op.kind = AlignedOp::Kind::Matched;
        op.a = ra;
        op.b = rb;
        op.depth = depth;
        op.name = std::string(m_a.str(sa.name(ra.index)));
        op.startA = sa.start(ra.index) - ctx.out->stepStartA;
        op.durA = sa.end(ra.index) - sa.start(ra.index);
        op.startB = sb.start(rb.index) - ctx.out->stepStartB;
        op.durB = sb.end(rb.index) - sb.start(rb.index);
        op.change = categoryByDuration(1, 1, double(op.durA) / 1000.0, double(op.durB) / 1000.0, m_noise);
        ++ctx.out->matched;
        if (op.change == DiffCategory::Increased) ++ctx.out->slower;
        if (op.change == DiffCategory::Decreased) ++ctx.out->faster;
        ctx.out->ops.push_back(std::move(op));
        if (depth < UINT16_MAX) alignChildren(ctx, ra, rb, uint16_t(depth + 1));
        i = pi + 1;
        j = pj + 1;
    }
    flushUntil(ca.size(), cb.size());
}

} // namespace ks
