#pragma once

#include <string>
#include <string_view>

namespace ks {

// Makes text from a trace (keys, names, paths, anything the file chose) safe to put in an error,
// a warning or a log line that may reach a terminal: a hostile file must not be able to move the
// cursor, retitle the window, ring the bell, or hide the rest of the message.
//
// Escaped as visible text: C0 controls and DEL ("\x1b", "\x07", "\x0d"), bytes that are not UTF-8
// ("\xff"), and code points that terminals or editors act on although they are valid UTF-8: C1
// controls (U+0080..U+009F, "\u009b" is CSI in many terminals) and the bidi overrides and isolates
// (U+202A..U+202E, U+2066..U+2069) that make text display in another order than it reads.
//
// A backslash is left as it is: Windows paths stay readable, and escaping twice changes nothing
// (the output holds no byte that would be escaped), so callers may escape at every layer.
//
// keepNewlines leaves '\n' as it is, for multi-line output such as tables (a trace's newlines
// inside one line of a table are still escaped by whoever builds that line, or show as a break).
std::string escapeText(std::string_view text, bool keepNewlines = false);

} // namespace ks
