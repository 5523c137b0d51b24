#pragma once

#include "core/analysis/calltree/calltree.h"

#include <map>
#include <string>
#include <string_view>

namespace ks {

// Where a Python frame's code is: torch writes frames as "path/file.py(63): function" (the line
// is where the function starts, or where it was when profiling began; docs/flame.md).
struct SourceLocation {
    std::string file;
    int line = 0;
    std::string function;
};
// False for frames that are not "file(line): function" (ops, "<built-in method ...>").
bool parseFrameLocation(std::string_view frame, SourceLocation& out);

// Per line of file: the CPU time of the calls made from that line, from a tree built with
// CallTreeOptions::byLine (its "file:LINE" frames; a line's nested recursive calls count once).
std::map<int, TimeNs> lineTimes(const CallTree& byLineTree, std::string_view file);

// A trace from another machine: file with the prefix from replaced by to (from empty: to is put
// in front); file itself when it does not start with from.
std::string mapSourcePath(std::string_view file, std::string_view from, std::string_view to);

} // namespace ks
