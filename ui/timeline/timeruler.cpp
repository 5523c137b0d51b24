#include "ui/timeline/timeruler.h"

#include <cmath>
#include <cstdlib>

namespace ks::ui {

TimeNs rulerStep(TimeNs span, double width, double minLabelSpacing)
{
    if (span <= 0 || width <= 0) return 1;
    const double minStep = double(span) * minLabelSpacing / width;
    double magnitude = 1;
    while (magnitude * 10 <= minStep)
        magnitude *= 10;
    for (double m : {1.0, 2.0, 5.0, 10.0})
        if (magnitude * m >= minStep) return std::max<TimeNs>(1, TimeNs(magnitude * m));
    return TimeNs(magnitude * 10);
}

std::vector<RulerTick> rulerTicks(TimeNs t0, TimeNs t1, double width, TimeNs origin, double minLabelSpacing)
{
    std::vector<RulerTick> out;
    if (t1 <= t0 || width <= 0) return out;
    const TimeNs step = rulerStep(t1 - t0, width, minLabelSpacing);
    // One unit for every label, picked from how far from the origin the window lies (a label reads
    // "31.6 ms", not "31600 µs"), with as many decimals as the step needs.
    const TimeNs reach = std::max(std::abs(t0 - origin), std::abs(t1 - origin));
    double scale = 1;
    const char* unit = "ns";
    if (reach >= 10'000'000'000) {
        scale = 1e9;
        unit = "s";
    } else if (reach >= 1'000'000) {
        scale = 1e6;
        unit = "ms";
    } else if (reach >= 1'000) {
        scale = 1e3;
        unit = "µs";
    }
    int decimals = 0;
    for (double q = double(step) / scale; q < 1 - 1e-9 && decimals < 9; q *= 10)
        ++decimals;
    const TimeNs minor = std::max<TimeNs>(1, step / 5);
    // First minor tick at or after t0, on the grid anchored at the origin.
    auto floorDiv = [](TimeNs a, TimeNs b) { return a >= 0 ? a / b : -((-a + b - 1) / b); };
    TimeNs t = origin + floorDiv(t0 - origin, minor) * minor;
    if (t < t0) t += minor;
    for (; t <= t1; t += minor) {
        RulerTick tick;
        tick.time = t;
        tick.major = (t - origin) % step == 0;
        if (tick.major)
            tick.label = QString::number(double(t - origin) / scale, 'f', decimals) + QLatin1Char(' ') +
                         QString::fromUtf8(unit);
        out.push_back(std::move(tick));
    }
    return out;
}

} // namespace ks::ui
