#pragma once

#include <QString>

namespace ks::ui {

class TraceDocument;

// HTML for the trace information panel: file and load figures, versions, devices, distributed
// setup, user metadata, event counts by category, reader warnings.
QString traceInfoHtml(const TraceDocument& doc);

} // namespace ks::ui
