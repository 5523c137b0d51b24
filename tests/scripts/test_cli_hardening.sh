#!/bin/sh
# Command-line behaviour on hostile or empty input: trace text never reaches the terminal raw
# (escape sequences, bell, carriage return, invalid UTF-8 in keys, names and paths), an export with
# nothing to write fails loudly without creating its output, and errors name the trace they are about.
set -eu
: "${KS_BIN:?}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; }

# True when the file holds a byte a terminal acts on (C0 control other than newline, DEL) or a byte
# that is not UTF-8.
unsafe() {
    /usr/bin/python3 -c '
import sys
data = open(sys.argv[1], "rb").read()
try:
    data.decode("utf-8")
except UnicodeDecodeError:
    sys.exit(0)
sys.exit(0 if any((b < 0x20 and b != 0x0a) or b == 0x7f for b in data) else 1)' "$1"
}

# 1. Escape sequences in top-level keys of a file that is not a trace.
printf '{"\033]0;pwned\007": 1, "\033[2J\rcr": 2, "bad\377\376": 3}' > "$tmp/keys.json"
if "$KS_BIN" info "$tmp/keys.json" > "$tmp/out" 2> "$tmp/err"; then fail "keys.json accepted"; fi
unsafe "$tmp/err" && fail "raw control bytes or invalid UTF-8 in the error: $(od -c "$tmp/err" | head -3)"
grep -qF '\x1b]0;pwned\x07' "$tmp/err" || fail "escaped key missing: $(cat "$tmp/err")"
grep -qF 'bad\xff\xfe' "$tmp/err" || fail "escaped invalid UTF-8 missing: $(cat "$tmp/err")"

# 2. Names, metadata and a phase in a loadable trace: info's listing and summary's table.
printf '{"title\033[5m": "v\007", "traceEvents": [
{"ph": "X", "cat": "cpu_op", "name": "op\\u001b[31m\\u0007", "pid": 1, "tid": 1, "ts": 1, "dur": 5},
{"ph": "\\u001b", "name": "n", "pid": 1, "tid": 1, "ts": 1},
{"ph": "M", "name": "thread_name", "pid": 1, "tid": 1, "args": {"name": "th\\u001b]2;x\\u0007"}}]}' > "$tmp/names.json"
"$KS_BIN" info "$tmp/names.json" > "$tmp/out" 2> "$tmp/err" || fail "info names.json: $(cat "$tmp/err")"
unsafe "$tmp/out" && fail "raw bytes in info's output: $(od -c "$tmp/out" | grep -m3 033)"
unsafe "$tmp/err" && fail "raw bytes in info's warnings"
grep -qF "phase '\\x1b'" "$tmp/err" || fail "phase warning not escaped: $(cat "$tmp/err")"
"$KS_BIN" summary "$tmp/names.json" > "$tmp/out" 2> "$tmp/err" || fail "summary names.json: $(cat "$tmp/err")"
unsafe "$tmp/out" && fail "raw bytes in the summary table"
grep -qF 'op\x1b[31m\x07' "$tmp/out" || fail "op name not shown escaped: $(cat "$tmp/out")"

# 3. A path holding an escape sequence, in the error for a missing file.
if "$KS_BIN" info "$tmp/$(printf 'no\033[2Jsuch\377').json" 2> "$tmp/err"; then fail "missing file accepted"; fi
unsafe "$tmp/err" && fail "raw bytes from the path in the error"
grep -qF 'no\x1b[2Jsuch\xff.json' "$tmp/err" || fail "escaped path missing: $(cat "$tmp/err")"

# 4. export-stacks with no stacks: a reason, exit 1, no output file.
printf '{"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "a", "pid": 1, "tid": 1, "ts": 1, "dur": 5}]}' \
    > "$tmp/nostack.json"
if "$KS_BIN" export-stacks "$tmp/nostack.json" "$tmp/stacks.txt" 2> "$tmp/err"; then
    fail "export-stacks without stacks exited 0"
fi
[ -e "$tmp/stacks.txt" ] && fail "export-stacks without stacks created its output"
grep -q "no stacks" "$tmp/err" || fail "export-stacks gave no reason: $(cat "$tmp/err")"
grep -qF "$tmp/nostack.json" "$tmp/err" || fail "export-stacks error does not name the trace"

# 5. export-memory on a device whose memory events hold no allocation names the trace.
printf '{"traceEvents": [{"ph": "i", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": 2, "args":
{"Device Type": 1, "Device Id": 0, "Addr": 0, "Bytes": 0, "Total Allocated": 0, "Total Reserved": 0}}]}' \
    > "$tmp/mem.json"
if "$KS_BIN" export-memory "$tmp/mem.json" "$tmp/mem.out.json" --device cuda:0 2> "$tmp/err"; then
    fail "export-memory without allocations exited 0"
fi
grep -q "no allocations or frees on device cuda:0" "$tmp/err" || fail "unexpected message: $(cat "$tmp/err")"
grep -qF "$tmp/mem.json" "$tmp/err" || fail "export-memory error does not name the trace: $(cat "$tmp/err")"

# 6. The GUI's --screenshot mode reports a failed load on the terminal too (GUI builds only).
if ldd "$KS_BIN" 2> /dev/null | grep -q Qt6Widgets; then
    if QT_QPA_PLATFORM=offscreen "$KS_BIN" --screenshot "$tmp/shot.png" "$tmp/$(printf 'no\033[2Jsuch').json" \
        2> "$tmp/err"; then
        fail "--screenshot of a missing file exited 0"
    fi
    unsafe "$tmp/err" && fail "raw bytes from the path in --screenshot's error: $(od -c "$tmp/err" | grep -m2 033)"
    grep -qF 'no\x1b[2Jsuch.json: ' "$tmp/err" || fail "--screenshot error: $(cat "$tmp/err")"
fi

[ $failed -eq 0 ] && echo "ok"
exit $failed
