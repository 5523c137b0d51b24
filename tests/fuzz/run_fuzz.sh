#!/bin/sh
# Builds the libFuzzer targets with clang in a separate build directory and runs each one for a
# fixed number of inputs, starting from its seed corpus (tests/fuzz/corpus/<name without fuzz_>/).
# Exits non-zero when a target finds a crash; the reproducer is left in the work directory.
#
#   tests/fuzz/run_fuzz.sh [RUNS] [TARGET...]
#
# RUNS defaults to 20000 inputs per target (0: only build); TARGET defaults to every
# tests/fuzz/fuzz_*.cpp.
# Environment: KS_FUZZ_BUILD_DIR (default build-fuzz in the source tree), KS_FUZZ_JOBS (build jobs,
# default 2), KS_FUZZ_WORK (where new corpus entries and crash files go; default a temporary
# directory, removed when nothing was found). See docs/fuzzing.md for longer runs.
set -eu
src="$(cd "$(dirname "$0")/../.." && pwd)"
runs="${1:-20000}"
[ $# -gt 0 ] && shift
build="${KS_FUZZ_BUILD_DIR:-$src/build-fuzz}"
jobs="${KS_FUZZ_JOBS:-2}"

targets="$*"
if [ -z "$targets" ]; then
    for f in "$src"/tests/fuzz/fuzz_*.cpp; do
        targets="$targets $(basename "$f" .cpp)"
    done
fi

launcher=""
command -v ccache > /dev/null 2>&1 && launcher="-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache"
# shellcheck disable=SC2086
cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ $launcher \
    -DKINETOSCOPE_GUI=OFF -DKINETOSCOPE_TESTS=OFF -DKINETOSCOPE_BENCH=OFF -DKINETOSCOPE_FUZZ=ON > /dev/null
# shellcheck disable=SC2086
cmake --build "$build" -j "$jobs" --target $targets
[ "$runs" = 0 ] && exit 0

work="${KS_FUZZ_WORK:-$(mktemp -d)}"
failed=0
for t in $targets; do
    corpus="$src/tests/fuzz/corpus/${t#fuzz_}"
    mkdir -p "$work/$t/corpus" "$work/$t/artifacts"
    # New inputs go to the work copy: the committed seed corpus only changes by hand.
    [ -d "$corpus" ] && cp "$corpus"/* "$work/$t/corpus/" 2> /dev/null || true
    echo "== $t: $runs runs"
    if ! "$build/tests/fuzz/$t" -runs="$runs" -max_len=65536 -timeout=30 -rss_limit_mb=4096 \
        -artifact_prefix="$work/$t/artifacts/" "$work/$t/corpus" 2> "$work/$t/log"; then
        tail -40 "$work/$t/log"
        echo "FAIL: $t found a problem; reproducer(s) in $work/$t/artifacts/"
        failed=1
    else
        tail -1 "$work/$t/log"
    fi
done
[ $failed -eq 0 ] && [ -z "${KS_FUZZ_WORK:-}" ] && rm -rf "$work"
exit $failed
