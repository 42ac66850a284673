#!/usr/bin/env bash
# make gpu-check: everything that needs an NVIDIA GPU, in one command, into one folder (issue 30).
#
# On a computer with an NVIDIA GPU and this project's build tools (scripts/install-deps.sh):
#   1. builds for that GPU only (its compute capability from nvidia-smi), Release, every core;
#   2. runs the whole doctest suite with GPULAB_REQUIRE_GPU=1, so a GPU test that cannot use the
#      GPU fails instead of printing SKIPPED, and the GL tests (CUDA-GL interop among them);
#   3. runs every bench suite (`gpulab bench --json`, sim included), `gpulab info`, and every kernel
#      puzzle's reference on the GPU (`gpulab puzzle check ID solution.cu --gpu`);
#   4. exports every lesson headless, every step (`gpulab export --all-steps --quick`, to stay
#      within about 8 minutes on one GPU with 16 cores);
# and writes the logs, the JSON and the pictures into one folder (default gpu-check/<UTC time>),
# with summary.txt saying what passed. Exit 1 when any step failed: loudly, never skipped.
#
# Without a GPU it says so in one line and exits 0 (GPU_CHECK_STRICT=1: exit 1), after checking
# what can be checked here: the build for the architecture given by --arch (e.g. --arch 90, an
# H100), so the command is exercised up to the point where a GPU is needed.
#
# --bundle DIR: the lent GPU machine, which has a driver but none of our packages: no build; the
#   binaries come from DIR/bin (gpulab, gpulab_tests, gpulab_gl_tests) with DIR/lib on
#   LD_LIBRARY_PATH, as scripts/gpu-bundle.sh bundles them, and cuDNN from LD_LIBRARY_PATH. The
#   recording call (scripts/gpu-record.sh, make gpu-record-bundle) is the fuller form of this.
#
# Usage: scripts/gpu-check.sh [--out DIR] [--arch SM] [--bundle DIR]
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
out="" arch="" bundle=""
while [ $# -gt 0 ]; do
    case "$1" in
        --out) out=$2; shift 2 ;;
        --arch) arch=$2; shift 2 ;;
        --bundle) bundle=$(cd "$2" && pwd); shift 2 ;;
        -h|--help) sed -n '2,24p' "$0"; exit 0 ;;
        *) echo "gpu-check: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done
[ -n "$out" ] || out="gpu-check/$(date -u +%Y%m%d-%H%M%S)"
mkdir -p "$out" || { echo "gpu-check: cannot create $out" >&2; exit 2; }
out=$(cd "$out" && pwd)
summary="$out/summary.txt"
: > "$summary"
start=$(date +%s)
failed=0
say() { echo "gpu-check [$(( $(date +%s) - start )) s]: $*" | tee -a "$summary"; }
# step NAME LOG COMMAND...: runs it, its output into LOG, one line in the summary.
step() {
    local name=$1 log=$2; shift 2
    local t0=$(date +%s)
    if "$@" > "$out/$log" 2>&1; then
        say "ok      $name ($(( $(date +%s) - t0 )) s, $log)"
    else
        say "FAILED  $name ($(( $(date +%s) - t0 )) s, exit $?, see $log)"
        failed=1
    fi
}

# [SECTION] is there a GPU?
gpu_line=""
if command -v nvidia-smi >/dev/null 2>&1; then
    gpu_line=$(nvidia-smi --query-gpu=name,compute_cap,driver_version --format=csv,noheader 2>/dev/null | head -1)
fi
if [ -n "$gpu_line" ]; then
    nvidia-smi > "$out/nvidia-smi.txt" 2>&1
    say "GPU: $gpu_line"
    [ -n "$arch" ] || arch=$(echo "$gpu_line" | awk -F', ' '{gsub(/\./, "", $2); print $2}')
fi

# [SECTION] the binaries: built here for one architecture, or carried in a bundle
if [ -n "$bundle" ]; then
    bin="$bundle/bin"
    export LD_LIBRARY_PATH="$bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    # The recording bundle keeps the data folders under src/ (scripts/gpu-record-bundle.sh).
    if [ -d "$bundle/src/lessons" ]; then export GPULAB_DATA_DIR="$bundle/src"; else export GPULAB_DATA_DIR="$bundle"; fi
    say "binaries from the bundle $bundle"
else
    if [ -z "$arch" ]; then
        say "no NVIDIA GPU on this computer (nvidia-smi finds none) and no --arch: nothing to build or run"
        [ "${GPU_CHECK_STRICT:-0}" = 1 ] && exit 1
        exit 0
    fi
    build="build-gpu-check"
    step "configure for sm_$arch" configure.log \
        cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release "-DGPULAB_CUDA_ARCHS=$arch-real"
    step "build" build.log cmake --build "$build" -j "$(nproc 2>/dev/null || echo 2)"
    grep -q "CUDA backends ON" "$out/configure.log" ||
        { say "FAILED  the configure did not find CUDA (see configure.log): the GPU code was not built"; failed=1; }
    bin="$root/$build/bin-links"
    mkdir -p "$bin"
    ln -sf "$root/$build/app/gpulab" "$bin/gpulab"
    ln -sf "$root/$build/tests/gpulab_tests" "$bin/gpulab_tests"
    ln -sf "$root/$build/tests/gpulab_gl_tests" "$bin/gpulab_gl_tests"
    export GPULAB_DATA_DIR="$root"
fi
if [ -z "$gpu_line" ]; then
    say "no NVIDIA GPU on this computer (nvidia-smi finds none): $([ -n "$bundle" ] && echo "nothing run" || echo "gpulab is built for sm_$arch; nothing run")"
    [ "$failed" = 0 ] || exit 1
    [ "${GPU_CHECK_STRICT:-0}" = 1 ] && exit 1
    exit 0
fi

# [SECTION] everything that needs the GPU
export GPULAB_REQUIRE_GPU=1  # tests/gpu_test_support.h: a GPU test that cannot run fails
step "gpulab info" info.txt "$bin/gpulab" info
step "doctest suite (GPU tests required)" tests.log "$bin/gpulab_tests"
if [ -x "$bin/gpulab_gl_tests" ] || [ -L "$bin/gpulab_gl_tests" ]; then
    step "GL tests (CUDA-GL interop)" gl-tests.log "$bin/gpulab_gl_tests"
fi
grep -h "SKIPPED" "$out/tests.log" "$out/gl-tests.log" 2>/dev/null | sort | uniq -c > "$out/skipped.txt"
[ -s "$out/skipped.txt" ] && say "note: skip lines in the logs (see skipped.txt)"
step "bench, every suite (JSON)" bench.json "$bin/gpulab" bench --suite all --json
step "bench, the simulator (JSON)" bench-sim.json "$bin/gpulab" bench --suite sim --json
# Every puzzle's reference on the GPU too: outputs against the simulator's reference, kernel times.
for p in "$root"/puzzles/*/; do
    id=$(basename "$p")
    step "puzzle $id on the GPU" "puzzle-$id.json" "$bin/gpulab" puzzle check "$id" "$p/solution.cu" --gpu --json
done
lessons=$("$bin/gpulab" lessons 2>/dev/null | awk '$2 == "ready" {print $1}')
for l in $lessons; do
    step "export $l, every step" "export-$l.log" "$bin/gpulab" export --lesson "$l" --all-steps --quick --out "$out/export/$l"
done
say "$([ "$failed" = 0 ] && echo "everything passed" || echo "SOME STEPS FAILED"): $out"
exit "$failed"
