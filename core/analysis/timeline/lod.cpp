#include "core/analysis/timeline/lod.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ks {

SliceLod::SliceLod(const SliceTrack& track) : m_track(&track) {}

TimeNs SliceLod::slowDuration(const SliceTrack::Level& lv, size_t i) const
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
        const size_t n = lv.rows.size();
        ix.startOffset.reserve(n);
        ix.duration.reserve(n);
        for (size_t i = ix.startOffset.size(); i < n; ++i) {
            const uint32_t row = lv.rows[i];
            const TimeNs s = t.start(row);
            if (i % kBlock == 0) ix.blockStart.push_back(s);
            const TimeNs off = s - ix.blockStart[i / kBlock];
            ix.startOffset.push_back(off >= 0 && off < TimeNs(kFar) ? uint32_t(off) : kFar);
            const TimeNs dur = t.duration(row);
            ix.duration.push_back(dur != SliceTrack::kOpen && dur >= 0 && dur < TimeNs(kFar) ? uint32_t(dur)
                                                                                             : kFar);
            ix.name.push_back(t.name(row));
            const StringId cat = t.category(row);
            auto slot = std::find(m_categories.begin(), m_categories.end(), cat);
            if (slot == m_categories.end() && m_categories.size() < kManyCategories) {
                m_categories.push_back(cat);
                slot = m_categories.end() - 1;
            }
            ix.categorySlot.push_back(slot == m_categories.end() ? kManyCategories
                                                                 : uint8_t(slot - m_categories.begin()));
        }
        // Block maxima are final only once every slice in the block has ended; a block holding an
        // open slice, and everything after it, is scanned directly until the slice closes.
        const size_t fullBlocks = n / kBlock;
        while (ix.blockMax.size() < fullBlocks) {
            const size_t first = ix.blockMax.size() * kBlock;
            size_t best = first;
            TimeNs bestDur = -1;
            bool open = false;
            for (size_t i = first; i < first + kBlock && !open; ++i) {
                open = t.isOpen(lv.rows[i]);
                const TimeNs dur = durationAt(ix, lv, i);
                if (dur > bestDur) {
                    bestDur = dur;
                    best = i;
                }
            }
            if (open) break;
            ix.blockMax.push_back(bestDur);
            ix.blockArg.push_back(uint32_t(best));
        }
        auto summarize = [](const std::vector<TimeNs>& srcMax, const std::vector<uint32_t>& srcArg,
                            size_t fan, std::vector<TimeNs>& dstMax, std::vector<uint32_t>& dstArg) {
            while ((dstMax.size() + 1) * fan <= srcMax.size()) {
                const size_t first = dstMax.size() * fan;
                size_t best = first;
                for (size_t k = first + 1; k < first + fan; ++k)
                    if (srcMax[k] > srcMax[best]) best = k;
                dstMax.push_back(srcMax[best]);
                dstArg.push_back(srcArg[best]);
            }
        };
        summarize(ix.blockMax, ix.blockArg, kSuper / kBlock, ix.superMax, ix.superArg);
        summarize(ix.superMax, ix.superArg, kHyper / kSuper, ix.hyperMax, ix.hyperArg);
        updateMips(d);
    }
}

SliceLod::Longest SliceLod::longest(size_t depth, size_t a, size_t b) const
{
    const SliceTrack::Level& lv = m_track->level(depth);
    const LevelIndex& ix = levelIndex(depth);
    Longest best{a, -1};
    auto consider = [&](size_t idx, TimeNs dur) {
        if (dur > best.duration) best = Longest{idx, dur};
    };
    size_t i = a;
    while (i < b) {
        if (i % kHyper == 0 && i / kHyper < ix.hyperMax.size() && i + kHyper <= b) {
            consider(ix.hyperArg[i / kHyper], ix.hyperMax[i / kHyper]);
            i += kHyper;
        } else if (i % kSuper == 0 && i / kSuper < ix.superMax.size() && i + kSuper <= b) {
            consider(ix.superArg[i / kSuper], ix.superMax[i / kSuper]);
            i += kSuper;
        } else if (i % kBlock == 0 && i / kBlock < ix.blockMax.size() && i + kBlock <= b) {
            consider(ix.blockArg[i / kBlock], ix.blockMax[i / kBlock]);
            i += kBlock;
        } else {
            consider(i, durationAt(ix, lv, i));
            ++i;
        }
    }
    return best;
}

size_t SliceLod::firstAtLeast(size_t depth, size_t a, size_t b, TimeNs minDur) const
{
    const SliceTrack::Level& lv = m_track->level(depth);
    const LevelIndex& ix = levelIndex(depth);
    size_t i = a;
    while (i < b) {
        if (i % kHyper == 0 && i / kHyper < ix.hyperMax.size() && i + kHyper <= b &&
            ix.hyperMax[i / kHyper] < minDur) {
            i += kHyper;
            continue;
        }
        if (i % kSuper == 0 && i / kSuper < ix.superMax.size() && i + kSuper <= b &&
            ix.superMax[i / kSuper] < minDur) {
            i += kSuper;
            continue;
        }
        if (i % kBlock == 0 && i / kBlock < ix.blockMax.size() && i + kBlock <= b &&
            ix.blockMax[i / kBlock] < minDur) {
            i += kBlock;
            continue;
        }
        if (durationAt(ix, lv, i) >= minDur) return i;
        ++i;
    }
    return b;
}

size_t SliceLod::firstStartingAt(size_t depth, size_t lo, size_t hi, TimeNs t) const
{
    const SliceTrack::Level& lv = m_track->level(depth);
    const LevelIndex& ix = levelIndex(depth);
    // Galloping search: runs are short when zoomed in and long when zoomed out.
    size_t a = lo;
    size_t b = lo;
    size_t step = 1;
    while (b < hi && startAt(ix, lv, b) < t) {
        a = b + 1;
        b = a + step;
        step *= 2;
    }
    b = std::min(b, hi);
    while (a < b) {
        const size_t mid = a + (b - a) / 2;
        if (startAt(ix, lv, mid) < t)
            a = mid + 1;
        else
            b = mid;
    }
    return a;
}

LodItem SliceLod::item(const LevelIndex& ix, const SliceTrack::Level& lv, size_t depth, size_t rep,
                       TimeNs start, TimeNs end, size_t count) const
{
    LodItem it;
    it.start = start;
    it.end = end;
    it.index = uint32_t(rep);
    it.count = uint32_t(count);
    it.depth = uint16_t(depth);
    if (rep < ix.name.size() && ix.categorySlot[rep] != kManyCategories) {
        it.name = ix.name[rep];
        it.category = m_categories[ix.categorySlot[rep]];
    } else {
        const uint32_t row = lv.rows[rep];
        it.name = m_track->name(row);
        it.category = m_track->category(row);
    }
    return it;
}

template <typename Emit>
void SliceLod::scan(size_t depth, size_t i, size_t iEnd, TimeNs origin, double nsPerPixel, TimeNs clip,
                    Emit&& emit) const
{
    const SliceTrack::Level& lv = m_track->level(depth);
    const LevelIndex& ix = levelIndex(depth);
    // A slice this long covers at least one whole column and is never merged away.
    const TimeNs wide = TimeNs(std::ceil(nsPerPixel));
    while (i < iEnd) {
        const TimeNs s = startAt(ix, lv, i);
        const TimeNs dur = durationAt(ix, lv, i);
        if (dur >= wide) {
            emit(i, s, s + dur, size_t(1));
            ++i;
            continue;
        }
        if (s + dur < clip) { // only with overlapping rows at one depth (malformed nesting)
            ++i;
            continue;
        }
        // The run: narrow slices starting in the same column as this one.
        const double column = std::floor(double(s - origin) / nsPerPixel);
        const TimeNs boundary =
            std::max<TimeNs>(s + 1, origin + TimeNs(std::ceil((column + 1) * nsPerPixel)));
        size_t j = firstStartingAt(depth, i + 1, iEnd, boundary);
        Longest rep{i, dur};
        if (j > i + 1) {
            Longest rest = longest(depth, i + 1, j);
            // A wide slice starting in this column ends the run; it comes out on its own next.
            if (rest.duration >= wide) {
                j = firstAtLeast(depth, i + 1, j, wide);
                rest = j > i + 1 ? longest(depth, i + 1, j) : Longest{i, -1};
            }
            if (rest.duration > rep.duration) rep = rest;
        }
        const TimeNs lastEnd = j - 1 == i ? s + dur : startAt(ix, lv, j - 1) + durationAt(ix, lv, j - 1);
        emit(rep.index, s, std::max(startAt(ix, lv, rep.index) + rep.duration, lastEnd), j - i);
        i = j;
    }
}

void SliceLod::updateMips(size_t depth)
{
    constexpr double kRowsPerBucket = 32; // below this density a direct query is as cheap
    constexpr TimeNs kNarrowest = 1024;
    LevelIndex& ix = m_levels[depth];
    const SliceTrack::Level& lv = m_track->level(depth);
    // Only rows in complete, closed blocks are final.
    const size_t usable = ix.blockMax.size() * kBlock;
    if (usable < 2 * kBlock) return;
    const TimeNs first = startAt(ix, lv, 0);
    const TimeNs last = startAt(ix, lv, usable - 1);
    const double span = double(std::max<TimeNs>(1, last - first));
    // Widths 2^(k/2) ns whose buckets would hold enough rows on average.
    for (int k = 20; k < 126; ++k) {
        const TimeNs width = TimeNs(std::llround(std::pow(2.0, k / 2.0)));
        if (width < kNarrowest) continue;
        if (double(width) > span) break;
        if (double(usable) / (span / double(width) + 1) < kRowsPerBucket) continue;
        auto it = std::lower_bound(ix.mips.begin(), ix.mips.end(), width,
                                   [](const Mip& m, TimeNs w) { return m.width < w; });
        if (it == ix.mips.end() || it->width != width) {
            Mip m;
            m.width = width;
            ix.mips.insert(it, std::move(m));
        }
    }
    for (Mip& m : ix.mips) {
        // The bucket holding the last usable row may still grow; stop before it.
        const double lastBucket = std::floor(double(last) / double(m.width));
        const TimeNs stopAt = TimeNs(lastBucket) * m.width;
        const size_t stop = firstStartingAt(depth, m.rowsCovered, usable, stopAt);
        if (stop <= m.rowsCovered) continue;
        size_t cursor = m.rowsCovered;
        scan(depth, m.rowsCovered, stop, 0, double(m.width), std::numeric_limits<TimeNs>::min(),
             [&](size_t rep, TimeNs s, TimeNs e, size_t count) {
                 m.items.push_back(MipItem{s, e, uint32_t(cursor), uint32_t(rep), uint32_t(count)});
                 cursor += count;
             });
        m.rowsCovered = stop;
    }
}

void SliceLod::queryDepth(size_t depth, TimeNs t0, TimeNs t1, double nsPerPixel,
                          std::vector<LodItem>& out) const
{
    const SliceTrack& t = *m_track;
    const SliceTrack::Level& lv = t.level(depth);
    const LevelIndex& ix = levelIndex(depth);
    const size_t iA = t.firstAtDepthEndingAfter(depth, t0, true);
    const size_t iEnd = t.endAtDepthStartingBefore(depth, t1, true);
    auto emit = [&](size_t rep, TimeNs s, TimeNs e, size_t count) {
        out.push_back(item(ix, lv, depth, rep, s, e, count));
    };
    // The widest precomputed bucket that is not wider than a column.
    const Mip* mip = nullptr;
    for (const Mip& m : ix.mips)
        if (double(m.width) <= nsPerPixel && m.rowsCovered > 0) mip = &m;
    if (!mip || iA >= iEnd) {
        scan(depth, iA, iEnd, t0, nsPerPixel, t0, emit);
        return;
    }
    // Whole buckets inside the window come from the mipmap; the partial ones at either edge, and
    // rows the mipmap does not cover yet, are computed.
    const TimeNs w = mip->width;
    auto floorDiv = [](TimeNs a, TimeNs b) { return a >= 0 ? a / b : -((-a + b - 1) / b); };
    const TimeNs b0 = (floorDiv(t0, w) + (t0 % w != 0 ? 1 : 0)) * w;
    const TimeNs b1 = floorDiv(t1, w) * w;
    const size_t iB = firstStartingAt(depth, iA, iEnd, b0);
    const size_t iC = b1 > b0 ? firstStartingAt(depth, iB, iEnd, b1) : iB;
    const size_t iM = std::clamp(mip->rowsCovered, iB, iC);
    scan(depth, iA, iB, t0, nsPerPixel, t0, emit);
    if (iM > iB) {
        auto it = std::lower_bound(mip->items.begin(), mip->items.end(), iB,
                                   [](const MipItem& m, size_t row) { return m.first < row; });
        for (; it != mip->items.end() && it->first < iM; ++it)
            out.push_back(item(ix, lv, depth, it->rep, it->start, it->end, it->count));
    }
    scan(depth, iM, iEnd, iM > iB ? b1 : t0, nsPerPixel, t0, emit);
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
        n += (ix.blockStart.capacity() + ix.blockMax.capacity() + ix.superMax.capacity() +
              ix.hyperMax.capacity()) *
                 sizeof(TimeNs) +
             (ix.startOffset.capacity() + ix.duration.capacity() + ix.name.capacity() +
              ix.blockArg.capacity() + ix.superArg.capacity() + ix.hyperArg.capacity()) *
                 sizeof(uint32_t) +
             ix.categorySlot.capacity();
    for (const LevelIndex& ix : m_levels)
        for (const Mip& m : ix.mips)
            n += m.items.capacity() * sizeof(MipItem);
    return n;
}

} // namespace ks
