#pragma once

// Helpers for the reader tests: an independent count of complete events in a (possibly cut) trace
// text, gzip compression, and synthetic traces from bench/kinetosynth.

#include "gzipstring.h"
#include "kinetosynth.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>
#include <zlib.h>

namespace ks::test {

// Offsets just past the closing brace of each complete element of the traceEvents array (or of a
// bare top-level array) within text[0, limit). A plain structural scan, deliberately sharing no code
// with the reader.
inline std::vector<size_t> completeEventEnds(std::string_view text, size_t limit = SIZE_MAX)
{
    std::vector<size_t> ends;
    limit = std::min(limit, text.size());
    size_t i = 0;
    // Find the array: a bare array starts the text; otherwise the value of "traceEvents".
    while (i < limit && (text[i] == ' ' || text[i] == '\n' || text[i] == '\r' || text[i] == '\t'))
        ++i;
    if (i < limit && text[i] != '[') {
        const size_t key = text.find("\"traceEvents\"");
        if (key == std::string_view::npos) return ends;
        i = text.find('[', key);
        if (i == std::string_view::npos) return ends;
    }
    ++i;
    int depth = 0;
    bool inString = false;
    for (; i < limit; ++i) {
        const char c = text[i];
        if (inString) {
            if (c == '\\')
                ++i;
            else if (c == '"')
                inString = false;
            continue;
        }
        if (c == '"') {
            inString = true;
        } else if (c == '{' || c == '[') {
            ++depth;
        } else if (c == '}' || c == ']') {
            if (depth == 0) break; // the events array closed
            if (--depth == 0) ends.push_back(i + 1);
        }
    }
    return ends;
}

inline size_t completeEvents(std::string_view text, size_t limit = SIZE_MAX)
{
    return completeEventEnds(text, limit).size();
}

// Decompresses as much of a (possibly cut) gzip stream as zlib can.
inline std::string gunzipPrefix(std::string_view in)
{
    z_stream z{};
    inflateInit2(&z, 16 + MAX_WBITS);
    std::string out;
    char buf[1 << 16];
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
    z.avail_in = uInt(in.size());
    while (true) {
        z.next_out = reinterpret_cast<Bytef*>(buf);
        z.avail_out = sizeof buf;
        const int rc = inflate(&z, Z_NO_FLUSH);
        out.append(buf, sizeof buf - z.avail_out);
        if (rc != Z_OK) break;
    }
    inflateEnd(&z);
    return out;
}

inline std::string synthTrace(uint64_t bytes, bool compact, uint64_t seed = 1)
{
    bench::SynthOptions o;
    o.targetBytes = bytes;
    o.compact = compact;
    o.seed = seed;
    std::string out;
    bench::writeSynthTrace(o, [&out](std::string_view s) { out.append(s); });
    return out;
}

} // namespace ks::test
