#!/bin/sh
# Prepares the one-call GPU check (tests/gpu/check.sh) on the CPU machine: a build without the GUI
# and with the CUPTI collector, installed stripped into .gpu/prefix, plus the shared libraries it
# needs that a GPU machine of another distribution may lack (.gpu/deps). .gpu is ignored by git
# (.git/info/exclude) and travels as the device tool's `carry`. Usage: tests/gpu/prepare.sh
set -eu
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
grep -qx '/.gpu/' .git/info/exclude 2>/dev/null || echo '/.gpu/' >>.git/info/exclude
# KS_GPU_BUILD: another build folder (named "build" in a clone, ccache hits the usual build's objects).
build="${KS_GPU_BUILD:-$root/build-gpu}"
launcher=""
if command -v ccache >/dev/null; then
    launcher="-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache"
    export CCACHE_BASEDIR="$root"
fi
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKINETOSCOPE_GUI=OFF \
    -DCMAKE_INSTALL_PREFIX=/usr $launcher >"$build.configure.log" 2>&1 || { cat "$build.configure.log"; exit 1; }
grep -q "CUPTI yes" "$build.configure.log" || { grep "collectors" "$build.configure.log"; echo "prepare: no CUPTI collector in this build" >&2; exit 1; }
# What is installed, without the tests.
targets="kinetoscope kinetoscope_shared kinetoscope_inject kinetoscope_torch ks_manpage"
cmake --build "$build" --target help | grep -q "ks_icons" && targets="$targets ks_icons"
# shellcheck disable=SC2086
cmake --build "$build" -j "${JOBS:-2}" --target $targets
rm -rf .gpu/prefix .gpu/deps
DESTDIR="$root/.gpu/stage" cmake --install "$build" --strip >/dev/null
mv .gpu/stage/usr .gpu/prefix && rm -rf .gpu/stage
# Only what the programs need at run time, not the GUI's data.
rm -rf .gpu/prefix/share/icons .gpu/prefix/share/applications .gpu/prefix/share/metainfo .gpu/prefix/share/mime \
    .gpu/prefix/share/man .gpu/prefix/share/doc
# Debian 12's libraries that an Ubuntu 24.04 image with pip torch does not have; the C and C++
# runtimes are newer there and are not carried.
mkdir -p .gpu/deps
for lib in $(ldd .gpu/prefix/bin/kinetoscope $(find .gpu/prefix -name 'libkinetoscope*.so*' ! -name 'libkinetoscope_torch*' -type f) |
    awk '/=> \// {print $3}' | sort -u); do
    case "$(basename "$lib")" in
    libc.so* | libm.so* | libstdc++* | libgcc_s* | libdl.so* | libpthread* | librt.so* | ld-linux*) ;;
    libz.so* | libsqlite3* | libsimdjson*) cp -L "$lib" .gpu/deps/ ;;
    *) echo "prepare: not carried: $lib" ;;
    esac
done
du -sh .gpu
