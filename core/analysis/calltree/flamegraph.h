#pragma once

#include "core/analysis/calltree/calltree.h"

#include <string>

namespace ks {

// Collapsed stacks ("folded", the text flamegraph.pl, speedscope and inferno read) of a top-down
// call tree: one line per path whose self value is > 0, the frames outermost first joined by ';'
// (';' and line breaks inside a name become '_'), a space and the value: ns for the CPU and
// device metrics, bytes for memory. Lines are sorted; paths that print alike are summed.
std::string foldedText(const CallTree& tree, CallTree::Metric metric);

// A self-contained SVG flame graph (root at the bottom) of a top-down call tree: frames as wide as
// their inclusive value, those narrower than a tenth of a pixel left out (their time stays in
// their parent's width), a <title> per frame with its value and share, colours by frame kind.
std::string flameSvg(const CallTree& tree, CallTree::Metric metric, const std::string& title,
                     int width = 1200);

const char* metricName(CallTree::Metric metric);
// "cpu", "device", "memory"; false for anything else.
bool parseMetric(std::string_view text, CallTree::Metric& out);

} // namespace ks
