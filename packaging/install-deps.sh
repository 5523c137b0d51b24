#!/bin/sh
# Installs every Debian 12 package Kinetoscope needs to build, test and package.
# Safe to re-run; uses sudo when not root.
set -eu
SUDO=""
if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update
$SUDO apt-get install -y --no-install-recommends \
    build-essential cmake ninja-build pkg-config git ca-certificates file \
    qt6-base-dev qt6-base-dev-tools qt6-charts-dev qt6-svg-dev libqt6svg6 libqt6opengl6-dev qt6-qpa-plugins \
    libgl-dev libxkbcommon-dev \
    nlohmann-json3-dev zlib1g-dev libsimdjson-dev libsqlite3-dev libiberty-dev \
    libze-dev libze1 \
    xvfb xauth \
    python3 python3-dev python3-torch libtorch-dev python3-distributed \
    appstream desktop-file-utils shared-mime-info dpkg-dev fakeroot file \
    clang libclang-rt-14-dev clang-format \
    mmdebstrap ccache
