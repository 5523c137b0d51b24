#pragma once

#include "core/model/types.h"
#include "core/util/id.h"

#include <QString>
#include <cstdint>
#include <vector>

namespace ks::ui {

// Slices to point out on the timeline: search matches or the occurrences of a kernel. Names mark
// every LOD item whose representative matches; occurrences (in start order) drive next/previous
// and the tick strip under the ruler.
struct Highlight {
    QString label;
    std::vector<uint8_t> names; // indexed by StringId
    std::vector<SliceRef> occurrences;

    bool matchesName(StringId id) const { return id.value < names.size() && names[id.value]; }
};

} // namespace ks::ui
