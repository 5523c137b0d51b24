#pragma once

#include <QString>
#include <cstdint>
#include <string_view>

namespace ks::ui {

// "12.3 ms", "850 ns", "1.25 s": three significant digits, unit picked from the magnitude, or in
// the unit set by setDurationUnit ("0.000850 ms": three significant digits there too).
QString formatDuration(int64_t ns);
// The unit on-screen durations use: "" (picked per value, the default), "s", "ms" or "us"
// (Edit > Preferences > Time unit, which the torch tables the viewer writes use too).
void setDurationUnit(const QString& unit);
// A time on the trace axis relative to the trace start, with enough digits for the given
// resolution (ns per pixel): "12.345 ms".
QString formatTimestamp(int64_t ns, double resolutionNs = 1000.0);
// A time on the trace axis in milliseconds with microsecond digits, "12.345 ms": columns of times
// (allocation tables, memory tooltips) compare best in one unit.
QString formatMillis(int64_t ns);
// Binary units; one decimal up to MiB, two for GiB: "850 B", "4.0 KiB", "12.3 MiB", "1.25 GiB".
QString formatBytes(double bytes);
// "1,234,567"
QString formatCount(uint64_t n);
QString formatPercent(double fraction);
// The text with a zero-width space after the separators (_ , < > : ( ) /) of every word longer than
// maxWord characters, so that word-wrapping views can break kernel names and other long
// identifiers instead of clipping them. For display only: copies and tooltips keep the original.
QString wrappableText(const QString& text, int maxWord = 32);
// An event name as every view shows it: a mangled C++ name (a CUDA or ROCm kernel's "_ZN...")
// demangled as c++filt would, anything else as it is. Searches and copies of the raw name keep the
// name from the trace.
QString displayName(std::string_view raw);

} // namespace ks::ui
