// libFuzzer target for CUDA memory snapshots: any bytes must give a snapshot or a one-line error,
// never a crash, a hang or a sanitizer report, and no control bytes in the message. A snapshot that
// loads is run through every device's timeline (peak, alive set, groups by frame) as the CLI and
// the viewer do, and its invariants are checked. Seeds: corpus/snapshot/ (tests/data/snapshots).

#include "core/analysis/snapshot/snapshottimeline.h"
#include "core/io/snapshot/snapshotreader.h"
#include "fuzzcheck.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    const ks::SnapshotLoadResult r = ks::loadMemorySnapshotData(bytes);
    if (r.ok() == !r.error.empty()) std::abort();
    ks::fuzz::checkMessage(r.error);
    if (!r.ok()) return 0;
    const ks::MemorySnapshot& s = *r.snapshot;
    for (size_t k = 0; k < s.stackCount(); ++k) {
        const auto [p, n] = s.stackFrames(uint32_t(k));
        for (size_t j = 0; j < n; ++j)
            if (p[j] >= s.frames.size()) std::abort();
    }
    for (size_t k = 0; k < s.segments.count(); ++k)
        if (uint64_t(s.segments.firstBlock[k]) + s.segments.blockCount[k] > s.blocks.count()) std::abort();
    for (size_t d = 0; d < s.traces.size() && d < 8; ++d) {
        const ks::SnapshotTimeline t = ks::SnapshotTimeline::build(s, d);
        if (t.liveAfter.size() != s.traces[d].count()) std::abort();
        const std::vector<uint32_t> alive = t.aliveAt(t.peakEntry);
        t.groupByTopFrame(s, alive);
        t.bytesPerFrame(s, alive);
    }
    return 0;
}
