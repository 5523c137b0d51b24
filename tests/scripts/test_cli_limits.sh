#!/bin/sh
# Command-line options and input at their limits: out-of-range values are refused with a one-line
# error (exit 2) instead of crashing, hanging or eating memory, and trace text reaches the terminal
# escaped in every report.
set -eu
: "${KS_BIN:?}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; }

printf '{"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "a", "pid": 1, "tid": 1, "ts": 1, "dur": 5}]}' \
    > "$tmp/t.json"

# refused EXPECTED-TEXT COMMAND...: the command exits 2 within 60 s with one line on stderr holding
# EXPECTED-TEXT.
refused() {
    want="$1"
    shift
    rc=0
    timeout 60 "$@" > "$tmp/out" 2> "$tmp/err" || rc=$?
    [ "$rc" -eq 2 ] || fail "$* exited $rc, not 2: $(head -c 300 "$tmp/err")"
    grep -qF -- "$want" "$tmp/err" || fail "$*: no '$want' in: $(head -c 300 "$tmp/err")"
}

# 1. --threads beyond kMaxWorkers (1024).
for n in 100000 2147483647 4294967296; do
    refused "--threads needs a count from 0 to 1024" "$KS_BIN" summary "$tmp/t.json" --threads $n
    refused "--threads needs a count from 0 to 1024" "$KS_BIN" diff "$tmp/t.json" "$tmp/t.json" --threads $n
done
"$KS_BIN" summary "$tmp/t.json" --threads 1024 > /dev/null 2> "$tmp/err" || fail "--threads 1024: $(cat "$tmp/err")"

# 2. analyze's text report: op, kernel and device names with ESC, BEL, CR and an OSC title sequence
# are shown escaped, like summary, info, diff and --json show them.
# True when the file holds a byte a terminal acts on (C0 control other than newline, DEL).
unsafe() {
    /usr/bin/python3 -c '
import sys
data = open(sys.argv[1], "rb").read()
sys.exit(0 if any((b < 0x20 and b != 0x0a) or b == 0x7f for b in data) else 1)' "$1"
}
cat > "$tmp/ctl.json" << 'JSON'
{"deviceProperties": [{"id": 0, "name": "GPU\u001b]0;owned\u0007", "totalGlobalMem": 1000}],
 "traceEvents": [
 {"ph": "X", "cat": "cpu_op", "name": "aten::op\u001b[31m\u0007\r", "pid": 1, "tid": 1, "ts": 10, "dur": 50,
  "args": {"External id": 1}},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 20, "dur": 5,
  "args": {"correlation": 7, "External id": 1}},
 {"ph": "X", "cat": "kernel", "name": "kern\u001b]2;title\u0007\r", "pid": 0, "tid": 7, "ts": 30, "dur": 100,
  "args": {"correlation": 7, "External id": 1, "device": 0, "stream": 7}},
 {"ph": "f", "id": 7, "pid": 0, "tid": 7, "ts": 30, "cat": "ac2g", "name": "ac2g", "bp": "e"},
 {"ph": "s", "id": 7, "pid": 1, "tid": 1, "ts": 20, "cat": "ac2g", "name": "ac2g"}]}
JSON
"$KS_BIN" analyze "$tmp/ctl.json" > "$tmp/out" 2> "$tmp/err" || fail "analyze ctl.json: $(cat "$tmp/err")"
unsafe "$tmp/out" && fail "raw control bytes in analyze's report: $(od -c "$tmp/out" | grep -m3 '033\|\\a\|\\r')"
grep -qF 'kern\x1b]2;title\x07\x0d' "$tmp/out" || fail "kernel name not shown escaped: $(cat "$tmp/out")"

# 3. Values that used to be taken silently: an empty --csv directory, a --memory that is no budget.
refused "--csv needs a directory, got ''" "$KS_BIN" analyze "$tmp/t.json" --csv ""
refused "--csv needs a directory, got ''" "$KS_BIN" diff "$tmp/t.json" "$tmp/t.json" --csv ""
for m in nan inf -1 0 1e308; do
    refused "--memory needs GB" "$KS_BIN" analyze-job "$tmp/t.json" --memory $m
done

# 4. A job directory: a symbolic link loop and a FIFO named like traces are skipped with a warning
# each (and the FIFO is not opened: reading it would block); given by name, each is an error.
mkdir "$tmp/job"
printf '{"distributedInfo": {"rank": 0, "world_size": 2}, "traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "a", "pid": 1, "tid": 1, "ts": 1, "dur": 5}]}' \
    > "$tmp/job/rank0.json"
sed 's/"rank": 0/"rank": 1/' "$tmp/job/rank0.json" > "$tmp/job/rank1.json"
ln -s loop.json "$tmp/job/loop.json"
mkfifo "$tmp/job/rank2.json"
timeout 60 "$KS_BIN" analyze-job "$tmp/job" > "$tmp/out" 2> "$tmp/err" || fail "analyze-job with a loop and a FIFO: $(cat "$tmp/err")"
grep -qF "loop.json: skipped: a symbolic link loop" "$tmp/err" || fail "no warning for the link loop: $(cat "$tmp/err")"
grep -qF "rank2.json: skipped: a FIFO, not a regular file" "$tmp/err" || fail "no warning for the FIFO: $(cat "$tmp/err")"
for f in loop.json rank2.json; do
    rc=0
    timeout 60 "$KS_BIN" analyze-job "$tmp/job/$f" > "$tmp/out" 2> "$tmp/err" || rc=$?
    [ "$rc" -eq 1 ] || fail "analyze-job $f exited $rc"
    grep -qE "symbolic link loop|a FIFO" "$tmp/err" || fail "analyze-job $f: $(cat "$tmp/err")"
done

# 5. --dask: local:N outside 1..4 per core is refused at once; an address nothing listens on fails at
# once with the system's reason, before Python or Dask are started.
for n in 0 -1 100000 x ""; do
    refused "local:N needs N workers from 1 to" "$KS_BIN" analyze-job "$tmp/t.json" --dask "local:$n"
done
port=$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
start=$(date +%s)
rc=0
timeout 60 "$KS_BIN" analyze-job "$tmp/t.json" --dask "tcp://127.0.0.1:$port" > "$tmp/out" 2> "$tmp/err" || rc=$?
[ "$rc" -eq 1 ] || fail "--dask to a closed port exited $rc: $(cat "$tmp/err")"
[ $(($(date +%s) - start)) -le 5 ] || fail "--dask to a closed port took $(($(date +%s) - start)) s"
grep -qF "cannot connect: Connection refused" "$tmp/err" || fail "--dask closed port: $(cat "$tmp/err")"
"$KS_BIN" analyze-job "$tmp/t.json" --dask "tcp://127.0.0.1:99999" 2> "$tmp/err" && fail "port 99999 accepted"
grep -qF "not an address" "$tmp/err" || fail "--dask port 99999: $(cat "$tmp/err")"

[ $failed -eq 0 ] && echo "ok"
exit $failed
