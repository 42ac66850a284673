#!/usr/bin/env bash
# Installs the Debian 12 (or Ubuntu) packages gpulab needs to build, run, test and package, and
# nothing else. Says what it installs; asks for sudo only when not root and only when something is
# missing. Installs with --no-install-recommends, so every package the build touches must be named
# here: a package that is only *recommended* by another (ocl-icd-opencl-dev by libdnnl-dev) is
# absent on a fresh machine. scripts/check-deps.sh proves the list against what a build used.
#
#   scripts/install-deps.sh          the build, run and test packages
#   scripts/install-deps.sh --ci     also the tools only CI runs (lintian for the .deb)
#   scripts/install-deps.sh --list   print the package names (one per line) and exit
#
# The CUDA Toolkit and cuDNN are optional and not installed here: without them gpulab builds
# CPU-only and says so (see README.md).
set -euo pipefail

packages=(
    # Build tools
    cmake ninja-build g++ pkg-config make
    python3-glad                # generates the GL 3.3 core + EGL loaders at build time (cmake/Glad.cmake)
    python3                     # CTest arch.include_order runs scripts/check-includes.py (standard library only)
    # Libraries the app and core compile and link against
    libglfw3-dev                # window and input
    libimgui-dev                # Dear ImGui 1.86 with its GLFW and OpenGL 3 backends
    libstb-dev                  # stb_image / stb_image_write: pictures in and PNG export out
    libtomlplusplus-dev         # lesson files
    libcli11-dev                # command line
    libcereal-dev               # measured results written to the cache folder and read back (issue 25)
    doctest-dev                 # the test framework (CMake config with doctest_discover_tests)
    libboost-context-dev        # fibers for the CUDA kernel simulator (cuda-sim)
    libseccomp-dev              # confines gpulab-kernel-runner, which runs a student's puzzle kernel
    binutils                    # addr2line: the source line of each defect in a student's kernel; nm: what it calls
    bubblewrap                  # bwrap: the namespaces a student's kernel and its compiler run in (core/puzzles/sandbox.h)
    zlib1g-dev                  # inflates the gzipped IDX files of the training lesson (core/train/idx.cpp)
    libegl-dev libgl-dev        # OpenGL and EGL headers (EGL: headless export)
    libopengl-dev               # libOpenGL.so: CMake's FindOpenGL needs it for the OpenGL component;
                                # libgl-dev does not depend on it (a fresh machine lacked it)
    libegl-mesa0 libgl1-mesa-dri  # Mesa's EGL/GL drivers, so headless export and the GUI test render
    libdnnl-dev                 # oneDNN: the CPU library peer (optional backend)
    ocl-icd-opencl-dev          # OpenCL headers + libOpenCL.so: oneDNN's CMake config (dnnl-config.cmake)
                                # calls find_package(OpenCL) and fails without them; libdnnl-dev only
                                # recommends this package
    fonts-dejavu-core           # the UI font (a copy also ships in assets/fonts)
    libopenmpi-dev              # MPI headers and libmpi: data-parallel training, `gpulab train --workers` (core/distributed)
    openmpi-bin                 # mpirun, which starts the workers (gpulab has no transport of its own)
    dataset-fashion-mnist       # the training lesson's images: 70,000 28x28 Fashion-MNIST pictures as
                                # gzipped IDX files in /usr/share/datasets/fashion-mnist (30 MB)
    # Tests and packaging
    xvfb xauth                  # the GUI smoke test runs under xvfb-run
    xserver-xorg-core xserver-xorg-video-dummy x11-xserver-utils
                                # the presenter view's two-monitor test: Xorg's dummy driver has RandR
                                # outputs xrandr can switch on (Xvfb's screens are one monitor to GLFW)
    help2man                    # the man page, generated from `gpulab --help` at build time
    dpkg-dev file               # `make package`: CPack's .deb computes its Depends with dpkg-shlibdeps,
                                # and CPack finds the binaries to scan with `file`
)
ci_packages=(
    lintian                     # checks the .deb that `make package` builds (scripts/check-package.sh)
    gdb                         # the soak prints a crashed app's backtrace from its core file
)

names() { local p; for p in "$@"; do [[ $p == \#* ]] || echo "$p"; done; }

case "${1:-}" in
    --list) names "${packages[@]}"; exit 0 ;;
    --list-ci) names "${ci_packages[@]}"; exit 0 ;;
    --ci) packages+=("${ci_packages[@]}") ;;
    "") ;;
    *) echo "install-deps: unknown option '$1' (use --ci or --list)" >&2; exit 2 ;;
esac

if ! command -v dpkg-query >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1; then
    echo "install-deps: this script expects Debian/Ubuntu (apt). Install the equivalents of: $(names "${packages[@]}" | tr '\n' ' ')" >&2
    exit 0
fi

missing=()
while read -r p; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$p")
    fi
done < <(names "${packages[@]}")

if [ ${#missing[@]} -eq 0 ]; then
    echo "install-deps: all $(names "${packages[@]}" | wc -l) Debian packages present"
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
