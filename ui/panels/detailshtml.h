#pragma once

#include "core/util/id.h"

#include <QString>

namespace ks::ui {

class TraceDocument;

// HTML describing one slice for the details panel: what it is, when, how long, its self time,
// every argument, its parents, and the events linked to it. Linked events are anchors of the form
// "slice:<track>:<row>" (see parseSliceLink).
QString sliceDetailsHtml(const TraceDocument& doc, SliceRef slice);

QString sliceLink(SliceRef r);
SliceRef parseSliceLink(const QString& href);

} // namespace ks::ui
