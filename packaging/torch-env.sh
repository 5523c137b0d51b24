#!/bin/sh
# A current-torch environment for the tests: a Debian directory tree holding the python3-torch of a
# newer Debian suite (sid: torch 2.14 with Kineto; trixie: 2.6), made once per machine with
# mmdebstrap and entered with chroot. Everything in it comes from Debian's archive.
#
#   packaging/torch-env.sh path          prints the environment's directory (made or not)
#   packaging/torch-env.sh ensure        makes it when missing (idempotent; concurrent callers wait)
#   packaging/torch-env.sh check         exit 0 when it exists and imports torch; else one line, exit 1
#   packaging/torch-env.sh run [--bind DIR]... [--] CMD [ARG]...
#                                        runs CMD inside it, in this directory, with the environment
#                                        kept, and these host directories seen at their own paths:
#                                        /tmp, this checkout's parent (so ../shared), the current
#                                        directory, KS_BINARY_DIR, KS_SHARED_TRACES,
#                                        XDG_RUNTIME_DIR, TMPDIR, each --bind DIR (no spaces in them)
#   packaging/torch-env.sh version       prints the environment's torch version
#
# Environment: KS_TORCH_SUITE (default sid), KS_TORCH_ENV_DIR (default
# /var/cache/kinetoscope/torch-env-SUITE, outside the clone so that every checkout and CI run on
# the machine share one), KS_TORCH_MIRROR (default http://deb.debian.org/debian).
#
# Needs root (mmdebstrap's root mode and chroot), or password-less sudo. Exit status 77 from
# ensure/run/check means "cannot be had here" with the reason on one line, so that tests can skip.
set -eu

suite="${KS_TORCH_SUITE:-sid}"
envdir="${KS_TORCH_ENV_DIR:-/var/cache/kinetoscope/torch-env-$suite}"
mirror="${KS_TORCH_MIRROR:-http://deb.debian.org/debian}"
here="$(cd "$(dirname "$0")/.." && pwd)"
# What the environment holds: torch, and what a user's machine has for torch.utils.cpp_extension
# (a compiler, torch's and Python's headers), deliberately none of Kinetoscope's build
# dependencies, so the observer's first-use build is tried as on a user's machine. The shared
# libraries libkinetoscope.so.1 needs at run time (the .deb's Depends) are added by name.
packages="python3-torch python3-numpy g++ libtorch-dev python3-dev zlib1g libsqlite3-0"
# Runtime libraries of libkinetoscope.so.1 (built on Debian 12) whose soname the newer suite does not
# ship: taken from Debian 12 itself (apt-get download on this machine) and installed with dpkg, as a
# user's Debian 12 machine has them through the .deb's Depends.
bookworm_packages="libsimdjson14"

unavailable() {
    echo "torch-env: $*" >&2
    exit 77
}

# as_root [exec] CMD...: CMD as root; with exec, in place of this shell, so that signals sent to
# this process (a recorder stopping its target) reach CMD.
as_root() {
    ex=""
    [ "$1" = exec ] && { ex=exec; shift; }
    if [ "$(id -u)" = 0 ]; then
        $ex "$@"
    elif command -v sudo > /dev/null 2>&1 && sudo -n true 2> /dev/null; then
        $ex sudo -n "$@"
    else
        unavailable "needs root (chroot) or password-less sudo; torch 2.x tests not run"
    fi
}

ready() {
    [ -f "$envdir/.kinetoscope-ready" ]
}

ensure() {
    ready && return 0
    command -v mmdebstrap > /dev/null 2>&1 ||
        unavailable "mmdebstrap is not installed (packaging/install-deps.sh installs it)"
    as_root mkdir -p "$(dirname "$envdir")"
    # One maker at a time; the others wait for it and then find the environment ready.
    as_root sh -c '
        set -eu
        envdir="$1"; suite="$2"; mirror="$3"; packages="$4"; bookworm_packages="$5"
        exec 9> "$envdir.lock"
        flock 9
        [ -f "$envdir/.kinetoscope-ready" ] && exit 0
        tmp="$envdir.new.$$"
        rm -rf "$envdir" "$envdir".new.*
        echo "torch-env: making the $suite environment in $envdir (once per machine, about 2 minutes)..." >&2
        list="$(echo "$packages" | tr " " ",")"
        # Check-Valid-Until is off because a mirror that serves a frozen snapshot of the archive
        # keeps serving Release files past their expiry; the signatures are still checked.
        if ! mmdebstrap --variant=apt --quiet \
                --aptopt="Acquire::Check-Valid-Until \"false\"" \
                --include="$list" "$suite" "$tmp" "$mirror" > "$envdir.log" 2>&1; then
            rm -rf "$tmp"
            echo "torch-env: mmdebstrap $suite failed: $(grep -m1 "^E:" "$envdir.log" || tail -n1 "$envdir.log") (log: $envdir.log)" >&2
            exit 77
        fi
        mkdir -p "$tmp/var/cache/kinetoscope-debs"
        # shellcheck disable=SC2086
        if ! (cd "$tmp/var/cache/kinetoscope-debs" && apt-get download $bookworm_packages) >> "$envdir.log" 2>&1 ||
            ! chroot "$tmp" sh -c "dpkg -i /var/cache/kinetoscope-debs/*.deb" >> "$envdir.log" 2>&1; then
            rm -rf "$tmp"
            echo "torch-env: cannot install $bookworm_packages from Debian 12 into the environment (log: $envdir.log)" >&2
            exit 77
        fi
        touch "$tmp/.kinetoscope-ready"
        mv "$tmp" "$envdir"
    ' sh "$envdir" "$suite" "$mirror" "$packages" "$bookworm_packages"
}

run() {
    binds="/tmp $(dirname "$here") $here $(pwd)"
    [ "$(dirname "$here")" = / ] && binds="/tmp $here $here/../shared $(pwd)"
    # XDG_RUNTIME_DIR and TMPDIR: where a live session's socket is (core/live/endpoint.cpp).
    for v in "${KS_BINARY_DIR:-}" "${KS_SHARED_TRACES:-}" "${XDG_RUNTIME_DIR:-}" "${TMPDIR:-}"; do
        [ -n "$v" ] && binds="$binds $v"
    done
    while [ $# -gt 0 ]; do
        case "$1" in
        --bind) binds="$binds $2"; shift 2 ;;
        --) shift; break ;;
        *) break ;;
        esac
    done
    [ $# -gt 0 ] || { echo "usage: $0 run [--bind DIR]... [--] CMD [ARG]..." >&2; exit 2; }
    ensure
    # A private mount namespace: the binds vanish with the command, whatever way it ends.
    as_root exec unshare --mount --propagation private sh -c '
        set -eu
        envdir="$1"; binds="$2"; cwd="$3"; shift 3
        mount -t proc proc "$envdir/proc"
        mount --rbind /sys "$envdir/sys"
        mount --rbind /dev "$envdir/dev"
        for d in $binds; do
            [ -d "$d" ] || continue
            d="$(cd "$d" && pwd -P)"
            mkdir -p "$envdir$d"
            mount --rbind "$d" "$envdir$d"
        done
        cp /etc/resolv.conf "$envdir/etc/resolv.conf" 2> /dev/null || true
        cd_to="$(cd "$cwd" && pwd -P)"
        exec chroot "$envdir" /bin/sh -c "cd \"\$0\" && exec \"\$@\"" "$cd_to" "$@"
    ' sh "$envdir" "$binds" "$(pwd)" "$@"
}

case "${1:-}" in
path) echo "$envdir" ;;
ensure) ensure ;;
check)
    ready || { echo "torch-env: no environment in $envdir (packaging/torch-env.sh ensure)" >&2; exit 1; }
    run python3 -c "import torch" ;;
version) run python3 -c "import torch; print(torch.__version__)" ;;
run) shift; run "$@" ;;
*)
    sed -n '2,20p' "$0" >&2
    exit 2
    ;;
esac
