#!/bin/sh
# `kinetoscope export` as Python sees it: a few traces spanning the format's history are exported
# plain and gzipped; Python's json module must accept each output (a single gzip member for .gz),
# and export_check.py compares every event, the 'M' state and the top-level keys with the source,
# both parsed by Python. Also checks the command's exit codes and that a failed export leaves an
# existing file alone. Env: KS_BIN, KS_SOURCE_DIR, KS_SHARED_TRACES (set by ctest).
set -eu

: "${KS_BIN:?KS_BIN must point to the kinetoscope binary}"
: "${KS_SOURCE_DIR:?}"
: "${KS_SHARED_TRACES:?}"
PY=/usr/bin/python3
CHECK="$KS_SOURCE_DIR/tests/scripts/export_check.py"
WORK=$(mktemp -d)
trap 'chmod -R u+w "$WORK" 2>/dev/null; rm -rf "$WORK"' EXIT

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

# 2020 bare array with string tids; 2021 allocator events without "cat"; a 2025 CUDA trace with
# memory events and keys after traceEvents; ROCm; keys in odd places; the torch 1.13 legacy
# exporter; and the writer's own edge-case file (B/E pairs, counters, unbound flows, escapes).
TRACES="
$KS_SHARED_TRACES/pytorch_kineto__tb_plugin__samples__resnet50_num_workers_0__worker0.pt.trace.json.gz
$KS_SHARED_TRACES/pytorch_kineto__tb_plugin__samples__resnet50_num_workers_0__worker0.1623143089861.pt.trace.json.gz
$KS_SHARED_TRACES/AMD-AGI_TraceLens__tests__traces__h100__gaunernst_bert-small-uncased__1016001.json.gz
$KS_SHARED_TRACES/AMD-AGI_TraceLens__tests__traces__mi300__ddp_resnet18_no_pool__train_resnet18.json.gz
$KS_SHARED_TRACES/facebookresearch_HolisticTraceAnalysis@b8cce2c__tests__data__cpu_only__rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz
$KS_SHARED_TRACES/pytorch_kineto__docs__traces__before_fix_trace.json
$KS_SHARED_TRACES/torch113_legacy/mlp_plain.json
$KS_SOURCE_DIR/tests/data/writer_edgecases.json
"

n=0
for src in $TRACES; do
    [ -f "$src" ] || fail "missing trace $src"
    n=$((n + 1))
    "$KS_BIN" export "$src" "$WORK/$n.json" 2>"$WORK/err" || { cat "$WORK/err" >&2; fail "export of $src"; }
    "$KS_BIN" export "$src" "$WORK/$n.json.gz" 2>"$WORK/err" || { cat "$WORK/err" >&2; fail "export of $src"; }
    # Plain json.load, exactly as a user would read the files.
    "$PY" -c 'import json, gzip, sys
json.load(open(sys.argv[1]))
json.load(gzip.open(sys.argv[2], "rt"))' "$WORK/$n.json" "$WORK/$n.json.gz" || fail "Python cannot read the export of $src"
    "$PY" "$CHECK" "$src" "$WORK/$n.json" "$WORK/$n.json.gz" || fail "export of $src differs from its source"
done

# Exit codes and messages.
set +e
"$KS_BIN" export --help >"$WORK/out" 2>&1
[ $? -eq 0 ] && grep -q "usage: kinetoscope export" "$WORK/out" || fail "--help"
"$KS_BIN" export "$WORK/1.json" >"$WORK/out" 2>&1
[ $? -eq 2 ] && grep -q "usage:" "$WORK/out" || fail "a missing argument must be a usage error (2)"
"$KS_BIN" export --gzip-level 12 "$WORK/1.json" "$WORK/x.json.gz" >/dev/null 2>&1
[ $? -eq 2 ] || fail "a bad --gzip-level must be a usage error (2)"
"$KS_BIN" export --bogus "$WORK/1.json" "$WORK/x.json" >/dev/null 2>&1
[ $? -eq 2 ] || fail "an unknown option must be a usage error (2)"
"$KS_BIN" export "$WORK/does-not-exist.json" "$WORK/x.json" >"$WORK/out" 2>&1
[ $? -eq 1 ] && grep -q "does-not-exist.json" "$WORK/out" || fail "an unreadable input must fail (1) and name the file"
[ ! -e "$WORK/x.json" ] || fail "a failed export created its output"
printf 'not json' >"$WORK/bad.json"
"$KS_BIN" export "$WORK/bad.json" "$WORK/x.json" >/dev/null 2>&1
[ $? -eq 1 ] || fail "an invalid input must fail (1)"
"$KS_BIN" export "$WORK/1.json" "$WORK/no/such/dir/x.json" >"$WORK/out" 2>&1
[ $? -eq 1 ] && grep -q "no/such/dir" "$WORK/out" || fail "an unwritable output must fail (1) and name it"
# An existing output is replaced only by a complete export.
printf 'old' >"$WORK/keep.json"
"$KS_BIN" export "$WORK/bad.json" "$WORK/keep.json" >/dev/null 2>&1
[ "$(cat "$WORK/keep.json")" = "old" ] || fail "a failed export touched the existing output"
"$KS_BIN" export "$WORK/1.json" "$WORK/keep.json" 2>/dev/null || fail "export over an existing file"
cmp -s "$WORK/keep.json" "$WORK/1.json" || fail "the existing output was not replaced"
set -e

leftovers=$(find "$WORK" -name '*.tmp' | wc -l)
[ "$leftovers" -eq 0 ] || fail "temporary files left behind"
echo "export: $n traces checked by Python"
