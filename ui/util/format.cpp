#include "ui/util/format.h"

#include "core/util/demangle.h"

#include <algorithm>
#include <atomic>
#include <cmath>

namespace ks::ui {

namespace {

QString threeDigits(double v, const char* unit)
{
    const double a = std::fabs(v);
    const int decimals = a >= 100 ? 0 : a >= 10 ? 1 : 2;
    return QString::number(v, 'f', decimals) + QLatin1Char(' ') + QString::fromUtf8(unit);
}

// The fixed unit's size in ns, 0 for "pick per value". Atomic: reports are formatted off the GUI
// thread too.
std::atomic<int64_t> g_unitNs{0};

QString inUnit(int64_t ns, int64_t unitNs)
{
    const double v = double(ns) / double(unitNs);
    const double a = std::fabs(v);
    // Three significant digits however small the value is in this unit, whole numbers above 100.
    const int decimals = a == 0 ? 0 : std::clamp(2 - int(std::floor(std::log10(a))), 0, 9);
    const char* name = unitNs == 1'000'000'000 ? "s" : unitNs == 1'000'000 ? "ms" : "µs";
    return QString::number(v, 'f', decimals) + QLatin1Char(' ') + QString::fromUtf8(name);
}

} // namespace

void setDurationUnit(const QString& unit)
{
    g_unitNs = unit == QLatin1String("s")    ? 1'000'000'000
               : unit == QLatin1String("ms") ? 1'000'000
               : unit == QLatin1String("us") ? 1'000
                                             : 0;
}

QString formatDuration(int64_t ns)
{
    if (const int64_t unit = g_unitNs.load(std::memory_order_relaxed)) return inUnit(ns, unit);
    const double a = std::fabs(double(ns));
    if (a < 1e3) return QString::number(ns) + QLatin1String(" ns");
    if (a < 1e6) return threeDigits(double(ns) / 1e3, "µs");
    if (a < 1e9) return threeDigits(double(ns) / 1e6, "ms");
    return threeDigits(double(ns) / 1e9, "s");
}

QString formatTimestamp(int64_t ns, double resolutionNs)
{
    // Enough decimals in the chosen unit to show the resolution.
    const double a = std::fabs(double(ns));
    double scale;
    const char* unit;
    if (a >= 1e9) {
        scale = 1e9;
        unit = "s";
    } else if (a >= 1e6) {
        scale = 1e6;
        unit = "ms";
    } else if (a >= 1e3) {
        scale = 1e3;
        unit = "µs";
    } else {
        return QString::number(ns) + QLatin1String(" ns");
    }
    int decimals = int(std::ceil(std::log10(scale / std::max(1.0, resolutionNs))));
    decimals = std::clamp(decimals, 0, 9);
    return QString::number(double(ns) / scale, 'f', decimals) + QLatin1Char(' ') + QString::fromUtf8(unit);
}

QString formatMillis(int64_t ns)
{
    return QString::number(double(ns) / 1e6, 'f', 3) + QLatin1String(" ms");
}

QString formatBytes(double bytes)
{
    const double a = std::fabs(bytes);
    if (a < 1024) return QString::number(bytes, 'f', 0) + QLatin1String(" B");
    if (a < 1024.0 * 1024) return QString::number(bytes / 1024, 'f', 1) + QLatin1String(" KiB");
    if (a < 1024.0 * 1024 * 1024)
        return QString::number(bytes / (1024.0 * 1024), 'f', 1) + QLatin1String(" MiB");
    return QString::number(bytes / (1024.0 * 1024 * 1024), 'f', 2) + QLatin1String(" GiB");
}

QString formatCount(uint64_t n)
{
    QString digits = QString::number(n);
    for (int i = digits.size() - 3; i > 0; i -= 3)
        digits.insert(i, QLatin1Char(','));
    return digits;
}

QString formatPercent(double fraction)
{
    const double p = fraction * 100;
    return QString::number(p, 'f', p >= 10 ? 1 : 2) + QLatin1Char('%');
}

QString wrappableText(const QString& text, int maxWord)
{
    static const QString separators = QStringLiteral("_,<>:()/");
    QString out;
    out.reserve(text.size() + text.size() / 8);
    int wordStart = 0;
    for (int i = 0; i <= text.size(); ++i) {
        if (i < text.size() && !text.at(i).isSpace()) continue;
        const QStringView word = QStringView(text).mid(wordStart, i - wordStart);
        if (word.size() > maxWord) {
            for (QChar c : word) {
                out += c;
                if (separators.contains(c)) out += QChar(0x200B);
            }
        } else {
            out += word;
        }
        if (i < text.size()) out += text.at(i);
        wordStart = i + 1;
    }
    return out;
}

QString displayName(std::string_view raw)
{
    std::string demangled;
    if (raw.substr(0, 2) == "_Z" && demangleForDisplay(raw, demangled))
        return QString::fromStdString(demangled);
    return QString::fromUtf8(raw.data(), qsizetype(raw.size()));
}

} // namespace ks::ui
