#pragma once

namespace ks::ui::metrics {

// Fixed geometry of the timeline, in device-independent pixels.
constexpr int kLabelWidth = 250;       // track label column
constexpr int kRulerHeight = 26;       // time ruler
constexpr int kStepRulerHeight = 20;   // ProfilerStep ruler (only when the trace has steps)
constexpr int kMatchStripHeight = 6;   // ticks of search matches / kernel occurrences
constexpr int kSliceRowHeight = 16;    // one nesting level
constexpr int kTrackPadding = 2;       // above and below a slice track's rows
constexpr int kGroupHeaderHeight = 26; // process / device header
constexpr int kCounterHeight = 46;
constexpr int kMinLabelTextWidth = 28; // narrower boxes get no text

} // namespace ks::ui::metrics
