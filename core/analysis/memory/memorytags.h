#pragma once

#include "core/analysis/memory/memorycategory.h"
#include "core/analysis/memory/memorydevice.h"
#include "core/analysis/memory/memorytimeline.h"
#include "core/model/trace.h"

#include <cstdint>
#include <vector>

namespace ks {

// What the recorder knew about the program's own tensors: "[memory category]" instants written
// while a profile records memory (kinetoscope.profile, resources/python/kinetoscope/memorytags.py),
// each naming a category, a device and the storages (Addr, Bytes arrays) that held it at that time.
inline constexpr const char* kMemoryTagName = "[memory category]";

struct MemoryTag {
    TimeNs ts = 0;
    MemoryDevice device;
    MemoryCategory category = MemoryCategory::Unknown;
    uint64_t addr = 0;
    int64_t bytes = 0;
};

// Every tagged storage of the trace, in time order. Marks that do not parse are skipped.
std::vector<MemoryTag> readMemoryTags(const Trace& trace);

// Rule R1 (docs/memory-categories.md), over the other rules: the allocation of dev that was alive at
// a tag's address at its time takes the tag's category. A tagged storage that no allocation of the
// window holds was allocated before it and not freed in it: it becomes a pre-existing block of its
// own, its bytes taken out of the baseline block (or added, when the window's totals did not count
// memory from before it, as the recorder's windows do).
void applyMemoryTags(MemoryDeviceTimeline& dev, const std::vector<MemoryTag>& tags);

} // namespace ks
