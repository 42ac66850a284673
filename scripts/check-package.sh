#!/usr/bin/env bash
# Builds the .deb of a build folder (make package) and checks it as Debian would: lintian with no
# errors and no warnings, the files a desktop app needs, and Depends computed from the binary.
#   scripts/check-package.sh [BUILD_DIR]      (default: build; lintian comes from install-deps.sh --ci)
set -euo pipefail
build=${1:-build}
cd "$(dirname "$0")/.."
command -v lintian >/dev/null || { echo "check-package: lintian is missing: run scripts/install-deps.sh --ci" >&2; exit 1; }

rm -f "$build"/gpulab_*.deb
(cd "$build" && cpack -G DEB >/dev/null 2>&1) || { echo "check-package: cpack failed; run: cd $build && cpack" >&2; exit 1; }
deb=$(ls "$build"/gpulab_*.deb)
echo "check-package: built $deb ($(du -h "$deb" | cut -f1))"

contents=$(dpkg-deb -c "$deb")
for f in ./usr/bin/gpulab ./usr/share/applications/gpulab.desktop ./usr/share/icons/hicolor/scalable/apps/gpulab.svg \
         ./usr/share/man/man1/gpulab.1.gz ./usr/share/gpulab/lessons/conv-sliding-window.toml \
         ./usr/share/gpulab/shaders/colormap.frag ./usr/share/doc/gpulab/copyright; do
    grep -q " $f" <<<"$contents" || { echo "check-package: $deb lacks $f" >&2; exit 1; }
done
depends=$(dpkg-deb -f "$deb" Depends)
for lib in libglfw3 libstdc++6 libegl1; do
    grep -q "$lib" <<<"$depends" || { echo "check-package: Depends lacks $lib: $depends" >&2; exit 1; }
done
# cuDNN and the CUDA runtime must not be needed to install: cuDNN is loaded when first used, the
# runtime is linked statically.
if grep -q -i -E "cudnn|cudart" <<<"$depends"; then echo "check-package: Depends names CUDA: $depends" >&2; exit 1; fi
echo "check-package: Depends: $depends"
recommends=$(dpkg-deb -f "$deb" Recommends)
grep -q "dataset-fashion-mnist" <<<"$recommends" || { echo "check-package: Recommends lacks dataset-fashion-mnist (the training lesson's images): $recommends" >&2; exit 1; }

# lintian as root warns that it should not run as root; that line is not about the package.
rc=0
report=$(lintian --fail-on error,warning "$deb" 2>&1) || rc=$?
grep -v "running with root privileges" <<<"$report" || true
[ "$rc" -eq 0 ] || { echo "check-package: lintian found errors or warnings (exit $rc)" >&2; exit 1; }
echo "check-package: ok: lintian reports no errors or warnings"
