#!/bin/sh
# The AddressSanitizer + UndefinedBehaviorSanitizer pass (docs/sanitizers.md): configures and builds
# with KINETOSCOPE_SANITIZE=ON, runs the whole test suite, then runs summary, analyze, info, diff
# and analyze-job over every shared trace. Any sanitizer report, crash or failed test fails it.
# Not part of .ci/run (too slow for its budget); run it by hand before a release or after changes
# to readers and analyses.
#
#   packaging/sanitize.sh [all|build|test|sweep]   (default all: build, test, sweep)
#
# Environment: BUILD_DIR (default: build-asan), JOBS (default: number of CPUs), GUI=ON to build and
# run the Qt user interface's tests too (default OFF), CTEST_ARGS (extra ctest arguments, e.g.
# "-R tst_"), KS_SHARED_TRACES (default: ../shared/traces beside the checkout).
# Logs: BUILD_DIR/sanitize/ (ctest.log, sweep/<trace>.<command>.err for each command).
set -eu
mode="${1:-all}"
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${BUILD_DIR:-$root/build-asan}"
jobs="${JOBS:-$(nproc)}"
traces="${KS_SHARED_TRACES:-$root/../shared/traces}"
logs="$build/sanitize"

case "$mode" in
all | build | test | sweep) ;;
*)
    echo "usage: $0 [all|build|test|sweep]" >&2
    exit 2
    ;;
esac

now() { date +%s; }
elapsed() { echo "$(($(now) - $1)) s"; }

if [ "$mode" = all ] || [ "$mode" = build ]; then
    start=$(now)
    launcher=""
    if command -v ccache > /dev/null 2>&1; then
        launcher="-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache"
        export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$root}"
    fi
    # -O1 -g1 (line tables): ASan's usual level, with file:line in its reports; at -O3 -g the
    # instrumented build takes far longer to compile and the tests gain little speed.
    # shellcheck disable=SC2086
    cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
        -DKINETOSCOPE_SANITIZE=ON -DKINETOSCOPE_BENCH=OFF -DKINETOSCOPE_GUI="${GUI:-OFF}" $launcher
    cmake --build "$build" -j "$jobs"
    echo "sanitize: build $(elapsed "$start")"
fi
grep -q "^KINETOSCOPE_SANITIZE:BOOL=ON" "$build/CMakeCache.txt" 2> /dev/null ||
    { echo "sanitize: $build is not a KINETOSCOPE_SANITIZE=ON build (run '$0 build')" >&2; exit 2; }
mkdir -p "$logs"

export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1}"
status=0

if [ "$mode" = all ] || [ "$mode" = test ]; then
    start=$(now)
    # The torch 2.x environment the *_torch2 tests run in (packaging/torch-env.sh), made once.
    "$root/packaging/torch-env.sh" ensure || echo "sanitize: no torch 2.x environment; the *_torch2 tests will be skipped"
    # shellcheck disable=SC2086
    ctest_ok=0
    ctest --test-dir "$build" --output-on-failure -j "$jobs" ${CTEST_ARGS:-} > "$logs/ctest.log" 2>&1 || ctest_ok=$?
    # Kept: a rerun below replaces ctest's own.
    cp "$build/Testing/Temporary/LastTest.log" "$logs/LastTest.log" 2> /dev/null || : > "$logs/LastTest.log"
    if [ "$ctest_ok" -eq 0 ]; then
        tail -n 3 "$logs/ctest.log"
    else
        sed -n '/tests passed/,$p' "$logs/ctest.log"
        # LeakSanitizer's own stop-the-world tracer now and then crashes at exit on a loaded
        # machine ("Tracer caught signal 11", "LeakSanitizer has encountered a fatal error"), after
        # the test has passed and with no report: a fault of the runtime that other projects see
        # too (google/sanitizers#1353); seen once in 150 tests here and not again in 470 runs of
        # that test. A failed test whose output is only that (no sanitizer report, no failed
        # check) runs once more; any other failure stands.
        flaky="$(awk '
            /^ *[0-9]+\/[0-9]+ Test +#[0-9]+: / { name = $4; failed = /\*\*\*Failed/; tracer[name] = 0; real[name] = 0; cur = failed ? name : ""; next }
            /^ *Start +[0-9]+: / { cur = ""; next }
            cur != "" && /Tracer caught signal/ { tracer[cur] = 1 }
            cur != "" && /ERROR: AddressSanitizer|ERROR: LeakSanitizer: detected|runtime error:|^FAIL!|SUMMARY: / { real[cur] = 1 }
            END { for (n in tracer) if (tracer[n] && !real[n]) print n }' "$logs/ctest.log")"
        failed="$(sed -n 's/^[[:space:]]*[0-9]* - \([^ ]*\) (.*/\1/p' "$logs/ctest.log" | sort -u)"
        others="$(printf '%s\n' "$failed" | grep -vxF "$(printf '%s\n' $flaky)" || true)"
        if [ -n "$flaky" ]; then
            echo "sanitize: LeakSanitizer's tracer crashed at exit in: $(echo $flaky); running them again"
            # shellcheck disable=SC2086
            if ctest --test-dir "$build" --output-on-failure -R "^($(echo $flaky | tr ' ' '|'))\$" > "$logs/ctest-rerun.log" 2>&1; then
                echo "sanitize: the rerun passed (log: $logs/ctest-rerun.log)"
            else
                echo "sanitize: the rerun failed too (log: $logs/ctest-rerun.log)"
                status=1
            fi
        fi
        [ -z "$others" ] || { echo "sanitize: failed: $(echo $others)"; status=1; }
    fi
    # Sanitizer reports, in the whole run's log and the rerun's.
    for log in "$logs/LastTest.log" "$build/Testing/Temporary/LastTest.log"; do
        grep -l "ERROR: AddressSanitizer\|ERROR: LeakSanitizer: detected\|runtime error:" "$log" > /dev/null 2>&1 &&
            { echo "sanitize: sanitizer reports in $log"; status=1; }
    done
    echo "sanitize: tests $(elapsed "$start") (log: $logs/ctest.log)"
fi

if [ "$mode" = all ] || [ "$mode" = sweep ]; then
    start=$(now)
    # A sanitizer report stops the program (-fno-sanitize-recover) with an exit status no command
    # of ours uses; leaks are reported (LeakSanitizer is on by default) and fail the same way.
    export ASAN_OPTIONS="${ASAN_OPTIONS:-exitcode=99}"
    bin="$build/app/kinetoscope"
    [ -x "$bin" ] || { echo "sanitize: $bin not built" >&2; exit 2; }
    [ -d "$traces" ] || { echo "sanitize: no shared traces at $traces (set KS_SHARED_TRACES)" >&2; exit 2; }
    sweep="$logs/sweep"
    rm -rf "$sweep"
    mkdir -p "$sweep/out"
    # One line per command: a label (the log's name) and the arguments, tab-separated.
    list="$logs/sweep.commands"
    : > "$list"
    add() { label="$1"; shift; printf '%s\t%s\n' "$label" "$*" >> "$list"; }
    find "$traces" -type f \( -name '*.json' -o -name '*.json.gz' \) | sort > "$logs/sweep.traces"
    while IFS= read -r t; do
        n="$(basename "$t")"
        add "$n.summary" summary "$t"
        add "$n.summary2" summary "$t" --torch-version 2 --group-by-input-shape --row-limit -1
        add "$n.analyze" analyze "$t"
        add "$n.analyze-json" analyze "$t" --json
        add "$n.analyze-csv" analyze "$t" --csv "$sweep/out/$n.csv"
        add "$n.info" info "$t"
        add "$n.diff" diff "$t" "$t"
        add "$n.diff-json" diff "$t" "$t" --json
        add "$n.analyze-job" analyze-job "$t" -o "$sweep/out/$n.kjob"
    done < "$logs/sweep.traces"
    # Pairs of related runs, and the whole folder as one job.
    pair() { add "$1" diff "$traces/$2" "$traces/$3"; add "$1-job" analyze-job "$traces/$2" "$traces/$3"; }
    pair kineto-fix pytorch_kineto__docs__traces__before_fix_trace.json pytorch_kineto__docs__traces__after_fix_trace.json
    pair hta-ranks facebookresearch_HolisticTraceAnalysis__tests__data__trace_filter__sampled_rank-0.json.gz \
        facebookresearch_HolisticTraceAnalysis__tests__data__trace_filter__sampled_rank-1.json.gz
    pair resnet50 pytorch_kineto__tb_plugin__samples__resnet50_num_workers_0__worker0.pt.trace.json.gz \
        pytorch_kineto__tb_plugin__samples__resnet50_num_workers_0__worker0.1623143089861.pt.trace.json.gz
    add all-traces-job analyze-job "$traces"

    # run_one LABEL ARGS: runs one command (arguments are paths without spaces or tabs) and prints
    # "STATUS LABEL".
    cat > "$logs/sweep-one.sh" << 'SH'
label="$1"; shift
rc=0
# shellcheck disable=SC2086
"$KS_BIN" $* > /dev/null 2> "$SWEEP/$label.err" || rc=$?
# analyze-job reads back the .kjob it wrote.
case "$label" in *.analyze-job)
    [ "$rc" -ne 0 ] || "$KS_BIN" analyze-job "$SWEEP/out/${label%.analyze-job}.kjob" > /dev/null 2>> "$SWEEP/$label.err" || rc=$?
esac
echo "$rc $label"
SH
    export KS_BIN="$bin" SWEEP="$sweep"
    tr '\t' ' ' < "$list" | xargs -P "$jobs" -L 1 sh "$logs/sweep-one.sh" > "$logs/sweep.status"
    total=$(wc -l < "$logs/sweep.status")
    bad="$(grep -l "ERROR: AddressSanitizer\|ERROR: LeakSanitizer\|runtime error:\|SUMMARY: " "$sweep"/*.err || true)"
    # 0 is success, 1 and 2 a one-line error, 3 analyze-job's "some ranks failed"; anything else is a
    # crash, a signal or a sanitizer's exit status.
    crashed="$(awk '$1 > 3 { print }' "$logs/sweep.status")"
    awk '{ n[$1]++ } END { for (s in n) printf "sanitize: sweep exit status %s: %d commands\n", s, n[s] }' "$logs/sweep.status"
    awk '$1 != 0 && $1 <= 3' "$logs/sweep.status" | while read -r rc label; do
        echo "  exit $rc: $label: $(head -n 1 "$sweep/$label.err")"
    done
    if [ -n "$bad" ] || [ -n "$crashed" ]; then
        echo "sanitize: sweep FAILED:"
        for f in $bad; do echo "  sanitizer report: $f"; done
        [ -z "$crashed" ] || echo "$crashed" | sed 's/^/  exit status: /' | head -n 40
        status=1
    fi
    echo "sanitize: sweep of $total commands over $(wc -l < "$logs/sweep.traces") traces $(elapsed "$start")"
fi
exit $status
