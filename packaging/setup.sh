#!/bin/sh
# One-step set-up on a fresh Debian 12 machine.
#   packaging/setup.sh run    install dependencies, build, open the GUI on the bundled sample trace
#   packaging/setup.sh test   install dependencies, build, run every test
# Environment: BUILD_DIR (default: build), JOBS (default: number of CPUs), SKIP_DEPS=1 to skip apt.
set -eu
mode="${1:-run}"
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${BUILD_DIR:-$root/build}"
jobs="${JOBS:-$(nproc)}"

if [ "${SKIP_DEPS:-0}" != "1" ]; then
    "$root/packaging/install-deps.sh"
fi
# ccache (install-deps.sh) makes a second checkout's or CI run's build on the same machine cheap.
launcher=""
if command -v ccache > /dev/null 2>&1; then
    launcher="-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache"
    export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$root}"
fi
# shellcheck disable=SC2086
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo $launcher
cmake --build "$build" -j "$jobs"

case "$mode" in
run)
    shift || true
    exec "$build/app/kinetoscope" "$@"
    ;;
test)
    # The torch 2.x environment the torch tests run in a second time (packaging/torch-env.sh), made
    # here once per machine rather than inside the first test that needs it; where it cannot be
    # made, those tests say "Skipped" with the reason.
    "$root/packaging/torch-env.sh" ensure || echo "setup: no torch 2.x environment; the *_torch2 tests will be skipped"
    cd "$build"
    exec ctest --output-on-failure -j "$jobs"
    ;;
*)
    echo "usage: $0 run|test" >&2
    exit 2
    ;;
esac
