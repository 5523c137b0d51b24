#include "analysis/lod.h"

#include <algorithm>
#include <cmath>

namespace ks {

SliceLod::SliceLod(const SliceTrack& track) : m_track(&track) {}

TimeNs SliceLod::levelDuration(const SliceTrack::Level& lv, size_t i) const
{
    const uint32_t row = lv.rows[i];
    const TimeNs d = m_track->duration(row);
    return d == SliceTrack::kOpen ? m_track->end(row) - m_track->start(row) : d;
}

void SliceLod::update()
{
    const SliceTrack& t = *m_track;
    const size_t levels = t.levelCount();
    if (m_levels.size() < levels) m_levels.resize(levels);
    for (size_t d = 0; d < levels; ++d) {
        const SliceTrack::Level& lv = t.level(d);
        LevelIndex& ix = m_levels[d];
        const size_t fullBlocks = lv.rows.size() / kBlock;
        while (ix.blockMax.size() < fullBlocks) {
            const size_t first = ix.blockMax.size() * kBlock;
            size_t best = first;
            TimeNs bestDur = -1;
            bool open = false;
            for (size_t i = first; i < first + kBlock; ++i) {
                const uint32_t row = lv.rows[i];
                if (t.isOpen(row)) {
                    open = true;
                    break;
                }
                const TimeNs dur = t.duration(row);
                if (dur > bestDur) {
                    bestDur = dur;
                    best = i;
                }
            }
            // A block with an open slice has no final maximum yet; it and everything after it are
            // scanned directly until the slice closes.
            if (open) break;
            ix.blockMax.push_back(uint32_t(best));
        }
        const size_t blocksPerSuper = kSuperBlock / kBlock;
        while ((ix.superMax.size() + 1) * blocksPerSuper <= ix.blockMax.size()) {
            const size_t first = ix.superMax.size() * blocksPerSuper;
            uint32_t best = ix.blockMax[first];
            TimeNs bestDur = levelDuration(lv, best);
            for (size_t b = first + 1; b < first + blocksPerSuper; ++b) {
                const TimeNs dur = levelDuration(lv, ix.blockMax[b]);
                if (dur > bestDur) {
                    bestDur = dur;
                    best = ix.blockMax[b];
                }
            }
            ix.superMax.push_back(best);
        }
    }
}

size_t SliceLod::argMax(size_t depth, size_t a, size_t b) const
{
    const SliceTrack::Level& lv = m_track->level(depth);
    static const LevelIndex kEmpty;
    const LevelIndex& ix = depth < m_levels.size() ? m_levels[depth] : kEmpty;
    size_t best = a;
    TimeNs bestDur = -1;
    auto consider = [&](size_t idx) {
        const TimeNs dur = levelDuration(lv, idx);
        if (dur > bestDur) {
            bestDur = dur;
            best = idx;
        }
    };
    size_t i = a;
    while (i < b) {
        if (i % kSuperBlock == 0 && i / kSuperBlock < ix.superMax.size() && i + kSuperBlock <= b) {
            consider(ix.superMax[i / kSuperBlock]);
            i += kSuperBlock;
        } else if (i % kBlock == 0 && i / kBlock < ix.blockMax.size() && i + kBlock <= b) {
            consider(ix.blockMax[i / kBlock]);
            i += kBlock;
        } else {
            consider(i);
            ++i;
        }
    }
    return best;
}

size_t SliceLod::firstAtLeast(size_t depth, size_t a, size_t b, TimeNs minDur) const
{
    const SliceTrack::Level& lv = m_track->level(depth);
    static const LevelIndex kEmpty;
    const LevelIndex& ix = depth < m_levels.size() ? m_levels[depth] : kEmpty;
    size_t i = a;
    while (i < b) {
        if (i % kSuperBlock == 0 && i / kSuperBlock < ix.superMax.size() && i + kSuperBlock <= b &&
            levelDuration(lv, ix.superMax[i / kSuperBlock]) < minDur) {
            i += kSuperBlock;
            continue;
        }
        if (i % kBlock == 0 && i / kBlock < ix.blockMax.size() && i + kBlock <= b &&
            levelDuration(lv, ix.blockMax[i / kBlock]) < minDur) {
            i += kBlock;
            continue;
        }
        if (levelDuration(lv, i) >= minDur) return i;
        ++i;
    }
    return b;
}

void SliceLod::queryDepth(size_t depth, TimeNs t0, TimeNs t1, double nsPerPixel,
                          std::vector<LodItem>& out) const
{
    const SliceTrack& t = *m_track;
    const SliceTrack::Level& lv = t.level(depth);
    size_t i = t.firstAtDepthEndingAfter(depth, t0, true);
    const size_t iend = t.endAtDepthStartingBefore(depth, t1, true);
    // A slice this long covers at least one whole column and is never merged away.
    const TimeNs wide = TimeNs(std::ceil(nsPerPixel));
    while (i < iend) {
        const uint32_t row = lv.rows[i];
        const TimeNs s = t.start(row);
        const TimeNs dur = levelDuration(lv, i);
        if (dur >= wide) {
            out.push_back(LodItem{s, s + dur, row, 1, uint16_t(depth)});
            ++i;
            continue;
        }
        if (s + dur < t0) { // only with overlapping rows at one depth (malformed nesting)
            ++i;
            continue;
        }
        // The run: narrow slices starting in the same column as this one.
        const double column = std::floor(double(s - t0) / nsPerPixel);
        const TimeNs boundary = std::max<TimeNs>(s + 1, t0 + TimeNs(std::ceil((column + 1) * nsPerPixel)));
        // Galloping search: runs are short when zoomed in and long when zoomed out.
        size_t lo = i + 1;
        size_t hi = lo;
        size_t step = 1;
        while (hi < iend && t.start(lv.rows[hi]) < boundary) {
            lo = hi + 1;
            hi = lo + step;
            step *= 2;
        }
        hi = std::min(hi, iend);
        while (lo < hi) {
            const size_t mid = lo + (hi - lo) / 2;
            if (t.start(lv.rows[mid]) < boundary)
                lo = mid + 1;
            else
                hi = mid;
        }
        size_t j = lo;
        // A wide slice starting in this column ends the run; it comes out on its own next.
        if (j > i + 1) j = firstAtLeast(depth, i + 1, j, wide);
        const size_t rep = j > i + 1 ? argMax(depth, i, j) : i;
        const uint32_t repRow = lv.rows[rep];
        const uint32_t lastRow = lv.rows[j - 1];
        const TimeNs end =
            std::max(t.start(repRow) + levelDuration(lv, rep), t.start(lastRow) + levelDuration(lv, j - 1));
        out.push_back(LodItem{s, end, repRow, uint32_t(j - i), uint16_t(depth)});
        i = j;
    }
}

void SliceLod::query(TimeNs t0, TimeNs t1, double pixels, std::vector<LodItem>& out, size_t depthBegin,
                     size_t depthEnd) const
{
    if (t1 < t0 || pixels <= 0) return;
    const double nsPerPixel = std::max(1e-6, double(t1 - t0) / pixels);
    const size_t levels = std::min(depthEnd, m_track->levelCount());
    for (size_t d = depthBegin; d < levels; ++d)
        queryDepth(d, t0, t1, nsPerPixel, out);
}

size_t SliceLod::bytesUsed() const
{
    size_t n = 0;
    for (const LevelIndex& ix : m_levels)
        n += (ix.blockMax.capacity() + ix.superMax.capacity()) * sizeof(uint32_t);
    return n;
}

} // namespace ks
