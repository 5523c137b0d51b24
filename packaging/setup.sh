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
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build "$build" -j "$jobs"

case "$mode" in
run)
    shift || true
    exec "$build/app/kinetoscope" "$@"
    ;;
test)
    cd "$build"
    exec ctest --output-on-failure -j "$jobs"
    ;;
*)
    echo "usage: $0 run|test" >&2
    exit 2
    ;;
esac
