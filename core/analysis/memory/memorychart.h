#pragma once

#include "core/analysis/memory/memorycategory.h"
#include "core/util/raster.h"

#include <array>
#include <string>
#include <vector>

namespace ks {

// What torch's HTML memory timeline plots: per row of the coalesced timeline, the time in ms from
// the first row and the running sums of the nine columns in GiB (column 0 is torch's zero
// placeholder, so band i lies between stacked[i] and stacked[i + 1]).
struct MemoryChartData {
    std::vector<double> x;
    std::vector<std::array<double, kMemoryCategoryCount + 1>> stacked;
    // Full title; '\n' separates lines (torch's starts with two empty lines).
    std::string title;
};

// Draws the chart the way torch's matplotlib figure lays it out (20×12 inches at 80 dpi: 1600×960),
// without Qt: one translucent filled band per category in colour-map order, the axes box with
// ticks and labels "Time (ms)" / "Memory (GB)", the title above the axes and the figure legend in
// the top-right corner. Unlike matplotlib's, the axes end left of the legend, so that it never
// covers the data. Text uses BitmapFont.
Raster renderMemoryChart(const MemoryChartData& data, int width = 1600, int height = 960);

} // namespace ks
