#!/bin/sh
# `kinetoscope record` and its output path: one that cannot be written is refused before the
# target starts (a missing directory, a "directory" that is a regular file - which fails for root
# too), and when the final write fails anyway (the directory was removed during the run) the
# recording goes to a recovery file whose path is printed.
set -eu
: "${KS_BINARY_DIR:?}" "${KS_BIN:?}"
. "$(dirname "$0")/common.sh"
cstream="$KS_BINARY_DIR/tests/ks_c_stream"
[ -x "$cstream" ] || fail "$cstream is not built"
mkdir "$work/tmp"
export TMPDIR="$work/tmp"

# 1. A missing directory: a one-line error, non-zero, and the target never ran.
rc=0
timeout 30 "$KS_BIN" record -o "$work/missing/out.pt.trace.json" -- sh -c "touch '$work/ran1'" \
    >"$work/1.out" 2>"$work/1.err" || rc=$?
[ "$rc" -ne 0 ] || fail "a missing output directory was accepted"
[ ! -e "$work/ran1" ] || fail "the target ran although the output cannot be written"
[ "$(wc -l <"$work/1.err")" -eq 1 ] || fail "expected one line: $(cat "$work/1.err")"
grep -q "cannot write $work/missing/out.pt.trace.json" "$work/1.err" || fail "unclear error: $(cat "$work/1.err")"

# 2. A parent that is a regular file (unwritable for root as well).
: >"$work/file"
rc=0
timeout 30 "$KS_BIN" record -o "$work/file/out.pt.trace.json" -- sh -c "touch '$work/ran2'" \
    >"$work/2.out" 2>"$work/2.err" || rc=$?
[ "$rc" -ne 0 ] || fail "an output under a regular file was accepted"
[ ! -e "$work/ran2" ] || fail "the target ran although the output cannot be written"
[ "$(wc -l <"$work/2.err")" -eq 1 ] || fail "expected one line: $(cat "$work/2.err")"
grep -q "not a directory" "$work/2.err" || fail "unclear error: $(cat "$work/2.err")"

# 3. The output directory disappears during the run: the data is kept in a recovery file.
mkdir "$work/gone"
rc=0
timeout 60 "$KS_BIN" record --quiet -o "$work/gone/out.pt.trace.json" -- \
    sh -c "rm -rf '$work/gone' && exec '$cstream' ranges 3" >"$work/3.out" 2>"$work/3.err" || rc=$?
[ "$rc" -ne 0 ] || fail "a failed final write exited 0"
grep -q "the recording was saved to " "$work/3.err" || fail "no recovery file named: $(cat "$work/3.err")"
recovered=$(sed -n 's/.*the recording was saved to \(.*\) instead$/\1/p' "$work/3.err")
[ -s "$recovered" ] || fail "recovery file $recovered is missing"
case "$recovered" in "$TMPDIR"/*) ;; *) fail "the recovery file is not in \$TMPDIR: $recovered" ;; esac
grep -q '"train_step"' "$recovered" || fail "the recovery file lacks the recorded ranges"
echo "PASS"
