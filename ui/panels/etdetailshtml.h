#pragma once

#include "core/analysis/timeline/etlinker.h"
#include "core/model/executiontrace.h"
#include "core/model/trace.h"

#include <QString>

namespace ks::ui {

// The execution-trace part of the details panel for one op: its inputs and outputs (tensor id,
// storage, shape, dtype, strides), the op that produced each input and the ops that consume each
// output. Ops linked to a trace slice are anchors "slice:<track>:<row>" (detailshtml.h).
QString etDetailsHtml(const Trace& trace, const ExecutionTrace& et, const EtLinks& links, uint32_t node);

} // namespace ks::ui
