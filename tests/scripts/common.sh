# Sourced by the script tests (after `set -eu` and the check of their variables): a work directory
# removed on exit, and fail MESSAGE, which ends the test with the message on stderr.
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# check_trace FILE ASSERTIONS: runs the Python ASSERTIONS on the Kineto trace FILE, with doc (the
# JSON), ev (its events), x (the "X" events), names (their names) and marks (the names of the "i"
# events) defined.
check_trace() {
    /usr/bin/python3 - "$1" "$2" <<'PY' || fail "trace check: $2"
import json, sys
doc = json.load(open(sys.argv[1]))
ev = doc["traceEvents"]
x = [e for e in ev if e.get("ph") == "X"]
names = [e["name"] for e in x]
marks = [e["name"] for e in ev if e.get("ph") == "i"]
exec(sys.argv[2])
PY
}

# need_torch_observer: the torch tests' start. Each of them is registered twice (tests/CMakeLists.txt):
# once for Debian 12's torch 1.13 and once, as NAME_torch2 with KS_TORCH=2, for the current torch of
# packaging/torch-env.sh (torch 2.14 from Debian sid, entered with chroot). PY runs that torch's
# python3; TORCH_VERSION is its version, TORCH_MAJOR the major one. Under 1.13 the test is skipped (exit 0) when Debian's
# python3 cannot import torch; under 2.x it is skipped (exit 77, ctest's "Skipped") with the reason
# on one line when the environment cannot be made here (no root, no archive). Both fail when
# libkinetoscope_torch.so was not built.
need_torch_observer() {
    if [ "${KS_TORCH:-1}" = 2 ]; then
        env_sh="$KS_SOURCE_DIR/packaging/torch-env.sh"
        status=0
        "$env_sh" ensure || status=$?
        [ "$status" = 0 ] || { echo "SKIP: the torch 2.x environment cannot be made here (above)"; exit 77; }
        mkdir -p "$work/torch2"
        PY="$work/torch2/python3"
        # The first-use observer builds go to the build tree, so that a changed source is rebuilt
        # there and never found stale in a cache another checkout filled.
        : "${KINETOSCOPE_CACHE_DIR:=$KS_BINARY_DIR/torch2-cache}"
        export KINETOSCOPE_CACHE_DIR
        printf '#!/bin/sh\nexec "%s" run --bind "%s" -- python3 "$@"\n' "$env_sh" "$work" >"$PY"
        chmod +x "$PY"
    else
        PY=/usr/bin/python3
        if ! "$PY" -c "import torch" >/dev/null 2>&1; then
            echo "SKIP: $PY cannot import torch (Debian's python3-torch is needed)"
            exit 0
        fi
    fi
    [ -f "$KS_BINARY_DIR/core/torch/libkinetoscope_torch.so" ] ||
        fail "libkinetoscope_torch.so not built (libtorch-dev missing?)"
    status=0
    TORCH_VERSION="$("$PY" -c "import torch; print(torch.__version__)" 2>"$work/torch-version.err")" || status=$?
    if [ "$status" = 77 ]; then
        # The environment exists but cannot be entered here (not root): said on one line.
        echo "SKIP: $(cat "$work/torch-version.err")"
        exit 77
    fi
    [ "$status" = 0 ] || fail "$PY cannot import torch: $(tail -n 3 "$work/torch-version.err")"
    TORCH_MAJOR="${TORCH_VERSION%%.*}"
    export TORCH_VERSION TORCH_MAJOR
    echo "torch: $TORCH_VERSION ($PY)"
}

# sanitizer_memory_limits: for the tests that bound a target's RSS. Under ASan (KS_SANITIZE=1, a
# sanitizer build's ctest) freed memory waits in ASan's quarantine (256 MB by default) and counts as
# resident, so the quarantine is turned off for them; and `ulimit -v` cannot be their safety net
# (ASan reserves terabytes of address space for its shadow): ULIMIT_V is a prefix for `sh -c` that
# sets it outside sanitizer builds, and ASan's own RSS limit takes its place inside them.
ULIMIT_V="ulimit -v 3000000;"
sanitizer_memory_limits() {
    [ "${KS_SANITIZE:-0}" = 1 ] || return 0
    ASAN_OPTIONS="${ASAN_OPTIONS:-}:quarantine_size_mb=0:thread_local_quarantine_size_kb=0:hard_rss_limit_mb=3000"
    export ASAN_OPTIONS
    ULIMIT_V=""
}
