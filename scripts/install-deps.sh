#!/usr/bin/env bash
# Installs the Debian 12 packages gpulab needs to build, run and test, and nothing else.
# Says what it installs; asks for sudo only when not root and only when something is missing.
# The CUDA Toolkit and cuDNN are optional and not installed here: without them gpulab builds
# CPU-only and says so (see README.md).
set -euo pipefail

packages=(
    cmake ninja-build g++ pkg-config make
    python3-glad                      # generates the GL 3.3 core + EGL loaders at build time
    libglfw3-dev libimgui-dev libstb-dev libtomlplusplus-dev libcli11-dev doctest-dev
    libegl-dev libgl-dev libegl-mesa0 libgl1-mesa-dri   # OpenGL and EGL (headless export on Mesa)
    libdnnl-dev                       # oneDNN: the CPU library peer (optional backend)
    libboost-context-dev              # fibers for the SIMT simulator (cuda-sim): one per CUDA thread
    fonts-dejavu-core                 # the UI font (a copy also ships in assets/fonts)
    xvfb xauth                        # the GUI smoke test runs under xvfb-run
)

if ! command -v dpkg-query >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1; then
    echo "install-deps: this script expects Debian/Ubuntu (apt). Install the equivalents of: ${packages[*]}" >&2
    exit 0
fi

missing=()
for p in "${packages[@]}"; do
    [[ $p == \#* ]] && continue
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$p")
    fi
done

if [ ${#missing[@]} -eq 0 ]; then
    echo "install-deps: all ${#packages[@]} Debian packages present"
    exit 0
fi

echo "install-deps: installing ${#missing[@]} missing Debian packages: ${missing[*]}"
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
    if ! command -v sudo >/dev/null 2>&1; then
        echo "install-deps: not root and no sudo; as root run: apt-get install ${missing[*]}" >&2
        exit 1
    fi
    echo "install-deps: not root, so asking sudo for apt-get"
    sudo_cmd=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
echo "install-deps: done"
