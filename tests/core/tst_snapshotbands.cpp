// The level of detail of the active-memory timeline (core/analysis/snapshot/snapshotbands.*) and the
// allocator state at an entry (allocatorstate.*), against direct recomputations of memory_viz's
// definitions on synthetic traces: the stack order of the bands, the summarized band, the column's
// entry, the merging of thin bands, and the segments and blocks rebuilt backwards.

#include "core/analysis/snapshot/allocatorstate.h"
#include "core/analysis/snapshot/snapshotbands.h"
#include "core/analysis/snapshot/snapshottimeline.h"

#include <QTest>
#include <algorithm>
#include <map>
#include <random>
#include <set>

using namespace ks;

namespace {

// A device trace of random allocs and frees (some frees of addresses allocated before the history,
// some allocations alive at the end, kept as active blocks of one big segment).
MemorySnapshot makeSnapshot(uint32_t seed, int entries)
{
    MemorySnapshot s;
    s.traces.resize(1);
    DeviceTrace& tr = s.traces[0];
    std::mt19937 rnd(seed);
    std::vector<std::pair<int64_t, int64_t>> live; // addr, size
    int64_t nextAddr = 0x10000;
    auto add = [&](SnapshotAction a, int64_t addr, int64_t size) {
        tr.action.push_back(a);
        tr.addr.push_back(addr);
        tr.size.push_back(size);
        tr.stream.push_back(0);
        tr.timeUs.push_back(int64_t(tr.action.size()) * 10);
        tr.stack.push_back(kNoStack);
        tr.compileContext.push_back(StringId());
        tr.userMetadata.push_back(StringId());
    };
    // Allocated before the history: freed in it without an alloc.
    for (int k = 0; k < 5; ++k) {
        live.push_back({nextAddr, 4096 * (k + 1)});
        nextAddr += 1 << 20;
    }
    for (int i = 0; i < entries; ++i) {
        if (live.empty() || rnd() % 100 < 55) {
            // Sizes from bytes to many MiB, so some bands are thinner than a pixel and some not.
            const int64_t size = int64_t(512) << (rnd() % 16);
            add(SnapshotAction::Alloc, nextAddr, size);
            live.push_back({nextAddr, size});
            nextAddr += 1 << 24;
        } else {
            const size_t k = rnd() % live.size();
            add(SnapshotAction::FreeRequested, live[k].first, live[k].second);
            add(SnapshotAction::FreeCompleted, live[k].first, live[k].second);
            live.erase(live.begin() + long(k));
        }
    }
    // One segment over everything, with the live allocations as its active blocks.
    std::sort(live.begin(), live.end());
    s.segments.device.push_back(0);
    s.segments.address.push_back(0);
    s.segments.totalSize.push_back(nextAddr + (1 << 24));
    for (auto* c : {&s.segments.allocatedSize, &s.segments.activeSize, &s.segments.requestedSize,
                    &s.segments.stream, &s.segments.poolOwner, &s.segments.poolId})
        c->push_back(0);
    s.segments.large.push_back(1);
    s.segments.expandable.push_back(0);
    s.segments.stack.push_back(kNoStack);
    s.segments.firstBlock.push_back(0);
    s.segments.blockCount.push_back(uint32_t(live.size()));
    for (const auto& [addr, size] : live) {
        s.blocks.address.push_back(addr);
        s.blocks.size.push_back(size);
        s.blocks.requestedSize.push_back(size);
        s.blocks.state.push_back(BlockState::ActiveAllocated);
        s.blocks.stack.push_back(kNoStack);
    }
    return s;
}

// memory_viz's stack order, recomputed: initially_allocated reversed (the segments' blocks, then
// the frees of unknown addresses, each latest first), then the traced allocations as they begin.
std::vector<uint32_t> stackOrder(const SnapshotTimeline& t)
{
    std::vector<uint32_t> initially, traced;
    for (uint32_t k = 0; k < t.allocations.size(); ++k) {
        if (t.allocations[k].origin == SnapshotAllocation::Origin::Traced)
            traced.push_back(k);
        else if (t.allocations[k].origin == SnapshotAllocation::Origin::FreedOnly)
            initially.push_back(k);
    }
    for (uint32_t k = 0; k < t.allocations.size(); ++k)
        if (t.allocations[k].origin == SnapshotAllocation::Origin::SegmentBlock) initially.push_back(k);
    std::reverse(initially.begin(), initially.end());
    initially.insert(initially.end(), traced.begin(), traced.end());
    return initially;
}

} // namespace

class TestSnapshotBands : public QObject {
    Q_OBJECT
private slots:
    void columnsStackAsMemoryViz_data()
    {
        QTest::addColumn<size_t>("maxBands");
        QTest::addColumn<int>("width");
        QTest::newRow("every band, more entries than pixels") << size_t(100000) << 300;
        QTest::newRow("every band, more pixels than entries") << size_t(100000) << 20000;
        QTest::newRow("50 largest, the rest summarized") << size_t(50) << 300;
    }
    void columnsStackAsMemoryViz()
    {
        QFETCH(size_t, maxBands);
        QFETCH(int, width);
        const MemorySnapshot snap = makeSnapshot(7, 3000);
        const SnapshotTimeline t = SnapshotTimeline::build(snap, 0);
        const SnapshotBands bands = SnapshotBands::build(t, maxBands);
        const size_t n = t.liveAfter.size();
        QCOMPARE(bands.entryCount(), n);
        QCOMPARE(bands.shown().size(), std::min(maxBands, t.allocations.size()));
        QCOMPARE(bands.summarizedCount(), t.allocations.size() - bands.shown().size());

        // The drawn ones are the largest.
        std::vector<int64_t> sizes;
        for (const auto& a : t.allocations)
            sizes.push_back(a.size);
        std::sort(sizes.rbegin(), sizes.rend());
        int64_t smallestShown = INT64_MAX;
        std::set<uint32_t> shown(bands.shown().begin(), bands.shown().end());
        for (uint32_t k : bands.shown())
            smallestShown = std::min(smallestShown, t.allocations[k].size);
        QCOMPARE(smallestShown, sizes[bands.shown().size() - 1]);

        const int64_t minBytes = t.peakBytes / 400;
        const BandLayout layout = bands.layout(0, double(n), width, minBytes);
        QCOMPARE(layout.columns.size(), size_t(width));
        const std::vector<uint32_t> order = stackOrder(t);
        for (int c = 0; c < width; ++c) {
            const BandColumn& col = layout.columns[size_t(c)];
            // The column shows the entry with the most live bytes among those it covers.
            const double w = double(n) / width;
            const size_t ea = size_t(std::floor(0 + c * w));
            const size_t eb = std::max(ea, std::min(n - 1, size_t(std::ceil(0 + (c + 1) * w)) - 1));
            size_t best = ea;
            for (size_t e = ea; e <= eb; ++e)
                if (t.liveAfter[e] > t.liveAfter[best]) best = e;
            QCOMPARE(col.entry, uint32_t(best));

            // The stack after that entry, computed directly: drawn ones one by one (thin ones merged),
            // the others summed on top.
            std::vector<BandRun> expected;
            int64_t offset = 0, summarized = 0;
            for (uint32_t k : order) {
                const SnapshotAllocation& a = t.allocations[k];
                if (!a.aliveAfter(col.entry)) continue;
                if (!shown.count(k)) {
                    summarized += a.size;
                    continue;
                }
                if (a.size >= minBytes)
                    expected.push_back({offset, offset + a.size, k});
                else if (!expected.empty() && expected.back().allocation == kMergedRun &&
                         expected.back().top == offset)
                    expected.back().top += a.size;
                else
                    expected.push_back({offset, offset + a.size, kMergedRun});
                offset += a.size;
            }
            if (summarized > 0) expected.push_back({offset, offset + summarized, kSummarizedRun});
            QCOMPARE(offset + summarized, t.liveAfter[col.entry]);
            QCOMPARE(col.runCount, uint32_t(expected.size()));
            for (size_t r = 0; r < expected.size(); ++r) {
                const BandRun& got = layout.runs[col.firstRun + r];
                QCOMPARE(got.bottom, expected[r].bottom);
                QCOMPARE(got.top, expected[r].top);
                QCOMPARE(got.allocation, expected[r].allocation);
                // The hover finds what is drawn there (inside a merged or summarized run: the
                // allocation itself).
                const uint32_t at = bands.allocationAt(col.entry, got.bottom);
                QVERIFY(at != UINT32_MAX);
                if (got.allocation < kSummarizedRun) QCOMPARE(at, got.allocation);
                QVERIFY(t.allocations[at].aliveAfter(col.entry));
            }
        }
        QCOMPARE(bands.allocationAt(0, t.liveAfter[0]), UINT32_MAX); // above the stack
    }

    void zoomedViewsShowTheirEntries()
    {
        const MemorySnapshot snap = makeSnapshot(11, 3000);
        const SnapshotTimeline t = SnapshotTimeline::build(snap, 0);
        const SnapshotBands bands = SnapshotBands::build(t);
        // Ten entries over 100 pixels: ten columns per entry, each showing it.
        const BandLayout layout = bands.layout(1000, 1010, 100, 1);
        for (int c = 0; c < 100; ++c)
            QCOMPARE(layout.columns[size_t(c)].entry, uint32_t(1000 + c / 10));
        // Past the end of the trace: empty columns.
        const BandLayout past =
            bands.layout(double(t.liveAfter.size()) - 5, double(t.liveAfter.size()) + 5, 10, 1);
        QCOMPARE(past.columns[9].entry, UINT32_MAX);
        QCOMPARE(past.columns[9].runCount, 0u);
        QVERIFY(past.columns[0].entry != UINT32_MAX);
    }

    void allocatorStateMatchesTheTimeline()
    {
        // Walked backwards from the snapshot, the blocks after an entry are the allocations the
        // timeline (walked forwards) has alive then.
        const MemorySnapshot snap = makeSnapshot(3, 2000);
        const SnapshotTimeline t = SnapshotTimeline::build(snap, 0);
        for (uint32_t entry : {0u, 17u, 500u, 1999u, uint32_t(t.liveAfter.size() - 1)}) {
            const AllocatorState state = allocatorStateAt(snap, 0, entry);
            QCOMPARE(state.segments.size(), size_t(1));
            QCOMPARE(state.strayBlocks, uint64_t(0));
            QCOMPARE(state.allocated, t.liveAt(entry));
            QCOMPARE(state.reserved, t.reservedAt(entry));
            std::map<int64_t, int64_t> expected;
            for (uint32_t k : t.aliveAt(entry))
                expected[t.allocations[k].addr] = t.allocations[k].size;
            std::map<int64_t, int64_t> got;
            for (const StateBlock& b : state.segments[0].blocks)
                got[b.addr] = b.requested;
            QCOMPARE(got, expected);
        }
        // Between a free_requested and its free_completed: pending.
        const DeviceTrace& tr = snap.traces[0];
        for (uint32_t i = 0; i + 1 < tr.count(); ++i) {
            if (tr.action[i] != SnapshotAction::FreeRequested) continue;
            const AllocatorState state = allocatorStateAt(snap, 0, i);
            const auto& blocks = state.segments[0].blocks;
            const auto it = std::find_if(blocks.begin(), blocks.end(),
                                         [&](const StateBlock& b) { return b.addr == tr.addr[i]; });
            QVERIFY(it != blocks.end());
            QVERIFY(it->freeRequested);
            const AllocatorState before = allocatorStateAt(snap, 0, i - 1);
            for (const StateBlock& b : before.segments[0].blocks)
                QVERIFY(!b.freeRequested);
            break;
        }
    }

    void segmentsComeAndGo()
    {
        // segment_alloc / segment_free and an expandable segment's map / unmap, undone backwards.
        MemorySnapshot s;
        s.traces.resize(1);
        DeviceTrace& tr = s.traces[0];
        auto add = [&](SnapshotAction a, int64_t addr, int64_t size) {
            tr.action.push_back(a);
            tr.addr.push_back(addr);
            tr.size.push_back(size);
            tr.stream.push_back(0);
            tr.timeUs.push_back(0);
            tr.stack.push_back(kNoStack);
            tr.compileContext.push_back(StringId());
            tr.userMetadata.push_back(StringId());
        };
        add(SnapshotAction::SegmentAlloc, 0x1000, 0x1000);  // 0
        add(SnapshotAction::SegmentMap, 0x10000, 0x2000);   // 1
        add(SnapshotAction::SegmentMap, 0x12000, 0x2000);   // 2: joins the mapped range
        add(SnapshotAction::SegmentFree, 0x1000, 0x1000);   // 3
        add(SnapshotAction::SegmentUnmap, 0x13000, 0x1000); // 4: the end of it
        // At the snapshot: the expandable segment 0x10000 of 0x3000.
        s.segments.device.push_back(0);
        s.segments.address.push_back(0x10000);
        s.segments.totalSize.push_back(0x3000);
        for (auto* c : {&s.segments.allocatedSize, &s.segments.activeSize, &s.segments.requestedSize,
                        &s.segments.stream, &s.segments.poolOwner, &s.segments.poolId})
            c->push_back(0);
        s.segments.large.push_back(1);
        s.segments.expandable.push_back(1);
        s.segments.stack.push_back(kNoStack);
        s.segments.firstBlock.push_back(0);
        s.segments.blockCount.push_back(0);
        auto segs = [&](uint32_t entry) {
            std::vector<std::pair<int64_t, int64_t>> out;
            for (const StateSegment& seg : allocatorStateAt(s, 0, entry).segments)
                out.push_back({seg.addr, seg.size});
            return out;
        };
        using V = std::vector<std::pair<int64_t, int64_t>>;
        QCOMPARE(segs(UINT32_MAX), (V{{0x10000, 0x3000}}));
        QCOMPARE(segs(3), (V{{0x10000, 0x4000}}));
        QCOMPARE(segs(2), (V{{0x1000, 0x1000}, {0x10000, 0x4000}}));
        QCOMPARE(segs(1), (V{{0x1000, 0x1000}, {0x10000, 0x2000}}));
        QCOMPARE(segs(0), (V{{0x1000, 0x1000}}));
    }
};

QTEST_GUILESS_MAIN(TestSnapshotBands)
#include "tst_snapshotbands.moc"
