#pragma once

#include <string>
#include <string_view>

namespace ks {

// Writes data to path atomically: into a temporary file next to it, flushed, then renamed over path,
// so readers see either the old file or the complete new one. With gzip, the data is written as one
// gzip member the way Python's gzip.open(path, "wt") does (level 9, FNAME = the base name without
// ".gz", OS 255). Returns false with a one-line reason in error.
//
// Interim helper for the memory exports; to be replaced by the shared AtomicFile writer once it lands.
bool writeFileAtomically(const std::string& path, std::string_view data, bool gzip, std::string& error);

} // namespace ks
