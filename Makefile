# The two commands of the README:
#   make run    installs what is missing, configures, builds and launches the app
#   make test   the same set-up, then builds and runs every test through CTest
# CUDA is picked up automatically when nvcc is found (see cmake/Cuda.cmake); CMAKE_FLAGS passes
# options through, e.g.  make test CMAKE_FLAGS=-DGPULAB_ENABLE_CUDA=OFF BUILD_DIR=build-cpu
BUILD_DIR ?= build
CMAKE_FLAGS ?=
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
GPULAB = $(BUILD_DIR)/app/gpulab

.PHONY: all deps configure build run test test-sanitize test-tsan fuzz soak bench package clean gpu-check

all: build

deps:
	@scripts/install-deps.sh

configure: deps
	cmake -S . -B $(BUILD_DIR) -G Ninja $(CMAKE_FLAGS)

build: configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

# With no display the app itself says so and prints the headless export command.
run: build
	@if [ -z "$${DISPLAY:-}$${WAYLAND_DISPLAY:-}" ]; then $(GPULAB) || true; else $(GPULAB); fi

test: build
	cd $(BUILD_DIR) && ctest --output-on-failure --timeout 300 -j $(JOBS)

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

# A .deb of this build (cmake/Package.cmake): apt install ./$(BUILD_DIR)/gpulab_*.deb
package: build
	cd $(BUILD_DIR) && cpack

bench: build
	$(GPULAB) bench

clean:
	rm -rf $(BUILD_DIR)
