#pragma once

class QChartView;

namespace ks::ui {

// Gives a chart the theme's colours (background, title, axes, grid) now and whenever the theme
// changes, so the Overview's charts are not white boxes in a dark window.
void followThemeInChart(QChartView* view);

} // namespace ks::ui
