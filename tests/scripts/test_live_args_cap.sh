#!/bin/sh
# A C caller that gives every range args of its own (ks_range_push_args, never the same text twice)
# cannot grow the recorder's args store past its cap (KINETOSCOPE_MAX_ARGS_MB): the ranges all
# arrive, the args beyond the cap are refused and counted, the target says so once on stderr and the
# session's console warns; the target's peak RSS stays far below what the args would have taken.
set -eu
: "${KS_BINARY_DIR:?}" "${KS_BIN:?}"
. "$(dirname "$0")/common.sh"
cstream="$KS_BINARY_DIR/tests/ks_c_stream"
[ -x "$cstream" ] || fail "$cstream is not built"
sanitizer_memory_limits
count=100000 # ~45 MB of distinct args against a 1 MiB cap

"$KS_BIN" record --env KINETOSCOPE_MAX_ARGS_MB=1 -o "$work/base.pt.trace.json" -- "$cstream" args 100 \
    >"$work/base.out" 2>"$work/base.err" || fail "baseline run: $(cat "$work/base.err")"
"$KS_BIN" record --env KINETOSCOPE_MAX_ARGS_MB=1 -o "$work/args.pt.trace.json" -- "$cstream" args $count \
    >"$work/args.out" 2>"$work/args.err" || fail "args run: $(tail -5 "$work/args.err")"

base_kib=$(sed -n 's/^peak rss \([0-9]*\) KiB$/\1/p' "$work/base.out")
peak_kib=$(sed -n 's/^peak rss \([0-9]*\) KiB$/\1/p' "$work/args.out")
[ -n "$base_kib" ] && [ -n "$peak_kib" ] || fail "the target did not report its RSS: $(cat "$work/args.out")"
[ "$(grep -c "event args over the 1 MiB cap" "$work/args.err")" = 1 ] ||
    fail "expected one stderr line from the target about the cap: $(cat "$work/args.err")"
grep -q "args of [0-9]* events were not kept" "$work/args.err" || fail "no console warning: $(cat "$work/args.err")"
if grep -q "args of" "$work/base.err"; then fail "the small run warned: $(cat "$work/base.err")"; fi
# 45 MB of args kept would show; the cap, the sender's buffers and allocator slack do not reach 24 MiB.
[ "$peak_kib" -le "$((base_kib + 24 * 1024))" ] ||
    fail "peak RSS $peak_kib KiB, baseline $base_kib KiB: the args store grew past its cap"

/usr/bin/python3 - "$work/args.pt.trace.json" $count <<'PY'
import json, sys
count = int(sys.argv[2])
ranges = [e for e in json.load(open(sys.argv[1]))["traceEvents"] if e.get("name") == "arg" and e.get("ph") == "X"]
with_args = [e for e in ranges if "i" in e.get("args", {})]
errors = []
if len(ranges) != count:
    errors.append(f"{len(ranges)} of {count} ranges arrived")
if not (0 < len(with_args) < count // 10):
    errors.append(f"{len(with_args)} ranges kept their args (expected some, far from all {count})")
if with_args and any(e["args"]["i"] != i for i, e in enumerate(with_args)):
    errors.append("the kept args are not the first ones, in order")
if errors:
    print("\n".join(errors))
    sys.exit(1)
print(f"{len(ranges)} ranges, {len(with_args)} with their args; the rest refused at the cap")
PY
echo "peak RSS $peak_kib KiB (baseline $base_kib KiB)"
