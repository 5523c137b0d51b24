#pragma once

#include "core/analysis/overview/overviewreport.h"

#include <string>

namespace ks {

// The whole overview report for `kinetoscope analyze`: TraceLens's members (overviewJson) plus the
// step breakdown, idle time, launch statistics, device peak, roofline and findings.
std::string overviewReportJson(const OverviewReport& report);
// The readable report: findings first, then step breakdown and idle time, then TraceLens's tables.
std::string overviewReportText(const OverviewReport& report, size_t rowLimit = 15);

} // namespace ks
