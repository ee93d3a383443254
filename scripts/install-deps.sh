#!/usr/bin/env bash
# Installs the Debian packages Tuneframe builds and runs with, only those missing.
# Idempotent; works as root or through sudo. Usage: scripts/install-deps.sh [--gui]
set -euo pipefail

packages=(
    cmake ninja-build ccache g++ pkg-config
    libtorch-dev libopenblas0-pthread libgloo-dev
    libavcodec-dev libavformat-dev libavutil-dev libswscale-dev
    libsqlite3-dev nlohmann-json3-dev libsentencepiece-dev libuchardet-dev libicu-dev libssl-dev
    libgtest-dev libgmock-dev
    clang lld libclang-rt-14-dev
    libprotobuf-dev protobuf-compiler libpng-dev python3-protobuf
    qt6-base-dev qt6-base-dev-tools qt6-tools-dev qt6-tools-dev-tools qt6-l10n-tools
    libqt6sql6-sqlite libqt6svg6 qt6-qpa-plugins libgl-dev fonts-dejavu-core fonts-wqy-microhei
    libqcustomplot-dev libqcustomplot2.1-qt6
    dpkg-dev file
)
if [[ "${1:-}" == "--gui" ]]; then
    packages+=(xvfb xauth)
fi

missing=()
for p in "${packages[@]}"; do
    status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
    [[ "$status" == "install ok installed" ]] || missing+=("$p")
done

if ((${#missing[@]} == 0)); then
    exit 0
fi

echo "Installing missing packages: ${missing[*]}" >&2
sudo=()
if [[ $(id -u) -ne 0 ]]; then
    if ! command -v sudo >/dev/null; then
        echo "error: need root or sudo to install: ${missing[*]}" >&2
        exit 1
    fi
    sudo=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -q
"${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
