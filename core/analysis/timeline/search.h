#pragma once

#include "core/model/trace.h"

#include <atomic>
#include <string>
#include <vector>

namespace ks {

struct SearchQuery {
    std::string text;
    bool regex = false; // ECMAScript syntax
    bool caseSensitive = false;
};

struct SearchResult {
    // Indexed by StringId: 1 when that name matches. Names are matched once each, not per slice.
    std::vector<uint8_t> nameMatches;
    // Every matching slice, in start order (ties: by track, then row).
    std::vector<SliceRef> matches;
    std::string error; // bad regular expression
    bool cancelled = false;

    bool matchesName(StringId id) const { return id.value < nameMatches.size() && nameMatches[id.value]; }
};

// Finds slices whose name contains the text (or matches the regular expression anywhere).
SearchResult searchSlices(const Trace& trace, const SearchQuery& query,
                          const std::atomic<bool>* cancel = nullptr);

} // namespace ks
