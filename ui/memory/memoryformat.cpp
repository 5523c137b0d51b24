#include "memory/memoryformat.h"

#include <cmath>
#include <cstdlib>

namespace ks {

QString formatBytes(int64_t bytes)
{
    const double a = std::abs(double(bytes));
    if (a < 1024) return QStringLiteral("%1 B").arg(bytes);
    if (a < 1024.0 * 1024) return QStringLiteral("%1 KiB").arg(bytes / 1024.0, 0, 'f', 1);
    if (a < 1024.0 * 1024 * 1024) return QStringLiteral("%1 MiB").arg(bytes / (1024.0 * 1024), 0, 'f', 2);
    return QStringLiteral("%1 GiB").arg(bytes / (1024.0 * 1024 * 1024), 0, 'f', 3);
}

QString formatDuration(int64_t ns)
{
    const double a = std::abs(double(ns));
    if (a < 1e3) return QStringLiteral("%1 ns").arg(ns);
    if (a < 1e6) return QStringLiteral("%1 µs").arg(ns / 1e3, 0, 'f', 3);
    if (a < 1e9) return QStringLiteral("%1 ms").arg(ns / 1e6, 0, 'f', 3);
    return QStringLiteral("%1 s").arg(ns / 1e9, 0, 'f', 3);
}

QString formatMillis(int64_t ns)
{
    return QStringLiteral("%1 ms").arg(ns / 1e6, 0, 'f', 3);
}

} // namespace ks
