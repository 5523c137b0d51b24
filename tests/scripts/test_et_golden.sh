#!/bin/sh
# Execution traces from torch 1.13's ExecutionGraphObserver (and the same graph in torch 2.x's
# schema), beside the autograd profiler's trace of the same run: nodes, tensors, producer/consumer
# links and trace links from `kinetoscope info --et-ops` against the files and reference rules.
# Env: KS_BIN, KS_SOURCE_DIR (set by ctest).
set -eu
: "${KS_BIN:?KS_BIN must point to the kinetoscope binary}"
: "${KS_SOURCE_DIR:?}"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
/usr/bin/python3 "$KS_SOURCE_DIR/tests/scripts/et_golden.py" "$KS_BIN" "$WORK"
