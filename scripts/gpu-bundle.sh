#!/usr/bin/env bash
# gpu-bundle.sh DEST BINARY...: copies binaries and the shared libraries they load into DEST/bin and
# DEST/lib, so they start on a machine that has an NVIDIA driver but none of our Debian packages (the
# lent GPU machine of ../shared/GPU.md, which has no network to install them). It replaces the
# helper that lived in ../shared/tools/gpu-bundle, which neither CI nor the device machine can see.
#
# Left out, because the target machine brings its own and a copy from here would fight it:
#   - glibc (libc, libm, libdl, libpthread, librt, ld-linux ...): the device's glibc is newer, and
#     glibc's pieces must all come from one build;
#   - the driver's libraries (libcuda, libnvidia-*) and the vendor GL/EGL (libEGL_*, libGLX_*,
#     libGLdispatch): they must match the kernel module;
#   - glvnd's loaders (libEGL.so.1, libGL.so.1, libOpenGL.so.0, ...) and libvulkan: the `.gl`
#     packages unpacked at the start of the device call put them in place (device README);
#   - cuDNN and cuBLAS: several hundred MiB; the device has them as Python wheels, and gpulab loads
#     them at run time (GPULAB_CUDNN_DIR, GPULAB_CUBLAS_DIR).
# libstdc++ and libgcc_s go to DEST/lib/compat instead of DEST/lib: a newer system copy serves our
# binaries as well, and putting an older one on LD_LIBRARY_PATH would also hand it to every child
# (nvcc, g++, python3). DEST/lib/compat/NEEDS names the newest GLIBCXX version the binaries ask
# for, so scripts/gpu-record.sh adds lib/compat only where the system's libstdc++ lacks it.
#
# A library that ldd cannot find here is an error: the bundle would not start there either.
# Usage: scripts/gpu-bundle.sh DEST BINARY...
set -uo pipefail
case "${1:-}" in -h|--help) awk 'NR == 1 {next} /^#/ {sub(/^# ?/, ""); print; next} {exit}' "$0"; exit 0 ;; esac
[ $# -ge 2 ] || { echo "usage: scripts/gpu-bundle.sh DEST BINARY... (see --help)" >&2; exit 2; }
dest=$1; shift
mkdir -p "$dest/bin" "$dest/lib/compat" || exit 1

# Sonames the device provides (see above); matched against the name ldd prints.
provided='^(linux-vdso|ld-linux|libc\.so|libm\.so|libmvec\.so|libdl\.so|libpthread\.so|librt\.so|libresolv\.so|libutil\.so|libanl\.so|libnsl\.so|libcuda\.so|libnvidia|libcudnn|libcublas|libGLX|libEGL|libGLdispatch|libGL\.so|libOpenGL\.so|libGLESv[12]|libvulkan\.so)'
compat='^(libstdc\+\+\.so|libgcc_s\.so)'

failed=0
copied_libs=()
for b in "$@"; do
    if [ ! -f "$b" ]; then
        echo "gpu-bundle: no such binary: $b" >&2
        failed=1
        continue
    fi
    cp -L "$b" "$dest/bin/" || failed=1
    # "name => /path (addr)" for found libraries, "name => not found" for missing ones.
    while read -r name arrow path _; do
        [ "$arrow" = "=>" ] || continue
        [[ $name =~ $provided ]] && continue
        if [ "$path" = "not" ]; then
            echo "gpu-bundle: $(basename "$b") needs $name, which is not found on this machine" >&2
            failed=1
            continue
        fi
        if [[ $name =~ $compat ]]; then
            cp -Ln "$path" "$dest/lib/compat/$name" 2>/dev/null
        else
            [ -e "$dest/lib/$name" ] || copied_libs+=("$name")
            cp -Ln "$path" "$dest/lib/$name" 2>/dev/null
        fi
    done < <(ldd "$b" 2>&1)
done

# The newest GLIBCXX symbol version any bundled file asks for (binaries and libraries alike).
need=$(grep -aoh 'GLIBCXX_3\.4\.[0-9]*' "$dest"/bin/* "$dest"/lib/*.so* 2>/dev/null | sort -uV | tail -1)
echo "${need:-none}" > "$dest/lib/compat/NEEDS"

[ ${#copied_libs[@]} -gt 0 ] && echo "gpu-bundle: libraries copied: ${copied_libs[*]}"
du -sh "$dest" | awk '{print "gpu-bundle: " $1 " in " $2}'
exit "$failed"
