#pragma once

class QChartView;

namespace ks::ui {

// Gives a chart the theme's colours (background, title, legend, every axis) now and whenever the
// scheme switches: Qt Charts keep their own light defaults otherwise, which leaves white boxes in a
// dark window.
void followThemeInChart(QChartView* view);

} // namespace ks::ui
