#pragma once

#include <QString>
#include <cstdint>

namespace ks {

// Text for the memory view: byte counts with binary units, durations and trace-relative times.
QString formatBytes(int64_t bytes);
QString formatDuration(int64_t ns);
QString formatMillis(int64_t ns);

} // namespace ks
