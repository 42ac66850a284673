// The GPU convolutions against the reference: cuda-kernel (tiled), cuda-naive and cudnn must give
// cpu-scalar's run_conv2d answer. The kernels' bodies also run on cuda-sim and cuda-sim-naive, the
// same kernel source on the SIMT simulator, on every machine: those cases are never skipped.
//
// "gpu" suite: needs a CUDA device; without one each test prints
//   SKIPPED: no CUDA device (<probe reason, verbatim>)   or   SKIPPED: CUDA not compiled in
// and returns (CTest shows it as skipped). Shapes: 1x1, 5x7, 33x65 (3 x 5 tiles of 16, with
// partial tiles on both edges), a layer with N=2 C=3 K=4, each with kernels 1, 3, 5, 7, stride 1
// and 2, zero padding and none; 15x15 filters with stride 2 and 4 (the largest shared tile);
// stride 8 (where cuda-kernel switches to the naive kernel); and K=70000 planes (more than
// gridDim.z's 65535, so the tiled kernel's plane loop runs twice).
// "backends" suite: runs everywhere: cuda-naive is listed, and GPU backends that cannot run
// refuse a convolution with a message instead of throwing.
//
// Tolerances (pass when |gpu - ref| <= abs + rel * |ref| for every element), inputs and filters
// uniform in [-1, 1]:
//   our kernels  abs 1e-4, rel 1e-4: the same sum in the same order (c, r, s) as cpu-scalar; only
//       nvcc's fused multiply-adds round differently. Outputs are sums of up to 450 products, of
//       typical magnitude 5-10, where one ulp is ~1e-6; a wrong or missing tap moves an output by
//       ~0.1 or more, far outside the tolerance.
//   cudnn        abs 1e-3, rel 1e-3: cuDNN may pick FFT or Winograd, which transform the data and
//       round in a different basis (errors ~1e-5 of the sum of |x*w|, up to ~100 here). With TF32
//       (which we do not ask for: CUDNN_FMA_MATH) errors would reach 1e-2 and this test would say so.
#include <doctest/doctest.h>

#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "ops/tensor_compare.h"
#include "ops/conv2d.h"
#include "sim/cuda_sim_backend.h"
#include "gpu_backends.h"
#include "gpu_model/gpu_model.h"
#include "gpu_test_support.h"
#include "ops/tensor.h"
#include "workloads/conv2d_workload.h"

using namespace gpulab;
using testing::find_backend;
using testing::gpu_ready;
using testing::is_simulated;

namespace {

// Every GPU backend the convolution lesson lists: cuda-kernel, cudnn, cuda-naive.
core::BackendList all_gpu_backends() {
    core::BackendList list = gpu::make_backends();
    for (auto& b : gpu::make_conv2d_extra_backends()) list.push_back(std::move(b));
    return list;
}

core::Tensor random_tensor(std::vector<int64_t> shape, uint32_t seed) {
    core::Tensor t = core::Tensor::zeros(std::move(shape));
    uint32_t state = seed * 2654435761u + 1u;
    for (float& v : t.data) {
        state = state * 1664525u + 1013904223u;
        v = 2.0f * (static_cast<float>(state >> 8) / static_cast<float>(1u << 24)) - 1.0f;  // [-1, 1)
    }
    return t;
}

core::Conv2dDesc make_desc(int64_t n, int64_t c, int64_t h, int64_t w, int64_t k, int64_t r, core::Padding pad,
                           int64_t stride) {
    core::Conv2dDesc d;
    d.batch = n;
    d.channels = c;
    d.height = h;
    d.width = w;
    d.filters = k;
    d.kernel = r;
    d.padding = pad;
    d.stride = stride;
    return d;
}

std::string describe(const core::Conv2dDesc& d) {
    return "N=" + std::to_string(d.batch) + " C=" + std::to_string(d.channels) + " H=" + std::to_string(d.height) +
           " W=" + std::to_string(d.width) + " K=" + std::to_string(d.filters) + " R=" + std::to_string(d.kernel) +
           (d.padding == core::Padding::Zero ? " pad=zero" : " pad=none") + " stride=" + std::to_string(d.stride);
}

// Only shapes whose kernel fits the padded input (a valid convolution).
bool fits(const core::Conv2dDesc& d) {
    return d.height + 2 * d.pad() >= d.kernel && d.width + 2 * d.pad() >= d.kernel;
}

std::vector<core::Conv2dDesc> test_shapes() {
    std::vector<core::Conv2dDesc> shapes;
    const core::Padding pads[] = {core::Padding::Zero, core::Padding::None};
    struct Size {
        int64_t n, c, h, w, k;
    };
    const Size sizes[] = {{1, 1, 1, 1, 1}, {1, 1, 5, 7, 1}, {1, 1, 33, 65, 1}, {2, 3, 33, 65, 4}};
    for (const Size& s : sizes) {
        for (int64_t r : {1, 3, 5, 7}) {
            for (int64_t stride : {1, 2}) {
                for (core::Padding pad : pads) {
                    const core::Conv2dDesc d = make_desc(s.n, s.c, s.h, s.w, s.k, r, pad, stride);
                    if (fits(d)) shapes.push_back(d);
                }
            }
        }
    }
    shapes.push_back(make_desc(1, 2, 40, 50, 3, 15, core::Padding::Zero, 2));
    shapes.push_back(make_desc(1, 1, 70, 90, 2, 15, core::Padding::None, 4));  // the largest tile: 75x75
    shapes.push_back(make_desc(1, 2, 40, 50, 3, 5, core::Padding::Zero, 8));   // cuda-kernel goes naive here
    shapes.push_back(make_desc(1, 1, 3, 3, 70000, 3, core::Padding::Zero, 1));
    return shapes;
}

void check_conv_equals_reference(core::Backend& b, core::Tolerance tol) {
    core::BackendList cpu = core::make_cpu_backends();
    REQUIRE(!cpu.empty());
    core::Backend& reference = *cpu[0];
    REQUIRE(reference.name() == "cpu-scalar");
    uint32_t seed = 1;
    for (const core::Conv2dDesc& d : test_shapes()) {
        CAPTURE(describe(d));
        const core::Tensor input = random_tensor({d.batch, d.channels, d.height, d.width}, seed++);
        const core::Tensor filters = random_tensor({d.filters, d.channels, d.kernel, d.kernel}, seed++);
        core::Tensor expected = core::Tensor::zeros({d.batch, d.filters, d.out_height(), d.out_width()});
        const core::RunResult ref = reference.run_conv2d(d, input, filters, expected);
        REQUIRE_MESSAGE(ref.ok, ref.error);

        REQUIRE(b.supports_conv2d(d));
        core::Tensor out = core::Tensor::zeros(expected.shape);
        const core::RunResult r = b.run_conv2d(d, input, filters, out);
        REQUIRE_MESSAGE(r.ok, r.error);
        const std::string implementation = b.conv2d_implementation(d);
        CAPTURE(implementation);
        CHECK_FALSE(implementation.empty());
        const core::Comparison c = core::compare(expected, out, tol);
        CHECK_MESSAGE(c.pass, c.verdict);
        CHECK(r.t.upload_ns >= 0);
        CHECK(r.t.compute_ns >= 0);
        CHECK(r.t.download_ns >= 0);
        CHECK(r.t.total_ns() > 0);
        CHECK(r.t.launch_ns > 0);
        if (!is_simulated(b)) CHECK(b.device_output() != nullptr);
    }
}

constexpr core::Tolerance kKernelTolerance{1e-4, 1e-4};
constexpr core::Tolerance kCudnnTolerance{1e-3, 1e-3};

// cuda-kernel's choice: the tiled kernel up to stride 4, the naive one beyond.
void check_tiled_backend(core::Backend& b) {
    REQUIRE_MESSAGE(b.availability().ok, b.availability().reason);
    check_conv_equals_reference(b, kKernelTolerance);
    CHECK(b.conv2d_implementation(make_desc(1, 1, 8, 8, 1, 3, core::Padding::Zero, 1)).find("tiled") !=
          std::string::npos);
    CHECK(b.conv2d_implementation(make_desc(1, 1, 40, 40, 1, 3, core::Padding::Zero, 8)).find("naive") !=
          std::string::npos);
}

void check_naive_backend(core::Backend& b) {
    REQUIRE_MESSAGE(b.availability().ok, b.availability().reason);
    check_conv_equals_reference(b, kKernelTolerance);
    CHECK(b.conv2d_implementation(make_desc(1, 1, 8, 8, 1, 3, core::Padding::Zero, 1)).find("naive") !=
          std::string::npos);
}

// The colour picture as the lesson sends it: N=3 planes of C=1, one filter, through run_conv2d
// with cpu-scalar first, exactly as the view measures. 37 x 53 leaves partial tiles on both edges
// of every plane.
void check_per_channel_run(const std::vector<core::Backend*>& gpu_backends) {
    core::BackendList cpu = core::make_cpu_backends();
    std::vector<core::Backend*> backends = {find_backend(cpu, "cpu-scalar")};
    REQUIRE(backends[0] != nullptr);
    for (core::Backend* b : gpu_backends) backends.push_back(b);
    core::MeasureConfig config;
    config.warmup = 0, config.min_samples = 1, config.max_samples = 1, config.time_budget_ns = 0;
    config.measure_limits = false;
    core::Conv2dParams p;
    p.filter = "gaussian";
    p.kernel = 5;
    p.height = 37, p.width = 53;
    p.per_channel = true;
    const core::Conv2dRun run = core::run_conv2d(p, backends, config);
    REQUIRE_MESSAGE(run.ok, run.error);
    CHECK(run.desc.batch == 3);
    REQUIRE(run.reports.size() == backends.size());
    for (const core::BackendReport& r : run.reports) {
        CAPTURE(r.backend);
        if (r.backend == "cudnn" && !gpu::probe().cudnn_ok) continue;
        const std::string why = r.availability.reason + r.error;
        REQUIRE_MESSAGE(r.ran, why);
        CHECK_MESSAGE(r.check.pass, r.check.verdict);
    }
}

// What every GPU-side backend (real or simulated) must refuse with a sentence, and that it still
// works afterwards: a shape past 2^31 elements (from the shape alone, no tensor of that size needed)
// and tensors whose counts do not match the shape (refused by count, not read past their end).
void check_conv_refusals(core::Backend& b) {
    const core::Conv2dDesc huge = make_desc(1, 1, 65536, 65536, 1, 3, core::Padding::Zero, 1);
    CHECK_FALSE(b.supports_conv2d(huge));
    core::Tensor empty_in, empty_filters, empty_out;
    const core::RunResult r = b.run_conv2d(huge, empty_in, empty_filters, empty_out);
    CHECK_FALSE(r.ok);
    CHECK(r.error.find("2^31") != std::string::npos);
    const core::Conv2dDesc small = make_desc(1, 1, 8, 8, 1, 3, core::Padding::Zero, 1);
    const core::Tensor in = random_tensor({8, 8}, 7);
    const core::Tensor filters = random_tensor({3, 3}, 8);
    core::Tensor wrong = core::Tensor::zeros({7, 8});
    const core::RunResult w = b.run_conv2d(small, in, filters, wrong);
    CHECK_FALSE(w.ok);
    CHECK(w.error.find("elements") != std::string::npos);
    core::Tensor right = core::Tensor::zeros({8, 8});
    const core::RunResult ok = b.run_conv2d(small, in, filters, right);
    CHECK_MESSAGE(ok.ok, ok.error);
}

}  // namespace

TEST_SUITE("gpu") {
    TEST_CASE("the device's occupancy of the tiled kernel equals the estimate from nvcc's register count") {
        if (!gpu_ready()) return;
        // The conv lesson's H100 example and the canvas without a GPU use core/gpu_model/gpu_model.h's register
        // count; on a GPU the device answers. Where they differ, the register table needs updating.
        const gpu::GpuProbe& p = gpu::probe();
        const int device = gpu::conv2d_tiled_blocks_per_sm(3, 1);
        const int estimate = core::resident_blocks_per_sm(p.cc_major, p.cc_minor, 256,
                                                          core::tiled_conv_registers(p.cc_major, p.cc_minor));
        CHECK(device >= 1);
        CHECK(device == estimate);
    }

    TEST_CASE("cuda-sim tiled conv2d equals cpu-scalar for odd sizes and kernels") {
        check_tiled_backend(*sim::make_cuda_sim_backend());
    }

    TEST_CASE("cuda-kernel tiled conv2d equals cpu-scalar for odd sizes and kernels") {
        if (!gpu_ready()) return;
        core::BackendList list = all_gpu_backends();
        core::Backend* b = find_backend(list, "cuda-kernel");
        REQUIRE(b != nullptr);
        check_tiled_backend(*b);
    }

    TEST_CASE("cuda-sim-naive conv2d equals cpu-scalar for odd sizes and kernels") {
        check_naive_backend(*sim::make_cuda_sim_naive_backend());
    }

    TEST_CASE("cuda-naive conv2d equals cpu-scalar for odd sizes and kernels") {
        if (!gpu_ready()) return;
        core::BackendList list = all_gpu_backends();
        core::Backend* b = find_backend(list, "cuda-naive");
        REQUIRE(b != nullptr);
        check_naive_backend(*b);
    }

    TEST_CASE("cudnn conv2d equals cpu-scalar and names its algorithm") {
        if (!gpu_ready()) return;
        if (!gpu::probe().cudnn_ok) {
            std::cout << "SKIPPED: cuDNN not usable (" << gpu::probe().cudnn_reason << ")\n";
            return;
        }
        core::BackendList list = all_gpu_backends();
        core::Backend* b = find_backend(list, "cudnn");
        REQUIRE(b != nullptr);
        REQUIRE_MESSAGE(b->availability().ok, b->availability().reason);
        const core::Conv2dDesc unseen = make_desc(1, 1, 9, 11, 1, 3, core::Padding::Zero, 1);
        CHECK(b->conv2d_implementation(unseen).empty());  // nothing chosen before a run of that shape
        check_conv_equals_reference(*b, kCudnnTolerance);
        const std::string impl = b->conv2d_implementation(make_desc(1, 1, 33, 65, 1, 3, core::Padding::Zero, 1));
        CHECK(impl.find("CUDNN_CONVOLUTION_FWD_ALGO_") == 0);
        std::cout << "cudnn conv2d 33x65 3x3: " << impl << "\n";
    }

    TEST_CASE("the lesson's per-channel run matches cpu-scalar on cuda-sim") {
        const auto sim_tiled = sim::make_cuda_sim_backend();
        const auto sim_naive = sim::make_cuda_sim_naive_backend();
        check_per_channel_run({sim_tiled.get(), sim_naive.get()});
    }

    TEST_CASE("the lesson's per-channel run matches cpu-scalar on every GPU backend") {
        if (!gpu_ready()) return;
        core::BackendList gpus = all_gpu_backends();
        std::vector<core::Backend*> backends;
        for (auto& b : gpus) backends.push_back(b.get());
        check_per_channel_run(backends);
    }

    TEST_CASE("cuda-sim refuses convolution shapes that do not fit with a message") {
        for (const auto& b : {sim::make_cuda_sim_backend(), sim::make_cuda_sim_naive_backend()}) {
            CAPTURE(std::string(b->name()));
            check_conv_refusals(*b);
            CHECK_FALSE(b->supports_conv2d(make_desc(1, 1, 64, 64, 1, 17, core::Padding::Zero, 1)));
        }
    }

    TEST_CASE("GPU conv2d refuses shapes that do not fit with a message before allocating") {
        if (!gpu_ready()) return;
        core::BackendList list = all_gpu_backends();
        for (auto& b : list) {
            if (!b->availability().ok) continue;
            CAPTURE(std::string(b->name()));
            const core::Availability av = b->can_allocate(gpu::probe().total_memory * 4);
            CHECK_FALSE(av.ok);
            CHECK(av.reason.find("GPU memory") != std::string::npos);

            check_conv_refusals(*b);
        }
        core::Backend* k = find_backend(list, "cuda-kernel");
        REQUIRE(k != nullptr);
        const core::Conv2dDesc too_wide = make_desc(1, 1, 64, 64, 1, 17, core::Padding::Zero, 1);
        CHECK_FALSE(k->supports_conv2d(too_wide));
        CHECK(k->conv2d_implementation(too_wide).empty());
    }
}

TEST_SUITE("backends") {
    TEST_CASE("cuda-naive is listed and GPU conv2d fails softly without a device") {
        core::BackendList extra = gpu::make_conv2d_extra_backends();
        REQUIRE(extra.size() == 1);
        CHECK(extra[0]->name() == "cuda-naive");
        CHECK(extra[0]->kind() == core::BackendKind::Gpu);
        CHECK_FALSE(extra[0]->description().empty());

        core::BackendList list = all_gpu_backends();
        const core::Conv2dDesc d = make_desc(1, 1, 8, 8, 1, 3, core::Padding::Zero, 1);
        const core::Tensor in = random_tensor({8, 8}, 3);
        const core::Tensor filters = random_tensor({3, 3}, 4);
        for (auto& b : list) {
            CAPTURE(std::string(b->name()));
            if (b->availability().ok) continue;  // a GPU machine: the gpu suite covers the working path
            core::Tensor out = core::Tensor::zeros({8, 8});
            core::RunResult r;
            CHECK_NOTHROW(r = b->run_conv2d(d, in, filters, out));
            CHECK_FALSE(r.ok);
            CHECK_FALSE(r.error.empty());
            CHECK_NOTHROW(b->conv2d_implementation(d));
        }
    }
}
