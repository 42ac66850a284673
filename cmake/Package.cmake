# `make package` (cpack -G DEB): a .deb that `apt install ./gpulab_*.deb` turns into a working app on a
# fresh Debian 12 machine. Its Depends are computed from the binary by dpkg-shlibdeps (GLFW, toml++,
# stb, oneDNN, libstdc++, ...), plus what the binary opens with dlopen and shlibdeps cannot see: EGL
# for the headless export and Mesa's GL/EGL drivers so the window and export render without an NVIDIA
# driver. cuDNN and the NVIDIA driver are optional: the binary loads them when present and says why
# the GPU backends are unavailable when not. The CUDA runtime is linked statically.
# Checked by scripts/check-package.sh (lintian, then an install into a scratch root).
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME gpulab)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "gpulab developers <gpulab@users.noreply.github.com>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "lessons that show why deep learning runs on GPUs")
# The extended description only: CPack puts the summary above it and indents each line.
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
    "gpulab runs convolutions, activations, SIMD and MIMD code and size sweeps on
this computer's CPU (a plain loop, a threaded SIMD version and oneDNN) and,
where there is one, on an NVIDIA GPU (hand-written CUDA kernels and cuDNN),
checks that the results agree and plots the timings live. It has a presenter
mode for teaching and exports its plots as PNG and CSV.")
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "https://github.com/gpulab/gpulab")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)   # gpulab_0.1.0_amd64.deb
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libegl1, libegl-mesa0, libgl1-mesa-dri, fonts-dejavu-core")
# The training lesson's images: Debian packages Fashion-MNIST; without it the lesson says how to get it.
# The kernel puzzles compile a student's kernel with g++ (binutils' addr2line gives its lines);
# without them the puzzles say what to install and still show statements and references.
# `gpulab train --workers` starts its workers with mpirun (libmpi itself is a Depends through
# dpkg-shlibdeps); without it that one option says to install openmpi-bin.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "dataset-fashion-mnist, g++, binutils, bubblewrap, openmpi-bin")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "xvfb")
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
# Directories the package shares with the system must keep the system's permissions (0755).
set(CPACK_INSTALL_DEFAULT_DIRECTORY_PERMISSIONS
    OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
include(CPack)
