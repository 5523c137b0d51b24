#pragma once

#include "app/cli/commands.h"

#include <charconv>
#include <limits>
#include <string>
#include <string_view>

namespace ks::cli {

// Walks a subcommand's arguments the way every subcommand reads them: options, an option's value,
// whole-number values and the one trace path. Mistakes are printed on stderr as
// "kinetoscope COMMAND: ..." with the user's text escaped for the terminal; the caller then
// returns 2.
class ArgReader {
public:
    ArgReader(const char* command, const Args& args) : m_command(command), m_args(args) {}

    // Moves to the next argument; false after the last.
    bool next() { return ++m_index < m_args.size(); }
    const std::string& arg() const { return m_args[m_index]; }

    // The value that follows the current option.
    bool value(std::string& out);
    // The value as a whole number; `what` names what it must be ("a count"). min, max: the smallest
    // and largest accepted.
    template <class T>
    bool number(T& out, const char* what, T min = std::numeric_limits<T>::lowest(),
                T max = std::numeric_limits<T>::max())
    {
        std::string v;
        if (!value(v)) return false;
        T n{};
        const auto r = std::from_chars(v.data(), v.data() + v.size(), n);
        if (r.ec != std::errc() || r.ptr != v.data() + v.size() || n < min || n > max)
            return invalid(what, v);
        out = n;
        return true;
    }
    // The value as "A-B" or "A" (parseNumberRange); `what` names the form ("A-B (step numbers)").
    bool numberRange(int64_t& a, int64_t& b, const char* what);
    // The current argument as the trace path; a second path is a mistake.
    bool path(std::string& out);

    // "kinetoscope COMMAND: OPTION needs WHAT, got 'VALUE'" for the current option.
    bool invalid(const char* what, std::string_view value) const; // false, for returning it
    // "kinetoscope COMMAND: unknown option 'OPTION'" for the current argument.
    void unknownOption() const;

private:
    const char* m_command;
    const Args& m_args;
    size_t m_index = size_t(-1);
};

// "A-B" or "A": a range of non-negative numbers (steps, instances) with A <= B.
bool parseNumberRange(const std::string& v, int64_t& a, int64_t& b);

} // namespace ks::cli
