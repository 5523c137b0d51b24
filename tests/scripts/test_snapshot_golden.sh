#!/bin/sh
# `kinetoscope snapshot` against a Python reference (snapshot_reference.py: pickle.load and
# memory_viz's definitions) on snapshots snapshot_gen.py makes with Python's pickle: protocols 2 to
# 5, one to three devices, truncated history, OOMs, shared frame lists, no time_us, deep stacks; and
# on the hand-checked fixtures. Peak, live and reserved bytes after every entry, what was alive at
# the peak by top frame and by frame, and the OOMs must all match. Then hostile and broken input:
# one-line errors, exit 1; usage mistakes exit 2.
# Env: KS_BIN, KS_SOURCE_DIR (set by ctest); KS_SNAPVIEWER_SAMPLE: SnapViewer's assets/memory.pickle,
# checked too when set (it cannot be kept in tests/data, see tests/data/snapshots/README.md).
set -eu

: "${KS_BIN:?KS_BIN must point to the kinetoscope binary}"
: "${KS_SOURCE_DIR:?}"
PY=/usr/bin/python3
GEN="$KS_SOURCE_DIR/tests/scripts/snapshot_gen.py"
REF="$KS_SOURCE_DIR/tests/scripts/snapshot_reference.py"
. "$KS_SOURCE_DIR/tests/scripts/common.sh"

check() { # FILE
    "$KS_BIN" snapshot "$1" --json --series --top 0 >"$work/out.json" 2>"$work/err" ||
        { cat "$work/err" >&2; fail "snapshot $1"; }
    "$PY" "$REF" "$1" "$work/out.json" || fail "reference check of $1"
    "$KS_BIN" snapshot "$1" >"$work/out.txt" || fail "text report of $1"
    grep -q "peak allocated" "$work/out.txt" || fail "text report of $1 has no peak"
}

n=0
for args in "--entries 3000 --protocol 2" "--entries 3000 --protocol 3 --devices 2 --oom" \
    "--entries 20000 --protocol 4 --devices 3 --truncate 400 --oom" "--entries 5000 --protocol 5 --share-lists" \
    "--entries 4000 --protocol 4 --no-time --depth 40:120 --seed 7" "--entries 1 --protocol 4" "--entries 0 --protocol 2"; do
    n=$((n + 1))
    # shellcheck disable=SC2086
    "$PY" "$GEN" "$work/g$n.pickle" $args || fail "generator $args"
    check "$work/g$n.pickle"
done
for f in tiny_p2 tiny_p3 tiny_p4 tiny_p5 legacy_list; do
    check "$KS_SOURCE_DIR/tests/data/snapshots/$f.pickle"
done
if [ -n "${KS_SNAPVIEWER_SAMPLE:-}" ]; then
    check "$KS_SNAPVIEWER_SAMPLE"
fi

# A failure: exit status 1 and one line on stderr that says what (grep -e PATTERN).
refused() { # FILE PATTERN
    status=0
    "$KS_BIN" snapshot "$1" >"$work/out" 2>"$work/err" || status=$?
    [ "$status" = 1 ] || fail "snapshot $1: exit $status, expected 1"
    [ "$(wc -l <"$work/err")" = 1 ] || { cat "$work/err" >&2; fail "snapshot $1: not one line of error"; }
    grep -q -e "$2" "$work/err" || { cat "$work/err" >&2; fail "snapshot $1: error without '$2'"; }
}
# pickle.dumps(X()) where X.__reduce__ returns (os.system, ('touch FILE',)): must not run.
"$PY" - "$work" <<'PY'
import os, pickle, sys
work = sys.argv[1]
class X:
    def __reduce__(self):
        return (os.system, ("touch %s/pwned" % work,))
for p in (2, 4):
    open("%s/evil%d.pickle" % (work, p), "wb").write(pickle.dumps({"segments": [], "device_traces": [[X()]]}, protocol=p))
open("%s/deep.pickle" % work, "wb").write(b"\x80\x04" + b"(" * 100000 + b".")
open("%s/huge.pickle" % work, "wb").write(b"\x80\x04\x8d" + (1 << 62).to_bytes(8, "little") + b"abc")
PY
refused "$work/evil2.pickle" "GLOBAL (0x63) would run code; refused at byte"
refused "$work/evil4.pickle" "STACK_GLOBAL (0x93) would run code; refused at byte"
[ ! -e "$work/pwned" ] || fail "a pickle ran code"
refused "$work/deep.pickle" "more than 4096 open MARKs"
refused "$work/huge.pickle" "over the limit"
head -c 20000 "$work/g3.pickle" >"$work/cut.pickle"
refused "$work/cut.pickle" "truncated"
printf '{"traceEvents": []}' >"$work/trace.json"
refused "$work/trace.json" "not a pickle of protocol 2 or later"
refused "$work/missing.pickle" "missing.pickle"

status=0
"$KS_BIN" snapshot >/dev/null 2>&1 || status=$?
[ "$status" = 2 ] || fail "no file: exit $status, expected 2"
status=0
"$KS_BIN" snapshot "$work/g1.pickle" --top x >/dev/null 2>&1 || status=$?
[ "$status" = 2 ] || fail "--top x: exit $status, expected 2"
echo "snapshot golden: $n generated snapshots, 5 fixtures and the refusals: ok"
