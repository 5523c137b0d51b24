#include "core/analysis/timeline/search.h"

#include "core/util/asciitext.h"

#include <algorithm>
#include <cctype>
#include <regex>

namespace ks {

namespace {} // namespace

SearchResult searchSlices(const Trace& trace, const SearchQuery& query, const std::atomic<bool>* cancel)
{
    SearchResult out;
    if (query.text.empty()) return out;
    auto cancelled = [&] { return cancel && cancel->load(std::memory_order_relaxed); };

    // Names first: a trace has far fewer distinct names than slices.
    const StringPool& pool = trace.strings();
    const size_t names = pool.size();
    out.nameMatches.assign(names, 0);
    if (query.regex) {
        std::regex re;
        try {
            auto flags = std::regex::ECMAScript | std::regex::optimize;
            if (!query.caseSensitive) flags |= std::regex::icase;
            re = std::regex(query.text, flags);
        } catch (const std::regex_error& e) {
            out.error = std::string("invalid regular expression: ") + e.what();
            out.nameMatches.clear();
            return out;
        }
        for (size_t i = 0; i < names; ++i) {
            if ((i & 0x3ff) == 0 && cancelled()) {
                out.cancelled = true;
                return out;
            }
            const std::string_view s = pool.view(StringId(uint32_t(i)));
            out.nameMatches[i] = std::regex_search(s.begin(), s.end(), re) ? 1 : 0;
        }
    } else {
        const std::string needle = query.caseSensitive ? query.text : asciiLower(query.text);
        for (size_t i = 0; i < names; ++i) {
            const std::string_view s = pool.view(StringId(uint32_t(i)));
            if (query.caseSensitive)
                out.nameMatches[i] = s.find(needle) != std::string_view::npos;
            else
                out.nameMatches[i] = asciiLower(s).find(needle) != std::string::npos;
        }
    }

    std::vector<std::pair<TimeNs, SliceRef>> hits;
    for (size_t t = 0; t < trace.trackCount(); ++t) {
        const TrackId tid{uint32_t(t)};
        const SliceTrack& st = trace.slices(tid);
        const size_t n = st.size();
        for (size_t r = 0; r < n; ++r) {
            if ((r & 0xffff) == 0 && cancelled()) {
                out.cancelled = true;
                return out;
            }
            if (out.matchesName(st.name(r))) hits.emplace_back(st.start(r), SliceRef{tid, uint32_t(r)});
        }
    }
    std::sort(hits.begin(), hits.end());
    out.matches.reserve(hits.size());
    for (const auto& h : hits)
        out.matches.push_back(h.second);
    return out;
}

} // namespace ks
