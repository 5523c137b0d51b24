#!/bin/sh
# analyze-job / analyze-rank on the command line: HTA's real rank pair, the .kjob round trip, bad
# input (missing, empty, foreign files) with one-line errors, and trace text escaped on the terminal.
set -eu
: "${KS_BIN:?}" "${KS_SHARED_TRACES:?}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; }

pair="$KS_SHARED_TRACES/facebookresearch_HolisticTraceAnalysis__tests__data__trace_filter__sampled_rank"
if [ -f "${pair}-0.json.gz" ]; then
    mkdir "$tmp/hta"
    cp "${pair}-1.json.gz" "$tmp/hta/b.json.gz"
    cp "${pair}-0.json.gz" "$tmp/hta/a.json.gz"
    "$KS_BIN" analyze-job "$tmp/hta" -o "$tmp/hta.kjob" > "$tmp/report" 2> "$tmp/err" || fail "analyze-job: $(cat "$tmp/err")"
    grep -q "^Job: 2 rank(s) analysed, 0 failed" "$tmp/report" || fail "report head: $(head -3 "$tmp/report")"
    # Ranks from distributedInfo (a.json.gz is rank 0), HTA's overlap 14.9% and 19.9%.
    grep -Eq "^ +0 +607\.312 +622\.928 .* 14\.9%$" "$tmp/report" || fail "rank 0 row: $(cat "$tmp/report")"
    grep -Eq "^ +1 +607\.904 +630\.639 .* 19\.9%$" "$tmp/report" || fail "rank 1 row: $(cat "$tmp/report")"
    grep -q "allreduce.*float" "$tmp/report" || fail "collectives: $(cat "$tmp/report")"
    # The saved job reports the same.
    "$KS_BIN" analyze-job "$tmp/hta.kjob" > "$tmp/report2" || fail "reading the .kjob back"
    cmp -s "$tmp/report" "$tmp/report2" || fail ".kjob report differs: $(diff "$tmp/report" "$tmp/report2" | head)"
    /usr/bin/python3 - "$tmp/hta.kjob" <<'PY' || fail ".kjob content"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["format"] == "kinetoscope-job" and j["version"] == 1
assert [r["rank"] for r in j["ranks"]] == [0, 1]
assert all(r["path"].startswith("/") for r in j["ranks"])
assert j["ranks"][0]["comm_ns"] == 396199000 and j["ranks"][0]["overlap_ns"] == 59216000
PY
    "$KS_BIN" analyze-rank "$tmp/hta/b.json.gz" --json | /usr/bin/python3 -c '
import json, sys
r = json.load(sys.stdin)
assert r["format"] == "kinetoscope-rank" and r["rank"] == 1 and r["world_size"] == 128, r["rank"]
assert [s["number"] for s in r["steps"]] == [551, 552]' || fail "analyze-rank --json"
fi

# Bad input: one line naming what is wrong, exit 1.
"$KS_BIN" analyze-job "$tmp/missing" > /dev/null 2> "$tmp/err" && fail "missing dir accepted"
[ "$(wc -l < "$tmp/err")" -eq 1 ] && grep -q "missing: no such file or directory" "$tmp/err" || fail "missing: $(cat "$tmp/err")"
mkdir "$tmp/empty"
"$KS_BIN" analyze-job "$tmp/empty" > /dev/null 2> "$tmp/err" && fail "empty dir accepted"
grep -q "no trace files" "$tmp/err" || fail "empty: $(cat "$tmp/err")"
printf '{"format": "kinetoscope-job", "version": 7}' > "$tmp/new.kjob"
"$KS_BIN" analyze-job "$tmp/new.kjob" > /dev/null 2> "$tmp/err" && fail "version 7 accepted"
[ "$(wc -l < "$tmp/err")" -eq 1 ] && grep -q "new.kjob: job file version 7" "$tmp/err" || fail "version: $(cat "$tmp/err")"
"$KS_BIN" analyze-job --bogus > /dev/null 2>&1 && fail "unknown option accepted"
code=0
"$KS_BIN" analyze-job > /dev/null 2>&1 || code=$?
[ "$code" = 2 ] || fail "no input: exit code $code (want 2, a usage error)"

# A corrupt rank among good ones: exit 3, the good ones reported, the bad one named.
mkdir "$tmp/job"
for r in 0 1; do
    printf '{"distributedInfo": {"rank": %d, "world_size": 3}, "traceEvents": [
{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
{"ph": "X", "cat": "kernel", "name": "ncclKernel_AllReduce\\u001b[2J\\u0007", "pid": 0, "tid": 7, "ts": 10, "dur": 50,
 "args": {"stream": 7, "Collective name": "allreduce", "In msg nelems": 1000, "Out msg nelems": 1000,
          "dtype": "Float\\u001b]0;x\\u0007", "Group size": 3}}]}' "$r" > "$tmp/job/rank-$r.json"
done
printf '{"traceEvents": [{"ph"' > "$tmp/job/rank-2.json"
code=0
"$KS_BIN" analyze-job "$tmp/job" > "$tmp/out" 2> "$tmp/err" || code=$?
[ "$code" = 3 ] || fail "exit code $code with a corrupt rank (want 3)"
grep -q "^Job: 2 rank(s) analysed, 1 failed" "$tmp/out" || fail "partial job: $(head -2 "$tmp/out")"
grep -q "rank 2: .*rank-2.json: " "$tmp/out" || fail "failure line: $(cat "$tmp/out")"
if /usr/bin/python3 -c '
import sys
d = open(sys.argv[1], "rb").read()
sys.exit(0 if any((b < 0x20 and b != 0x0a) or b == 0x7f for b in d) else 1)' "$tmp/out"; then
    fail "raw control bytes in the report: $(od -c "$tmp/out" | grep -m3 033)"
fi
grep -qF 'Float\x1b]0;x\x07' "$tmp/out" || fail "dtype not escaped: $(grep allreduce "$tmp/out")"

[ "$failed" = 0 ] && echo "analyze-job CLI OK"
exit "$failed"
