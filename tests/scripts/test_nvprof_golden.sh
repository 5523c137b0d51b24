#!/bin/sh
# `kinetoscope summary` on nvprof databases (emit_nvtx runs, built by nvprof_db.py) against torch
# 1.13's own parse_nvprof_trace + key_averages(), with torch's ns-as-µs bug undone.
# Env: KS_BIN, KS_SOURCE_DIR (set by ctest).
set -eu
: "${KS_BIN:?KS_BIN must point to the kinetoscope binary}"
: "${KS_SOURCE_DIR:?}"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
/usr/bin/python3 "$KS_SOURCE_DIR/tests/scripts/nvprof_golden.py" "$KS_BIN" "$WORK"
