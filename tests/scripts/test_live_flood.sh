#!/bin/sh
# A target that records as fast as it can (an unpaced loop of empty ranges) stays under the live
# sender's memory cap (KINETOSCOPE_LIVE_MAX_MB), and the drops are counted exactly: what reached
# the session plus what the session reports as dropped is what the target generated.
# The target runs under `ulimit -v` (ASan's RSS limit in a sanitizer build) so that, should the cap
# fail, it dies quickly instead of eating the machine's memory.
set -eu
: "${KS_BINARY_DIR:?}" "${KS_BIN:?}"
. "$(dirname "$0")/common.sh"
cstream="$KS_BINARY_DIR/tests/ks_c_stream"
[ -x "$cstream" ] || fail "$cstream is not built"
sanitizer_memory_limits
cap_mb=32

# The target's RSS without a flood (libraries, the sender's first buffers): the baseline.
"$KS_BIN" record --env KINETOSCOPE_LIVE_MAX_MB=$cap_mb -o "$work/base.pt.trace.json" -- \
    "$cstream" flood 0.3 2000 >"$work/base.out" 2>&1 || fail "baseline run: $(cat "$work/base.out")"

# stdout is kept (not --quiet): the target prints what it generated and its peak RSS.
timeout 60 "$KS_BIN" record --env KINETOSCOPE_LIVE_MAX_MB=$cap_mb -o "$work/flood.pt.trace.json" -- \
    sh -c "$ULIMIT_V"' exec "$0" flood 4 0' "$cstream" >"$work/flood.out" 2>"$work/flood.err" ||
    fail "flood run: $(tail -5 "$work/flood.err") $(tail -3 "$work/flood.out")"

base_kib=$(sed -n 's/^peak rss \([0-9]*\) KiB$/\1/p' "$work/base.out")
peak_kib=$(sed -n 's/^peak rss \([0-9]*\) KiB$/\1/p' "$work/flood.out")
generated=$(sed -n 's/^generated \([0-9]*\) events.*/\1/p' "$work/flood.out")
[ -n "$base_kib" ] || fail "no baseline RSS: $(cat "$work/base.out")"
[ -n "$peak_kib" ] && [ -n "$generated" ] || fail "the target did not report: $(tail -5 "$work/flood.out")"
ended=$(grep "session ended:" "$work/flood.err" | tail -1)
received=$(echo "$ended" | sed -n 's/.* \([0-9]*\) events · .*/\1/p')
dropped=$(echo "$ended" | sed -n 's/.* \([0-9]*\) dropped.*/\1/p')
[ -n "$received" ] || fail "no session summary: $ended"
[ -n "$dropped" ] || fail "an unpaced flood dropped nothing (is it too slow to fill the cap?): $ended"
echo "generated $generated received $received dropped $dropped; peak RSS $peak_kib KiB (baseline $base_kib KiB, cap $cap_mb MiB)"
[ "$((received + dropped))" -eq "$generated" ] ||
    fail "dropped ($dropped) is not generated ($generated) - received ($received): off by $((generated - received - dropped))"
[ "$peak_kib" -le "$((base_kib + cap_mb * 1024))" ] ||
    fail "peak RSS $peak_kib KiB is above the baseline $base_kib KiB + the $cap_mb MiB cap"
echo "PASS"
