#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace ks {

inline bool isJsonSpace(char c)
{
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

inline const char* skipJsonSpace(const char* p, const char* e)
{
    while (p < e && isJsonSpace(*p))
        ++p;
    return p;
}

// How deep arrays and objects may nest in a trace. Python's json (what torch and most tools read
// traces with) gives up near 1000 levels too, so no usable trace is deeper; refusing deeper input up
// front keeps every recursive walk of a value (validation, formatting, the UI's tree views) within
// a small, fixed stack.
constexpr size_t kMaxJsonDepth = 1000;

// The offset in raw of the first '[' or '{' that opens a container more than limit levels deep
// (raw's own outer container is level 1; strings are skipped), or npos when there is none.
size_t findTooDeep(std::string_view raw, size_t limit);

enum class ScanStatus { Complete, Incomplete, Malformed };

// Finds the end of the JSON value starting at p (after any whitespace). On Complete, end points one
// past the value. Incomplete means the text ended inside the value. This is a structural scan
// (strings, nesting), not validation.
ScanStatus scanJsonValue(const char* p, const char* e, const char*& end);

// Rewrites JSON text with no whitespace except one space after ',' and ':' (the layout of Python's
// json.dumps and of Kineto's arrays), so equal values intern to one string. Returns false when the text
// holds a bare word other than true/false/null or a character no JSON value can contain (the output
// is still written), which is how invalid scalars inside arrays and objects are caught.
bool canonicalJson(std::string_view raw, std::string& out);
// The same, without copying when raw is already canonical: result is raw itself, or scratch.
bool canonicalJsonView(std::string_view raw, std::string& scratch, std::string_view& result);

// What sanitizeJson had to change; offsets are relative to the text it was given.
struct SanitizeReport {
    uint64_t bareNonFinite = 0; // inf, -inf, nan, NaN, Infinity
    uint64_t bareNA = 0;        // N/A
    uint64_t badEscapes = 0;    // backslash not starting a JSON escape (Windows paths)
    uint64_t controlChars = 0;  // raw control characters inside strings
    uint64_t strayQuotes = 0;   // unescaped quotes inside strings
    uint64_t invalidUtf8 = 0;   // bytes that are not UTF-8
    int64_t firstOffset = -1;   // first byte that needed a fix
    uint64_t total() const
    {
        return bareNonFinite + bareNA + badEscapes + controlChars + strayQuotes + invalidUtf8;
    }
    std::string describe() const;
};

// Repairs the known ways Kineto and the legacy exporter wrote invalid JSON (format spec section 10):
// bare inf/nan/N/A values become strings, stray backslashes and quotes inside strings are escaped,
// control characters are escaped and invalid UTF-8 is replaced. Valid JSON passes through unchanged.
std::string sanitizeJson(std::string_view in, SanitizeReport& report);

// Members of a JSON object being read piece by piece: scanMembers walks "key": value pairs from pos,
// handing each complete one to onMember, and stops at "traceEvents": [ (pos just past the '['), at
// the closing '}', or where more text is needed (pos left at the start of the incomplete member).
enum class MemberScan { Done, NeedMore, EventsStart, EventsNotArray, Malformed };
MemberScan scanMembers(std::string_view text, size_t& pos, bool& expectComma,
                       const std::function<void(std::string_view key, std::string_view value)>& onMember);

// How far a run of comma-separated events (the inside of the events array) holds complete values:
// completeEnd is just past the last complete one; state says what stopped the scan, at stop:
// Complete (the text ended between values), Incomplete (it ended inside a value or after a comma),
// ArrayEnd (a ']' closed the array) or Malformed.
struct EventScan {
    enum State { Complete, Incomplete, ArrayEnd, Malformed } state = Complete;
    size_t completeEnd = 0;
    size_t stop = 0; // ArrayEnd: the ']'; Malformed: the offending byte
};
EventScan scanEvents(std::string_view text);

// " (a PNG image)" and the like for the first bytes of a file that is not JSON, or "".
std::string describeBinary(std::string_view head);
// The first n bytes as hex, "89 50 4e 47".
std::string hexBytes(std::string_view s, size_t n);

// 1-based line and column of a byte offset in text.
void lineAndColumn(std::string_view text, size_t offset, uint64_t& line, uint64_t& column);

} // namespace ks
