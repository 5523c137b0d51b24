#pragma once

// A CUDA memory snapshot opened in the viewer: the model and, per device, its active-memory
// timeline and the bands that draw it. Built off the GUI thread, then read-only.

#include "core/analysis/snapshot/snapshotbands.h"
#include "core/analysis/snapshot/snapshottimeline.h"
#include "core/model/snapshot/memorysnapshot.h"

#include <QString>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ks::ui {

struct SnapshotDocument {
    QString path;
    uint64_t fileBytes = 0;
    std::unique_ptr<MemorySnapshot> snapshot;
    std::vector<SnapshotTimeline> timelines; // per device of the trace
    std::vector<SnapshotBands> bands;        // per device; they point into `timelines`

    size_t deviceCount() const { return timelines.size(); }
    // The allocator's stream of an allocation: of its alloc entry, of the free that ended it, or
    // of the segment that holds it.
    int64_t streamOf(size_t device, uint32_t allocation) const;
};

struct SnapshotOpenResult {
    std::shared_ptr<SnapshotDocument> document;
    QString error;
};

// Reads the file and builds every device's timeline; `bytesRead` follows the read.
SnapshotOpenResult openSnapshotDocument(const QString& path, std::atomic<uint64_t>* bytesRead,
                                        const std::atomic<bool>* cancel, size_t maxBands);

// A stream as the allocator names it: 0 the default, others pointers, clearer in hex.
QString streamText(int64_t stream);

// Whether a file is a pickle (protocol 2 or later) by its first bytes, whatever its name.
bool isSnapshotFile(const QString& path);

// memory_viz's text for an allocation (its context_for_id and format_frames): address, size,
// stream, when it began and ended, and its stack with the frames memory_viz hides left out.
QString allocationDetails(const SnapshotDocument& doc, size_t device, uint32_t allocation);

} // namespace ks::ui
