#pragma once

#include "core/util/id.h"

#include <QString>

namespace ks::ui {

class TraceDocument;

// HTML describing one slice for the details panel: its name on one line (demangled, elided in the
// middle to nameWidth pixels of the panel's font when given, the whole name in an anchor "ks-name"
// for a tooltip, next to a "ks-copy:name" link), then what it is, when, how long, its self time,
// the events linked to it, its parents, every argument, and the full name. Linked events are
// anchors of the form "slice:<track>:<row>" (see parseSliceLink).
QString sliceDetailsHtml(const TraceDocument& doc, SliceRef slice, int nameWidth = 0);
// The name as the details show it in full: demangled when the demangler accepts it.
QString displaySliceName(const TraceDocument& doc, SliceRef slice);

QString sliceLink(SliceRef r);
SliceRef parseSliceLink(const QString& href);

} // namespace ks::ui
