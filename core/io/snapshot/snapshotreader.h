#pragma once

// Reads a CUDA memory snapshot pickle (torch.cuda.memory._dump_snapshot, any torch 2.x, or the C++
// _memory_snapshot_pickled) into a MemorySnapshot, streaming: the pickle is run by the safe reader
// (core/io/pickle) and only the columns are kept. Bad input gives a one-line error.

#include "core/model/snapshot/memorysnapshot.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace ks {

struct SnapshotLoadOptions {
    std::atomic<uint64_t>* bytesRead = nullptr; // progress
    const std::atomic<bool>* cancel = nullptr;
};

struct SnapshotLoadResult {
    std::unique_ptr<MemorySnapshot> snapshot;
    std::string error;
    uint64_t fileBytes = 0;
    bool ok() const { return snapshot != nullptr; }
};

SnapshotLoadResult loadMemorySnapshot(const std::string& path, const SnapshotLoadOptions& options = {});
SnapshotLoadResult loadMemorySnapshotData(std::string_view bytes, const SnapshotLoadOptions& options = {});

// True when the first bytes look like a pickle (protocol 2 or later): how the viewer and the CLI
// tell a snapshot from a trace without trusting the file name.
bool looksLikePickle(std::string_view head);

} // namespace ks
