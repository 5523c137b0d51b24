#pragma once

#include "core/io/tracereader.h"

#include <string>

namespace ks::cli {

// Loads a trace for a subcommand. On failure prints "kinetoscope: PATH: ERROR" and returns false;
// on success prints each load warning to stderr. Trace text is escaped (escapeText) before it
// reaches the terminal.
bool loadTraceForCommand(const std::string& path, LoadResult& out);

} // namespace ks::cli
