#!/bin/sh
# kinetoscope flame: the collapsed stacks (-o X.folded) equal those of tests/scripts/flame_reference.py,
# a slow reader of the raw JSON written apart from the C++ code, for every metric, both merge modes
# and a step range, on real traces with stacks (torch 2.x Python frames and modules, torch 1.8
# "Call stack" args, Debian torch 1.13's op tree); the SVG is well-formed and holds the frames;
# bad input gets a one-line error and leaves the output alone.
set -eu
: "${KS_BIN:?}" "${KS_SOURCE_DIR:?}" "${KS_SHARED_TRACES:?}"
. "$KS_SOURCE_DIR/tests/scripts/common.sh"
ref="$KS_SOURCE_DIR/tests/scripts/flame_reference.py"
data="$KS_SOURCE_DIR/tests/data/flame"
failed=0

check() {
    trace="$1"; shift
    label="$(basename "$trace") $*"
    if ! "$KS_BIN" flame "$trace" "$@" -o "$work/ours.folded" 2>"$work/err"; then
        echo "FAIL: $label: flame failed: $(cat "$work/err")"; failed=1; return
    fi
    /usr/bin/python3 "$ref" "$trace" "$@" >"$work/ref.folded" || { echo "FAIL: $label: reference failed"; failed=1; return; }
    lines=$(wc -l <"$work/ref.folded")
    [ "$lines" -gt 0 ] || { echo "FAIL: $label: the reference has no stacks (vacuous case)"; failed=1; return; }
    if ! cmp -s "$work/ours.folded" "$work/ref.folded"; then
        echo "FAIL: $label differs from the reference (< reference, > ours):"
        diff "$work/ref.folded" "$work/ours.folded" | head -8
        failed=1; return
    fi
    echo "ok: $label ($lines stacks)"
}

bert="$KS_SHARED_TRACES/AMD-AGI_TraceLens__tests__traces__h100__gaunernst_bert-small-uncased__1016001.json.gz"
norm="$KS_SHARED_TRACES/AMD-AGI_TraceLens__tests__traces__perf_model__normalization__normalization_layer_test.json.gz"
resnet="$KS_SHARED_TRACES/pytorch_kineto__tb_plugin__samples__resnet50_num_workers_0__worker0.1623143089861.pt.trace.json.gz"
for m in cpu device memory; do check "$bert" --metric "$m"; done
check "$bert" --by line
check "$norm" --metric cpu
check "$norm" --metric device
check "$resnet" --metric cpu
check "$resnet" --metric device
check "$resnet" --metric memory
for m in cpu memory; do check "$data/torch2_model.json.gz" --metric "$m"; done
check "$data/torch2_model.json.gz" --by line
check "$data/torch2_model.json.gz" --steps 2
check "$data/torch2_model.json.gz" --steps 1-2 --metric memory
check "$data/torch113_model.json.gz" --metric cpu
check "$data/torch113_model.json.gz" --steps 1

# The SVG: well-formed, one titled frame per node at least as wide as a tenth of a pixel.
"$KS_BIN" flame "$bert" --metric device -o "$work/f.svg" || fail "svg not written"
/usr/bin/python3 - "$work/f.svg" <<'PY' || failed=1
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
ns = "{http://www.w3.org/2000/svg}"
titles = [t.text for t in root.iter(ns + "title")]
assert len(titles) > 20, len(titles)
assert any(t.startswith("nn.Module: BertModel_0 ") for t in titles), titles[:5]
assert any("aten::mm" in t or "aten::addmm" in t for t in titles)
print("ok: svg (%d frames)" % len(titles))
PY

# Bad input: one line on stderr, non-zero, the output untouched.
echo keep >"$work/keep.folded"
expect_error() {
    want="$1"; shift
    status=0
    "$KS_BIN" flame "$@" 2>"$work/err" >/dev/null || status=$?
    if [ "$status" = 0 ]; then echo "FAIL: accepted: $*"; failed=1; return; fi
    [ "$(wc -l <"$work/err")" = 1 ] || { echo "FAIL: not one line for $*:"; cat "$work/err"; failed=1; return; }
    grep -q "$want" "$work/err" || { echo "FAIL: '$want' not in: $(cat "$work/err")"; failed=1; return; }
    [ "$(cat "$work/keep.folded")" = keep ] || { echo "FAIL: output changed by $*"; failed=1; }
}
expect_error "cpu, device or memory" "$bert" --metric gpu -o "$work/keep.folded"
expect_error "function or line" "$bert" --by file -o "$work/keep.folded"
expect_error "no ProfilerStep#7..#9" "$data/torch2_model.json.gz" --steps 7-9 -o "$work/keep.folded"
expect_error "no GPU work" "$data/torch2_model.json.gz" --metric device -o "$work/keep.folded"
expect_error "must end in" "$bert" -o "$work/out.png"
expect_error "missing.json" "$work/missing.json" -o "$work/keep.folded"
printf '{"traceEvents": [' >"$work/broken.json"
expect_error "broken.json" "$work/broken.json" -o "$work/keep.folded"
[ $failed = 0 ] && echo "ok: errors"
exit $failed
