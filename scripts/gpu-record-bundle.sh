#!/usr/bin/env bash
# make gpu-record-bundle: builds and packs, here, everything the recording call
# (scripts/gpu-record.sh) needs on the lent GPU machine, which has no network and none of our
# packages (../shared/GPU.md, the device README). Run it before a GPU session; the session then
# spends its minutes recording, not building.
#
#   1. checks out the commit (default HEAD) into build-gpu-record/src, a git worktree, so that the
#      bundle is exactly one commit (files being edited in this tree stay out) and the provenance can
#      name it: the device's copy of the tree has no .git;
#   2. builds it there, Release, for sm_90 machine code plus compute_90 PTX (GPULAB_CUDA_ARCHS=90:
#      the H200 and H100 run the machine code, a newer GPU compiles the PTX), in build-gpu-record/build;
#   3. stages build-gpu-record/stage: bin/ (gpulab, the kernel runner, both test binaries), lib/
#      (their libraries, scripts/gpu-bundle.sh), src/ (what the app and the tests read: lessons,
#      shaders, assets, puzzles, the puzzle runner's device headers, tests/data, the licence files),
#      buildtree/ (the tests' stand-in cuDNN libraries, where the test binary looks for them);
#   4. packs it into .gpu-bundle/ (ignored by git): bundle.tar.xz, MANIFEST (commit, build, the paths
#      the tests were built with) and Fashion-MNIST's four files as they are (already gzipped);
#   5. downloads glvnd's GL/EGL packages into .gl/ once (the device README's recipe);
#   6. measures what the device call carries, the tree's tracked and untracked files plus .gpu-bundle
#      and .gl, against the 64 MiB limit: it fails over BUNDLE_BUDGET_MIB (default 55, a margin),
#      and prints the device call to make.
# Nothing of it runs in `make test`; CI never builds it.
#
# Usage: scripts/gpu-record-bundle.sh [--commit REV] [--no-build] [--budget-mib N]
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
rev=HEAD no_build=0 budget_mib=${BUNDLE_BUDGET_MIB:-55}
while [ $# -gt 0 ]; do
    case "$1" in
        --commit) rev=${2:-}; shift 2 ;;
        --no-build) no_build=1; shift ;;
        --budget-mib) budget_mib=${2:-}; shift 2 ;;
        -h|--help) awk 'NR == 1 {next} /^#/ {sub(/^# ?/, ""); print; next} {exit}' "$0"; exit 0 ;;
        *) echo "gpu-record-bundle: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done
top=build-gpu-record
src=$top/src build=$top/build stage=$top/stage
packed=.gpu-bundle
archs=90
fashion=/usr/share/datasets/fashion-mnist
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}
say() { echo "gpu-record-bundle: $*"; }
die() { echo "gpu-record-bundle: FAILED: $*" >&2; exit 1; }

# [SECTION] 1. the commit, in its own worktree
commit=$(git rev-parse --verify "$rev^{commit}") || die "no commit '$rev'"
if [ ! -e "$src/.git" ]; then
    git worktree prune
    git worktree add --detach "$src" "$commit" > /dev/null || die "git worktree add $src"
else
    # checkout rewrites only the files that differ, so the build stays incremental.
    git -C "$src" checkout --quiet --detach --force "$commit" || die "checkout of $commit in $src"
fi
say "commit $(git log -1 --format='%h %s' "$commit" | cut -c1-100)"
[ -n "$(git status --porcelain --untracked-files=no)" ] &&
    say "note: this tree has uncommitted changes; the bundle holds $(git rev-parse --short "$commit") without them"

# [SECTION] 2. the build
if [ "$no_build" = 0 ]; then
    cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release "-DGPULAB_CUDA_ARCHS=$archs" > "$top/configure.log" 2>&1 ||
        die "configure (see $top/configure.log)"
    grep -q "CUDA backends ON" "$top/configure.log" || die "the configure did not find CUDA (see $top/configure.log)"
    say "building in $build ($jobs jobs; a first build takes a while)"
    cmake --build "$build" -j "$jobs" > "$top/build.log" 2>&1 || { tail -20 "$top/build.log" >&2; die "build (see $top/build.log)"; }
fi
bins=("$build/app/gpulab" "$build/app/gpulab-kernel-runner" "$build/tests/gpulab_tests")
[ -f "$build/tests/gpulab_gl_tests" ] && bins+=("$build/tests/gpulab_gl_tests")
for b in "${bins[@]}"; do [ -x "$b" ] || die "$b was not built"; done
# sm_90 machine code and compute_90 PTX, or the device would run something else than we think.
cuobjdump=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)
if [ -x "$cuobjdump" ]; then
    "$cuobjdump" --list-elf "$build/app/gpulab" 2>/dev/null | grep -q 'sm_90' || die "gpulab holds no sm_90 machine code"
    "$cuobjdump" --list-ptx "$build/app/gpulab" 2>/dev/null | grep -q 'sm_90' || die "gpulab holds no compute_90 PTX"
else
    # No cuobjdump (Debian's nvcc packages leave it out): every CUDA compile line asks for exactly these.
    gencode=$(grep -o -- '--generate-code=[^ ]*' "$build/build.ninja" | sort -u)
    [ "$gencode" = "--generate-code=arch=compute_${archs},code=[compute_${archs},sm_${archs}]" ] ||
        die "the CUDA compile lines ask for '$gencode', not sm_$archs + compute_$archs alone"
fi

# [SECTION] 3. the stage
rm -rf "$stage" && mkdir -p "$stage/src" "$stage/buildtree/tests" "$stage/buildtree/app" || die "cannot make $stage"
scripts/gpu-bundle.sh "$stage" "${bins[@]}" || die "scripts/gpu-bundle.sh"
# What the app finds through GPULAB_DATA_DIR and the tests through GPULAB_SOURCE_DIR, from the commit.
(cd "$src" && git ls-files -z -- lessons shaders assets puzzles kernels/puzzle_runner/device tests/data \
        LICENSE cmake/package/copyright | tar --null -T - -cf -) | tar -C "$stage/src" -xf - || die "copying the sources"
# The stand-in cuDNN libraries and the kernel runner, at their places under the build folder.
cp -a "$build"/tests/fake-cudnn* "$stage/buildtree/tests/" || die "the stand-in cuDNN libraries"
ln -s ../../bin/gpulab-kernel-runner "$stage/buildtree/app/gpulab-kernel-runner"
nvcc_version=$(/usr/local/cuda/bin/nvcc --version 2>/dev/null | sed -n 's/.*release \([0-9.]*\), V\([0-9.]*\).*/\2/p')
dirty=$(git -C "$src" status --porcelain --untracked-files=no | wc -l)
cat > "$stage/MANIFEST" <<EOF
# The bundle scripts/gpu-record.sh runs; written by scripts/gpu-record-bundle.sh.
commit=$commit
subject=$(git log -1 --format=%s "$commit" | tr -d '\n' | cut -c1-200)
tree=$([ "$dirty" = 0 ] && echo "commit $(git rev-parse --short "$commit"), unmodified" || echo "commit $(git rev-parse --short "$commit") with $dirty modified files")
built_utc=$(date -u +'%Y-%m-%d %H:%M:%S UTC')
built_on=$(. /etc/os-release 2>/dev/null && echo "$PRETTY_NAME"), $(uname -m)
cuda_archs=sm_$archs machine code + compute_$archs PTX
nvcc=$nvcc_version
source_dir=$root/$src
build_dir=$root/$build
EOF
[ -d "$fashion" ] || die "no Fashion-MNIST at $fashion (scripts/install-deps.sh installs dataset-fashion-mnist)"

# [SECTION] 4. the pack
rm -rf "$packed.tmp" && mkdir -p "$packed.tmp/fashion-mnist" || die "cannot make $packed.tmp"
cp "$stage/MANIFEST" "$packed.tmp/"
say "packing (xz, a minute)"
tar -C "$stage" -cf - . | xz -T"$jobs" -9 > "$packed.tmp/bundle.tar.xz" || die "xz"
cp "$fashion"/*-ubyte.gz "$packed.tmp/fashion-mnist/" || die "copying Fashion-MNIST"
rm -rf "$packed" && mv "$packed.tmp" "$packed"

# [SECTION] 5. the GL packages (device README), once
if ! ls .gl/*.deb > /dev/null 2>&1; then
    say "downloading glvnd's GL/EGL packages into .gl/ (device README)"
    mkdir -p .gl /tmp/amd64/partial
    o='-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64'
    apt-get $o update > /dev/null 2>&1
    (cd .gl && apt-get $o download libvulkan1 libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2) > /dev/null 2>&1 ||
        die "apt-get download of the .gl packages"
fi

# [SECTION] 6. what the call carries: the tree (tracked and untracked files git does not ignore)
# plus the carried folders; the device refuses more than 64 MiB.
tree_bytes=$(git ls-files -z --cached --others --exclude-standard | xargs -0 stat -c %s 2>/dev/null | awk '{s += $1} END {print s + 0}')
bundle_bytes=$(du -sb "$packed" | cut -f1)
gl_bytes=$(du -sb .gl | cut -f1)
total=$((tree_bytes + bundle_bytes + gl_bytes))
mib() { awk -v b="$1" 'BEGIN {printf "%.1f MiB", b / 1048576}'; }
say "stage $(du -sh "$stage" | cut -f1) unpacked; bundle.tar.xz $(mib "$(stat -c %s "$packed/bundle.tar.xz")"), Fashion-MNIST $(mib "$(du -sb "$packed/fashion-mnist" | cut -f1)")"
say "the call carries $(mib "$total"): tree $(mib "$tree_bytes"), .gpu-bundle $(mib "$bundle_bytes"), .gl $(mib "$gl_bytes") (limit 64 MiB, budget $budget_mib MiB)"
[ "$total" -le $((budget_mib * 1048576)) ] || die "over the $budget_mib MiB budget: the device call would be refused or too close to its 64 MiB"
cmd=$(scripts/gpu-record.sh --print-device-command)
[ "${#cmd}" -lt 2000 ] || die "the device command is ${#cmd} characters, over 2000"
say "ready. The device call (device tool, run): command: $cmd"
say "  carry: [\".gpu-bundle\", \".gl\"]   timeout_s: 540"
