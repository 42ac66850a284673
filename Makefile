# The two commands of the README:
#   make run    installs what is missing, configures, builds and launches the app
#   make test   the same set-up, then builds and runs every test through CTest
# CUDA is picked up automatically when nvcc is found (see cmake/Cuda.cmake); CMAKE_FLAGS passes
# options through, e.g.  make test CMAKE_FLAGS=-DGPULAB_ENABLE_CUDA=OFF BUILD_DIR=build-cpu
BUILD_DIR ?= build
CMAKE_FLAGS ?=
# CUDA architectures of the everyday build (run, test): only the GPU in this machine ("native"),
# or, with none, compute capability 8.0 as machine code plus its PTX: the oldest that compiles the
# tensor-core kernels' mma.sync path (below 8.0 they take their fallback), so every device path is
# still compiled, once per kernel file instead of seven times (issue 38: nvcc took 374 s of a
# fresh `make test`). `make package` builds the whole shipped list (cmake/Cuda.cmake: Turing to
# Blackwell) for the .deb.
PACKAGE_CUDA_ARCHS = 75-real;80-real;86-real;89-real;90-real;100-real;120
CUDA_ARCHS ?= $(shell nvidia-smi -L 2>/dev/null | grep -q '^GPU ' && echo native || echo 80)
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
GPULAB = $(BUILD_DIR)/app/gpulab

.PHONY: all deps configure build run test test-layout test-sanitize test-tsan fuzz soak bench package clean gpu-check \
        gpu-record-bundle gpu-record gpu-record-unpack

all: build

deps:
	@scripts/install-deps.sh

configure: deps
	cmake -S . -B $(BUILD_DIR) -G Ninja "-DGPULAB_CUDA_ARCHS=$(CUDA_ARCHS)" $(CMAKE_FLAGS)

build: configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

# With no display the app itself says so and prints the headless export command.
run: build
	@if [ -z "$${DISPLAY:-}$${WAYLAND_DISPLAY:-}" ]; then $(GPULAB) || true; else $(GPULAB); fi

# The README's test command. The exhaustive layout matrix (every lesson at every window size and
# presenter scale, label layout-full) is `make test-layout`, which CI runs too; `make test` keeps
# one window size (1366x768) and one presenter scale (1.5x at 1920x1080) per lesson.
test: build
	cd $(BUILD_DIR) && ctest --output-on-failure --timeout 300 -j $(JOBS) -LE layout-full

test-layout: build
	cd $(BUILD_DIR) && ctest --output-on-failure --timeout 300 -j $(JOBS) -L layout-full

# The whole suite in a CPU-only build under ASan + UBSan, and every parser's libFuzzer target for
# FUZZ_SECONDS each (docs/reliability.md); .ci/run runs both.
FUZZ_SECONDS ?= 20
test-sanitize: deps
	scripts/ci-sanitizers.sh sanitize

fuzz: deps
	FUZZ_SECONDS=$(FUZZ_SECONDS) scripts/ci-sanitizers.sh fuzz

# ThreadSanitizer on the suites with threads, and the classroom soak (SOAK_MINUTES in presenter
# mode under Xvfb); docs/reliability.md has their last results.
SOAK_MINUTES ?= 60
test-tsan: deps
	scripts/ci-sanitizers.sh tsan

soak: build
	scripts/soak.sh --minutes $(SOAK_MINUTES) --binary $(GPULAB)

# Everything that needs an NVIDIA GPU, into one folder (scripts/gpu-check.sh): builds for this GPU
# only, GPU tests required to run (not skipped), interop, bench JSON, every lesson exported. Without
# a GPU it says so in one line. GPU_CHECK_OUT=DIR chooses the folder.
gpu-check: deps
	scripts/gpu-check.sh $(if $(GPU_CHECK_OUT),--out $(GPU_CHECK_OUT))

# The recording call for a lent GPU machine, which has no network (docs/gpu-verification.md, "The
# recording call"). gpu-record-bundle, here: builds HEAD for sm_90 + PTX in build-gpu-record/, packs
# it with its libraries and Fashion-MNIST into .gpu-bundle/, fetches .gl/, checks that the call
# carries under 55 MiB and prints the device call, which runs scripts/gpu-record.sh there (no make).
# gpu-record: that bundle, then the device call rehearsed here as the device runs it
# (scripts/gpu-record-rehearse.sh; without a GPU it stops short of the GPU steps and says so) into
# GPU_RECORD_OUT. gpu-record-unpack RECORDING=DIR puts a returned recording in assets/recorded/<gpu-id>/.
GPU_RECORD_OUT ?= /tmp/gpu-record-out
gpu-record-bundle: deps
	scripts/gpu-record-bundle.sh

gpu-record: gpu-record-bundle
	scripts/gpu-record-rehearse.sh --out $(GPU_RECORD_OUT)

gpu-record-unpack:
	scripts/gpu-record-unpack.sh $(RECORDING)

# A .deb of this build (cmake/Package.cmake): apt install ./$(BUILD_DIR)/gpulab_*.deb
package: CUDA_ARCHS = $(PACKAGE_CUDA_ARCHS)
package: build
	cd $(BUILD_DIR) && cpack

bench: build
	$(GPULAB) bench

clean:
	rm -rf $(BUILD_DIR)
