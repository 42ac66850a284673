#!/usr/bin/env bash
# The recording call (issue 39 part 1): run on the lent GPU machine, in one device call, everything
# gpulab has to measure or check on a real GPU, from a bundle built here by
# scripts/gpu-record-bundle.sh (`make gpu-record-bundle`), and pack it into --out.
#
# That machine has a driver, CUDA 13, nvcc and compute-sanitizer, but no network and none of our
# packages, so nothing is built or installed here: no make, no cmake, no apt. Steps, most valuable
# first, each under its own `timeout`, all inside one budget (--budget, default 450 s, so that the
# call with its unpacking and packing stays within 8 minutes):
#   1. provenance.txt (GPU, memory, driver, CUDA, cuDNN, cuBLAS, gpulab commit, UTC date, command),
#      nvidia-smi -q, gpulab info, and a check that every bundled binary finds its libraries;
#   2. the recording the app ships: `gpulab export --all-steps` of every lesson on the GPU, one CSV
#      per step (core/recording reads them from assets/recorded/<gpu-id>/; `gpulab prerun --out`
#      is not used: its results hold the steps' output tensors, 141 MB for the CPU rows alone);
#   3. the GPU test suites and the GL tests with GPULAB_REQUIRE_GPU=1 (a GPU test may not skip);
#   4. the bench suites as JSON, the matrix products also at 4096^3;
#   5. the training runs on cudnn in FP32, TF32 and FP16-mixed, and on cuda-kernel;
#   6. side by side, as none of them is a timing: compute-sanitizer memcheck and racecheck over GPU
#      tests (it may refuse the device: the rest goes on), every puzzle's reference on the GPU, and
#      the rest of the test suite.
# Without a GPU (nvidia-smi finds none) it says so in one line and runs what can run without one,
# in a smaller form (one lesson --quick, --quick benches, a short CPU training run, one puzzle on
# the simulator), so the call can be rehearsed here up to its first GPU step; its provenance then
# says not_a_gpu, and nothing of it may be shipped as a GPU recording.
#
# Output, within what the device returns (at most 8 files, 16 MiB each, 64 MiB, 2 folders deep):
#   summary.txt        one line per step, written as it goes (a call killed early still returns it)
#   provenance.txt     also inside recording.tar.gz
#   recording.tar.gz   provenance.txt, every lesson step's CSV, the lessons' JSON, bench.json and
#                      train.json: scripts/gpu-record-unpack.sh puts it in assets/recorded/<gpu-id>/
#   bench.json         {"suite": [records...], ...}, one key per bench suite
#   train.json         {"run": [records...], ...}, one key per training run
#   pictures-N.tar     the exports' PNGs, lesson by lesson, two archives of at most 15 MiB each
#   logs.tar.gz        every step's log
# Exit 0 when every step passed, 1 when any failed or timed out, 2 on a usage or bundle error.
#
# Usage: scripts/gpu-record.sh --bundle DIR --out DIR [--budget SECONDS] [--lessons "ID ..."] [--quick]
#        scripts/gpu-record.sh --print-device-command   (the one line for the device tool's `run`)
# --quick: every run small (exports and benches --quick, 2,048 training pictures, products at 256^3),
#   to try the GPU branch's plumbing; its provenance says not_a_gpu, so it is never shipped.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)   # the repository root: the device's copy of the tree

# The device call, in one place: the bundle script, the docs and a ctest read it from here. The
# `.gl` packages go first (device README): glvnd's GL/EGL loaders, which the bundle leaves out.
device_command='for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig; bash scripts/gpu-record.sh --bundle .gpu-bundle --out $OUT'

invocation="scripts/gpu-record.sh $*"
bundle="" out="" budget=450 lessons="" quick=0
while [ $# -gt 0 ]; do
    case "$1" in
        --bundle) bundle=${2:-}; shift 2 ;;
        --out) out=${2:-}; shift 2 ;;
        --budget) budget=${2:-}; shift 2 ;;
        --lessons) lessons=${2:-}; shift 2 ;;
        --quick) quick=1; shift ;;
        --print-device-command) echo "$device_command"; exit 0 ;;
        -h|--help) awk 'NR == 1 {next} /^#/ {sub(/^# ?/, ""); print; next} {exit}' "$0"; exit 0 ;;
        *) echo "gpu-record: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done
[ -n "$bundle" ] && [ -n "$out" ] || { echo "gpu-record: --bundle and --out are required (see --help)" >&2; exit 2; }
[[ $budget =~ ^[0-9]+$ ]] || { echo "gpu-record: --budget takes whole seconds" >&2; exit 2; }
[ -d "$bundle" ] || { echo "gpu-record: no bundle at $bundle: build it with make gpu-record-bundle and carry it" >&2; exit 2; }
bundle=$(cd "$bundle" && pwd)
mkdir -p "$out" || { echo "gpu-record: cannot create $out" >&2; exit 2; }
out=$(cd "$out" && pwd)

start=$(date +%s)
deadline=$((start + budget))
# Everything is written under $work and packed into $out at the end: $out takes only a few files.
work=$(mktemp -d /tmp/gpu-record.XXXXXX) || exit 2
logs=$work/logs rec=$work/recording
mkdir -p "$logs" "$rec"
summary=$out/summary.txt
: > "$summary"
failed=0
say() { echo "gpu-record [$(( $(date +%s) - start )) s]: $*" | tee -a "$summary"; }

# step CAP NAME LOG COMMAND...: runs COMMAND (a program, not a shell function) with its output in
# $logs/LOG (a .json LOG takes stdout only), stopped after CAP seconds or at the budget's end,
# whichever comes first. A step that would get under 10 s is skipped and said to be. Returns the
# command's status.
step() {
    local cap=$1 name=$2 log=$3; shift 3
    local t0 left limit rc
    t0=$(date +%s)
    left=$(( deadline - t0 ))
    if [ "$left" -lt 10 ]; then
        say "SKIPPED $name: the ${budget} s budget is spent"
        failed=1
        return 125
    fi
    limit=$(( cap < left ? cap : left ))
    if [[ $log == *.json ]]; then
        # JSON on stdout alone; the progress lines a bench prints go to their own log.
        timeout -k 5 "$limit" "$@" > "$logs/$log" 2> "$logs/${log%.json}.stderr.log"
    else
        timeout -k 5 "$limit" "$@" > "$logs/$log" 2>&1
    fi
    rc=$?
    if [ "$rc" = 0 ]; then
        say "ok      $name ($(( $(date +%s) - t0 )) s, $log)"
    elif [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
        say "TIMEOUT $name (stopped after $limit s, $log)"
        failed=1
    else
        say "FAILED  $name ($(( $(date +%s) - t0 )) s, exit $rc, $log)"
        failed=1
    fi
    return "$rc"
}

# [SECTION] the bundle: packed (bundle.tar.xz, as carried) or already a folder with bin/
manifest=$bundle/MANIFEST
[ -f "$manifest" ] || { say "FAILED  $bundle has no MANIFEST: not a bundle made by make gpu-record-bundle"; exit 2; }
mf() { sed -n "s/^$1=//p" "$manifest" | head -1; }
if [ -f "$bundle/bundle.tar.xz" ]; then
    B=/tmp/gpulab-bundle
    rm -rf "$B" && mkdir -p "$B"
    # tar calls xz; an image without xz still has Python's lzma.
    if ! tar -C "$B" -xJf "$bundle/bundle.tar.xz" 2> "$logs/unpack.log"; then
        python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' \
            "$bundle/bundle.tar.xz" "$B" 2>> "$logs/unpack.log" ||
            { say "FAILED  unpacking $bundle/bundle.tar.xz (unpack.log)"; cat "$logs/unpack.log"; exit 2; }
    fi
else
    B=$bundle
fi
[ -x "$B/bin/gpulab" ] || { say "FAILED  the bundle has no bin/gpulab"; exit 2; }
say "bundle of gpulab $(mf commit) ($(mf tree)), built $(mf built_utc) for $(mf cuda_archs); unpacked in $B"
bin=$B/bin

# [SECTION] the environment the binaries expect
[ -d /usr/local/cuda/bin ] && export PATH="$PATH:/usr/local/cuda/bin"   # nvcc, compute-sanitizer
py=$(command -v python3 || echo /opt/torch/.venv/bin/python3)
# cuDNN and cuBLAS come from the machine's Python wheels (the bundle leaves them out). Asked before
# LD_LIBRARY_PATH holds the bundle, so that Python runs with its own libraries only.
wheel_lib() {  # MODULE: the wheel's lib folder, or nothing
    "$py" -c 'import importlib, sys; m = importlib.import_module(sys.argv[1]); print(list(m.__path__)[0] + "/lib")' "$1" 2>/dev/null
}
wheel_version() {  # DIST...: "name version" of the first one installed, or nothing
    "$py" -c 'import importlib.metadata as md, sys
for d in sys.argv[1:]:
    try:
        print(d, md.version(d)); break
    except Exception:
        pass' "$@" 2>/dev/null
}
cudnn_dir=$(wheel_lib nvidia.cudnn) cublas_dir=$(wheel_lib nvidia.cublas)
cudnn_wheel=$(wheel_version nvidia-cudnn-cu13 nvidia-cudnn-cu12)
cublas_wheel=$(wheel_version nvidia-cublas nvidia-cublas-cu13 nvidia-cublas-cu12)
torch_wheel=$(wheel_version torch)
libpath=$B/lib
if [ -n "$cudnn_dir" ] && [ -d "$cudnn_dir" ]; then libpath="$libpath:$cudnn_dir"; export GPULAB_CUDNN_DIR=$cudnn_dir; fi
if [ -n "$cublas_dir" ] && [ -d "$cublas_dir" ]; then libpath="$libpath:$cublas_dir"; export GPULAB_CUBLAS_DIR=$cublas_dir; fi
# libstdc++ from the bundle only where the system's is older than the binaries need (gpu-bundle.sh).
need=$(cat "$B/lib/compat/NEEDS" 2>/dev/null || echo none)
sys_cxx=$(ldconfig -p 2>/dev/null | awk '/libstdc\+\+\.so\.6 .*x86-64/ {print $NF; exit}')
if [ "$need" != none ] && ! { [ -n "$sys_cxx" ] && grep -qa "$need" "$sys_cxx"; }; then
    libpath="$libpath:$B/lib/compat"
    say "note: this machine's libstdc++ lacks $need: the bundle's copy is used"
fi
export LD_LIBRARY_PATH="$libpath${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export GPULAB_DATA_DIR=$B/src                   # lessons, shaders, assets, puzzles, device headers
export GPULAB_RESULTS_DIR=off                   # every step measured now, none read from a store
export GPULAB_RECORDING=off                     # no shipped recording drawn beside the live GPU rows
export XDG_CACHE_HOME=$work/cache XDG_CONFIG_HOME=$work/config
export OMP_WAIT_POLICY=passive                  # as CTest runs the suite (tests/CMakeLists.txt)
# EGL on the NVIDIA driver (device README): glvnd finds no vendor file there by itself.
nv_egl=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
[ -f "$nv_egl" ] && export __EGL_VENDOR_LIBRARY_FILENAMES=$nv_egl
ldconfig -p 2>/dev/null | grep -q 'libEGL\.so\.1 ' ||
    say "note: no libEGL.so.1 on this machine: unpack the .gl packages first (the device command does)"

# The test binaries read their sources and a few build outputs at the absolute paths they were
# built with (GPULAB_SOURCE_DIR, the stand-in cuDNN libraries, the kernel runner, test-home). Those
# do not exist on the device: link them to the bundle's copies (src/ and buildtree/).
link_path() {  # PATH TARGET WHAT
    if [ -e "$1" ] || [ -L "$1" ]; then
        [ "$(readlink -f "$1")" = "$(readlink -f "$2")" ] ||
            say "note: $1 exists here (not the bundle's): the tests read its $3"
    elif mkdir -p "$(dirname "$1")" 2>/dev/null && ln -s "$2" "$1" 2>/dev/null; then
        say "note: $1 -> the bundle's $3 (the path the tests were built with)"
    else
        say "note: cannot link $1: the tests that read its $3 will fail"
    fi
}
link_path "$(mf source_dir)" "$B/src" "sources"
link_path "$(mf build_dir)" "$B/buildtree" "stand-in libraries"
# Fashion-MNIST: gpulab train takes --data and GPULAB_TRAIN_DATA, but the tensor and convolution
# lessons read Debian's folder only, so the bundle's copy is linked there when that folder is absent.
fm=/usr/share/datasets/fashion-mnist
if [ -e "$fm/train-images-idx3-ubyte.gz" ] || [ -e "$fm/train-images-idx3-ubyte" ]; then
    data=$fm
elif [ -d "$bundle/fashion-mnist" ]; then
    data=$bundle/fashion-mnist
    if [ ! -e "$fm" ] && mkdir -p "$(dirname "$fm")" 2>/dev/null && ln -s "$data" "$fm" 2>/dev/null; then
        say "note: $fm -> the bundle's Fashion-MNIST"
    else
        say "note: $fm cannot be linked: the lessons' training steps will say the data set is missing"
    fi
else
    data=$fm
    say "note: no Fashion-MNIST here or in the bundle: the training runs will fail"
fi
export GPULAB_TRAIN_DATA=$data

# [SECTION] is there a GPU?
gpu_line=""
command -v nvidia-smi > /dev/null 2>&1 &&
    gpu_line=$(nvidia-smi --query-gpu=name,memory.total,driver_version,compute_cap --format=csv,noheader,nounits 2>/dev/null | head -1)
if [ -n "$gpu_line" ]; then
    IFS=',' read -r gpu_name gpu_mem gpu_driver gpu_cc <<< "$gpu_line"
    trim() { local v=$1; v=${v#"${v%%[![:space:]]*}"}; echo "${v%"${v##*[![:space:]]}"}"; }
    gpu_name=$(trim "$gpu_name") gpu_mem=$(trim "$gpu_mem") gpu_driver=$(trim "$gpu_driver") gpu_cc=$(trim "$gpu_cc")
    # "NVIDIA H200" -> nvidia-h200: the folder under assets/recorded/.
    gpu_id=$(echo "$gpu_name" | tr 'A-Z' 'a-z' | sed 's/[^a-z0-9]\{1,\}/-/g; s/^-//; s/-$//')
    say "GPU: $gpu_name, $gpu_mem MiB, driver $gpu_driver, compute capability $gpu_cc"
    export GPULAB_REQUIRE_GPU=1   # tests/gpu_test_support.h: a GPU test that cannot run fails
    mode=gpu
else
    gpu_name="none" gpu_mem="" gpu_driver="" gpu_cc="" gpu_id="rehearsal-no-gpu"
    say "no NVIDIA GPU here (nvidia-smi finds none): a rehearsal; the GPU steps are not run, the rest is"
    mode=rehearsal
fi

# [SECTION] 1. provenance, the machine, and whether every binary finds its libraries
nvidia-smi -q > "$logs/nvidia-smi.txt" 2>&1 || true
step 30 "gpulab info" info.txt "$bin/gpulab" info
for b in "$bin"/*; do
    echo "== $(basename "$b")"
    ldd "$b" 2>&1
done > "$logs/ldd.txt"
# Each library must come from the bundle, the wheels, or what the device brings (glibc, the driver,
# glvnd from the .gl packages, libstdc++); anything else would be missing on a bare machine.
awk -v B="$B" -v W1="${cudnn_dir:-/nonexistent}" -v W2="${cublas_dir:-/nonexistent}" '
    /^== / { bin = $2; next }
    /not found/ { print "missing: " bin " needs " $1; next }
    $2 == "=>" && $3 ~ /^\// {
        if (index($3, B "/") == 1 || index($3, W1 "/") == 1 || index($3, W2 "/") == 1) next
        if ($1 ~ /^(ld-linux|libc\.so|libm\.so|libmvec|libdl\.so|libpthread|librt\.so|libresolv|libutil|libanl|libnsl|libcuda|libnvidia|libcudnn|libcublas|libGL|libEGL|libOpenGL|libGLES|libvulkan|libstdc\+\+|libgcc_s)/) next
        print "from this machine, not the bundle: " bin " needs " $1 " (" $3 ")"
    }' "$logs/ldd.txt" | sort -u > "$logs/ldd-problems.txt"
if [ -s "$logs/ldd-problems.txt" ]; then
    say "FAILED  libraries (ldd-problems.txt): $(head -3 "$logs/ldd-problems.txt" | tr '\n' ';')"
    failed=1
else
    say "ok      every bundled binary finds its libraries in the bundle or among what the device brings"
fi

# provenance.txt, as core/recording/gpu_recording.h reads it: "key: value" lines, gpu and date
# required, not_a_gpu set on anything that is not a GPU's recording. Versions as gpulab itself
# loaded them (gpulab info, the cudnn training engine's description), else the wheels'. Written
# now, so that a call cut short still names its machine, and again at the end with what was learnt.
recorded_utc=$(date -u +'%Y-%m-%d %H:%M:%S UTC')
one_line() { tr -d '\000-\037' | cut -c1-380; }
write_provenance() {
    local cudnn_version cublas_version runtime smi_cuda
    cudnn_version=$(cat "$logs/info.txt" "$logs"/train-cudnn-*.log 2>/dev/null | grep -o 'cuDNN [0-9][0-9.]*' | head -1 | cut -d' ' -f2)
    cublas_version=$(cat "$logs/info.txt" "$logs"/train-cudnn-*.log 2>/dev/null | grep -o 'cuBLAS [0-9][0-9.]*' | head -1 | cut -d' ' -f2)
    runtime=$(grep -o 'CUDA [0-9.]* runtime' "$logs/info.txt" | head -1)
    smi_cuda=$(sed -n 's/.*CUDA Version *: *\([0-9.]*\).*/\1/p' "$logs/nvidia-smi.txt" | head -1)
    {
        echo "# Where and how this recording was made; written by scripts/gpu-record.sh on that machine."
        echo "gpu: $gpu_name"
        echo "gpu_memory: ${gpu_mem:+$gpu_mem MiB}"
        echo "driver: $gpu_driver"
        echo "cuda: ${runtime:-CUDA runtime unknown}${smi_cuda:+, the driver supports CUDA $smi_cuda}"
        echo "cudnn: ${cudnn_version:-${cudnn_wheel:-not found}}"
        echo "cublas: ${cublas_version:-${cublas_wheel:-not found}}"
        echo "commit: $(mf commit | cut -c1-12)"
        echo "date: $recorded_utc"
        echo "command: $invocation"
        [ "$mode" = gpu ] || echo "not_a_gpu: rehearsal without a GPU (scripts/gpu-record.sh)"
        [ "$mode" = gpu ] && [ "$quick" = 1 ] && echo "not_a_gpu: --quick plumbing run (scripts/gpu-record.sh), not a recording"
        echo "gpu_id: $gpu_id"
        echo "compute_capability: $gpu_cc"
        echo "cudnn_wheel: $cudnn_wheel"
        echo "cublas_wheel: $cublas_wheel"
        echo "torch_wheel: $torch_wheel"
        echo "cpu: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), $(nproc) threads"
        echo "os: $(. /etc/os-release 2>/dev/null && echo "$PRETTY_NAME"), kernel $(uname -r)"
        echo "gpulab: $(sed -n 's/^gpulab //p' "$logs/info.txt" | head -1), commit $(mf commit) ($(mf subject))"
        echo "bundle: $(mf tree), built $(mf built_utc) on $(mf built_on) with nvcc $(mf nvcc), $(mf cuda_archs)"
        echo "device_command: $device_command"
    } | while IFS= read -r line; do printf '%s\n' "$line" | one_line; done > "$rec/provenance.txt"
    cp "$rec/provenance.txt" "$out/provenance.txt"
}
write_provenance

# [SECTION] 2-6. the measurements and checks
suites_gpu="gpu,gpu-train,gpu-model,tensor,backends,puzzles"
# The GPU tests whose kernels share memory between threads (tiled convolution, the training kernels'
# reductions and tiled products, the tensor-core tiles): racecheck's subject, and slow under it.
racecheck_cases="cuda-kernel tiled conv2d*,cuda-kernel: every training kernel*,cuda-kernel training engine*,the tensor-core kernel on the GPU*"
lesson_list=$lessons
[ -n "$lesson_list" ] || lesson_list=$("$bin/gpulab" lessons 2>/dev/null | awk '$2 == "ready" {print $1}' | tr '\n' ' ')
export_lesson() {  # CAP ID [FLAGS...]: the lesson's export into $work/export/ID
    local cap=$1 id=$2 how=""; shift 2
    [ $# -gt 0 ] && how=" ($*)"
    step "$cap" "export $id, every step$how" "export-$id.log" \
        "$bin/gpulab" export --lesson "$id" --all-steps --out "$work/export/$id" "$@"
}
phase=()
q=() limit=() gemm=4096   # --quick: small runs (see --help)
[ "$quick" = 1 ] && q=(--quick) limit=(--limit 2048) gemm=256
if [ "$mode" = gpu ]; then
    # 2. The recording, lesson by lesson (a lesson that overruns costs only its own rows).
    for l in $lesson_list; do export_lesson "$([ "$l" = train-small-cnn ] && echo 150 || echo 90)" "$l" "${q[@]}"; done
    # 3. The GPU tests in two runs, so that a run cut short costs only its half (--duration: what
    # takes the time there, for the next call's budget), then the GL tests (CUDA-GL interop).
    step 100 "GPU test suites gpu, gpu-train" tests-gpu.log "$bin/gpulab_tests" --test-suite=gpu,gpu-train --duration=true
    step 90 "GPU test suites tensor, backends, puzzles, gpu-model" tests-gpu-more.log \
        "$bin/gpulab_tests" --test-suite=tensor,backends,puzzles,gpu-model --duration=true
    [ -x "$bin/gpulab_gl_tests" ] && step 45 "GL tests (interop)" tests-gl.log "$bin/gpulab_gl_tests"
    # 4. The bench suites, one process each so that one suite's timeout keeps the others.
    for s in activation latency simd conv train tensor; do
        step 75 "bench $s (JSON)" "bench-$s.json" "$bin/gpulab" bench --suite "$s" --json "${q[@]}"
    done
    step 120 "bench tensor at $gemm^3 (JSON)" "bench-tensor-$gemm.json" \
        "$bin/gpulab" bench --suite tensor --gemm-size "$gemm" --json "${q[@]}"
    # 5. Training: one epoch of the lesson's model over the whole training set, twice: as text with
    # the layers' times, the engine's description and FP16's final loss scale, then as JSON.
    for run in "cudnn fp32" "cudnn tf32" "cudnn fp16-mixed" "cuda-kernel fp32"; do
        set -- $run
        step 60 "train $1 $2" "train-$1-$2.log" \
            "$bin/gpulab" train --backend "$1" --precision "$2" --data "$data" --layers "${limit[@]}"
        step 60 "train $1 $2 (JSON)" "train-$1-$2.json" \
            "$bin/gpulab" train --backend "$1" --precision "$2" --data "$data" --json "${limit[@]}"
    done
    # 6. Checks that time nothing, side by side: each its own process, timeout and log.
    sanitizer=$(command -v compute-sanitizer || true)
    if [ -n "$sanitizer" ]; then
        step 150 "compute-sanitizer memcheck over the gpu and gpu-train suites" sanitizer-memcheck.log \
            "$sanitizer" --tool memcheck --leak-check no --error-exitcode 99 \
            "$bin/gpulab_tests" --test-suite=gpu,gpu-train & phase+=($!)
        # racecheck replays every shared-memory access: only the kernels that share memory.
        step 150 "compute-sanitizer racecheck over the shared-memory kernels" sanitizer-racecheck.log \
            "$sanitizer" --tool racecheck --racecheck-report hazard --error-exitcode 99 \
            "$bin/gpulab_tests" --test-suite=gpu,gpu-train "--test-case=$racecheck_cases" & phase+=($!)
    else
        say "note: no compute-sanitizer on this machine: memcheck and racecheck not run"
    fi
    puzzle_flags="--gpu"
else
    # The rehearsal: what runs without a GPU, small, to prove the bundle and the packing.
    for l in ${lessons:-latency-vs-throughput}; do export_lesson 120 "$l" --quick; done
    # The whole suite: the GPU tests skip, and every test that reads the sources, the stand-in
    # cuDNN libraries or the kernel runner through the linked paths shows that they are found.
    step 240 "the whole test suite (GPU tests skip)" tests-all.log "$bin/gpulab_tests"
    [ -x "$bin/gpulab_gl_tests" ] && step 60 "GL tests" tests-gl.log "$bin/gpulab_gl_tests"
    step 60 "bench activation --quick (JSON)" bench-activation.json "$bin/gpulab" bench --suite activation --quick --json
    step 90 "bench tensor --gemm-size 64 (JSON)" bench-tensor.json \
        "$bin/gpulab" bench --suite tensor --quick --gemm-size 64 --json
    step 60 "train cpu-parallel on 512 pictures (JSON)" train-cpu-parallel-fp32.json \
        "$bin/gpulab" train --backend cpu-parallel --limit 512 --data "$data" --json
    sanitizer=$(command -v compute-sanitizer || true)
    [ -n "$sanitizer" ] && step 30 "compute-sanitizer starts" sanitizer-version.log "$sanitizer" --version
    puzzle_flags=""
fi

# Every puzzle's reference solution (the rehearsal: the first one, on the simulator), four at a
# time: each compiles with g++ for the simulator and, with --gpu, with nvcc for the device.
puzzle_ids=$(cd "$B/src/puzzles" && ls -d */ 2>/dev/null | tr -d / | tr '\n' ' ')
[ "$mode" = gpu ] || puzzle_ids=${puzzle_ids%% *}
run_puzzles() {  # its own bash under `timeout`: puzzle-ID.json per puzzle, one line each in puzzles.txt
    local id
    for id in $PUZZLE_IDS; do
        ("$PUZZLE_BIN/gpulab" puzzle check "$id" "$PUZZLE_SRC/puzzles/$id/solution.cu" $PUZZLE_FLAGS --json \
                > "$PUZZLE_LOGS/puzzle-$id.json" 2>&1
            echo "$id exit $?" >> "$PUZZLE_LOGS/puzzles.txt") &
        while [ "$(jobs -rp | wc -l)" -ge 4 ]; do wait -n; done
    done
    wait
    cat "$PUZZLE_LOGS/puzzles.txt"
    ! grep -qv ' exit 0$' "$PUZZLE_LOGS/puzzles.txt"
}
export -f run_puzzles
export PUZZLE_IDS="$puzzle_ids" PUZZLE_BIN=$bin PUZZLE_SRC=$B/src PUZZLE_FLAGS=$puzzle_flags PUZZLE_LOGS=$logs
: > "$logs/puzzles.txt"
step 120 "puzzles' references${puzzle_flags:+ on the GPU} ($(echo $puzzle_ids | wc -w))" puzzles.log bash -c run_puzzles &
phase+=($!)
if [ "$mode" = gpu ]; then
    # The rest of the suite: the CPU paths on this machine's processor (AVX-512, AMX where it has them).
    step 150 "the other test suites" tests-rest.log "$bin/gpulab_tests" "--test-suite-exclude=$suites_gpu" &
    phase+=($!)
fi
for p in "${phase[@]}"; do wait "$p"; done
# A step run in the background set `failed` in its own subshell; its summary line says it.
grep -q '^gpu-record \[[0-9]* s\]: \(FAILED\|TIMEOUT\|SKIPPED\)' "$summary" && failed=1
grep -h "SKIPPED" "$logs"/tests-*.log 2>/dev/null | sort | uniq -c > "$logs/skipped.txt"
[ "$mode" = gpu ] && [ -s "$logs/skipped.txt" ] && say "note: skip lines in the GPU test logs (skipped.txt)"

# [SECTION] packing, within what the device returns
write_provenance   # again: cuBLAS's version may have come from the training runs
# Each JSON output is an array of records: the suites (and the runs) side by side in one file.
merge_json() {  # OUT PREFIX: {"name": [...]} from $logs/PREFIX*.json; a broken one kept as text
    env -u LD_LIBRARY_PATH "$py" - "$1" "$logs" "$2" <<'EOF'
import glob, json, os, sys
out, logs, prefix = sys.argv[1:4]
merged = {}
for path in sorted(glob.glob(os.path.join(logs, prefix + "*.json"))):
    name = os.path.basename(path)[len(prefix):-len(".json")]
    text = open(path, errors="replace").read()
    start = text.find("[")  # progress lines on stderr share the log
    try:
        merged[name] = json.loads(text[start:]) if start >= 0 else {"error": text[-4000:]}
    except ValueError:
        merged[name] = {"error": "not JSON (cut short?)", "tail": text[-4000:]}
json.dump(merged, open(out, "w"), indent=1)
EOF
}
merge_json "$rec/bench.json" bench- || say "FAILED  merging the bench JSON"
merge_json "$rec/train.json" train- || say "FAILED  merging the training JSON"
cp "$rec/bench.json" "$rec/train.json" "$out/" 2>/dev/null
# The recording is flat (core/recording): every step's CSV and each lesson's JSON, with provenance.
find "$work/export" -maxdepth 2 -type f \( -name '*.csv' -o -name '*.json' \) -exec cp {} "$rec/" \; 2>/dev/null
say "recording: $(ls "$rec" | grep -c '\.csv$') CSV files of $(ls -d "$work"/export/*/ 2>/dev/null | wc -l) lessons"
# The pictures, lesson by lesson, into pictures-1.tar and pictures-2.tar of at most 15 MiB each
# (PNG does not compress; the device returns 8 files of 16 MiB), each lesson into the first with
# room; a lesson that fits neither is left out and said to be.
fill=(0 0 0)
for d in "$work"/export/*/; do
    [ -d "$d" ] || continue
    lesson=$(basename "$d")
    bytes=$(find "$d" -name '*.png' -printf '%s\n' | awk '{s += $1} END {print s + 0}')
    [ "$bytes" -gt 0 ] || continue
    for n in 1 2 0; do
        [ "$n" = 0 ] && { say "note: the pictures of $lesson left out: no room in two archives of 15 MiB"; break; }
        [ $((fill[n] + bytes)) -le $((15 * 1048576)) ] || continue
        (cd "$work/export" && find "$lesson" -name '*.png') >> "$work/pictures-$n.list"
        fill[n]=$((fill[n] + bytes))
        break
    done
done
for n in 1 2; do
    [ -s "$work/pictures-$n.list" ] && tar -C "$work/export" -cf "$out/pictures-$n.tar" -T "$work/pictures-$n.list"
done
# Logs of more than 4 MiB keep their first and last MiB.
for f in "$logs"/*; do
    if [ "$(stat -c %s "$f")" -gt 4194304 ]; then
        { head -c 1048576 "$f"; printf '\n[... cut by gpu-record.sh ...]\n'; tail -c 1048576 "$f"; } > "$f.cut" && mv "$f.cut" "$f"
    fi
done
tar -C "$rec" -czf "$out/recording.tar.gz" . || say "FAILED  packing recording.tar.gz"
tar -C "$work" -czf "$out/logs.tar.gz" logs || say "FAILED  packing logs.tar.gz"
# The device's limits: at most 8 files, 16 MiB each, 64 MiB in all (kept under 60); the
# recording's own budget: 20 MiB unpacked (core/recording's kMaxRecordingBytes).
total=0 count=0
for f in "$out"/*; do
    size=$(stat -c %s "$f"); total=$((total + size)); count=$((count + 1))
    [ "$size" -le $((16 * 1048576)) ] || { say "FAILED  $(basename "$f") is $((size / 1048576)) MiB, over 16 MiB a file"; failed=1; }
done
rec_size=$(du -sb "$rec" | cut -f1)
[ "$rec_size" -le $((20 * 1048576)) ] ||
    { say "FAILED  the recording is $((rec_size / 1048576)) MiB unpacked, over its 20 MiB budget"; failed=1; }
{ [ "$count" -le 8 ] && [ "$total" -le $((60 * 1048576)) ]; } ||
    { say "FAILED  $count files, $((total / 1048576)) MiB in $out: over what the device returns"; failed=1; }
say "packed $count files, $((total / 1024)) KiB (the recording $((rec_size / 1024)) KiB unpacked): $(cd "$out" && ls | tr '\n' ' ')"
[ "$mode" = gpu ] || say "rehearsal only: nothing here is a GPU recording"
say "$([ "$failed" = 0 ] && echo "everything passed" || echo "SOME STEPS FAILED (see above)") in $(( $(date +%s) - start )) s"
rm -rf "$work"
exit "$failed"
