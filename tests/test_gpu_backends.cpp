// The GPU backends against the reference: cuda-kernel and cudnn must give cpu-scalar's answer.
// The kernel's correctness bodies also run on cuda-sim, the same kernel source on the SIMT
// simulator, on every machine (kernels/sim/cuda_sim_backend.h): those cases are never skipped.
//
// "gpu" suite: needs a CUDA device; without one each test prints
//   SKIPPED: no CUDA device (<probe reason, verbatim>)   or   SKIPPED: CUDA not compiled in
// and returns, which CTest reports as skipped (SKIP_REGULAR_EXPRESSION in tests/CMakeLists.txt).
// The gpu suite also runs NaN, the infinities and the float extremes through every backend (the
// NaN policy of core/ops/hd_math.h; cudnn's CUDNN_PROPAGATE_NAN), and 2^26 + 5 elements followed by 33
// (cuDNN's descriptor at the size TARGETS.md measures, and buffers reused after growing).
// "backends" suite: runs on every machine: the GPU backends are always listed, and when they
// cannot run they say why and fail softly instead of throwing.
//
// Tolerances (pass when |gpu - ref| <= abs + rel * |ref| for every element):
//   relu, leaky ReLU   abs 1e-6, rel 1e-5: a compare or one multiply, identical on both sides.
//   sigmoid, tanh, GELU, cuda-kernel   abs 2e-6, rel 1e-5: the same formula (core/ops/hd_math.h), but
//       CUDA's expf/tanhf are accurate to 2 ulp and glibc's to about 1, and nvcc may fuse the
//       GELU cubic into an FMA; near 1.0 a few ulp is ~2.4e-7, well inside 2e-6.
//   sigmoid, tanh, cudnn   abs 5e-6, rel 1e-5: cuDNN uses its own formulas (not ours), documented
//       only as "float accuracy"; 5e-6 on outputs of magnitude <= 1 still catches any wrong value.
#include <doctest/doctest.h>

#include <cstdint>
#include <iostream>
#include <iterator>
#include <limits>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "ops/tensor_compare.h"
#include "backends/cpu_scalar.h"
#include "sim/cuda_sim_backend.h"
#include "interop/gl_interop.h"
#include "gpu_backends.h"
#include "gpu_test_support.h"
#include "gpu_testing.h"
#include "ops/op_desc.h"
#include "ops/tensor.h"

using namespace gpulab;
using testing::find_backend;
using testing::gpu_ready;
using testing::is_simulated;

namespace {

// Deterministic values in about [-8, 8] from a 32-bit LCG, with exact zero, -0 and large
// magnitudes at the start so both sides of every branch and the saturated ends are covered.
core::Tensor make_input(int64_t n) {
    core::Tensor t = core::Tensor::zeros({n});
    const float specials[] = {0.0f, -0.0f, -100.0f, 100.0f, -1e-3f, 1e-3f, -3.0f, 3.0f};
    uint32_t state = 12345u + static_cast<uint32_t>(n);
    for (int64_t i = 0; i < n; ++i) {
        state = state * 1664525u + 1013904223u;
        const float u = static_cast<float>(state >> 8) / static_cast<float>(1u << 24);  // [0, 1)
        t.data[static_cast<std::size_t>(i)] = i < 8 ? specials[i] : 16.0f * u - 8.0f;
    }
    return t;
}

core::Tensor reference_of(const core::OpDesc& op, const core::Tensor& in) {
    core::Tensor out = core::Tensor::zeros(in.shape);
    cpu::activation_reference(op, in.ptr(), out.ptr(), in.size());
    return out;
}

bool is_piecewise_linear(core::Activation a) {
    return a == core::Activation::Relu || a == core::Activation::LeakyRelu;
}

core::Tolerance kernel_tolerance(core::Activation a) {
    return is_piecewise_linear(a) ? core::Tolerance{1e-6, 1e-5} : core::Tolerance{2e-6, 1e-5};
}

core::Tolerance cudnn_tolerance(core::Activation a) {
    return is_piecewise_linear(a) ? core::Tolerance{1e-6, 1e-5} : core::Tolerance{5e-6, 1e-5};
}

const int64_t kSizes[] = {1, 31, 33, 1000, (int64_t{1} << 20) + 7};
constexpr int64_t kLargeSize = (int64_t{1} << 20) + 7;

core::OpDesc op_for(core::Activation a) {
    core::OpDesc op;
    op.activation = a;
    op.leaky_alpha = 0.01f;
    return op;
}

void check_equal_to_reference(core::Backend& b, core::Activation a, core::Tolerance tol) {
    const core::OpDesc op = op_for(a);
    for (int64_t n : kSizes) {
        CAPTURE(n);
        CAPTURE(std::string(core::activation_name(a)));
        const core::Tensor in = make_input(n);
        core::Tensor out = core::Tensor::zeros(in.shape);
        const core::RunResult r = b.run(op, in, out);
        REQUIRE_MESSAGE(r.ok, r.error);
        const core::Comparison c = core::compare(reference_of(op, in), out, tol);
        CHECK_MESSAGE(c.pass, c.verdict);
        // Events have ~0.5 us resolution; at 2^20 floats (4 MiB each way) every phase is tens of
        // microseconds. Tiny arrays only promise a positive total.
        CHECK(r.t.upload_ns >= 0);
        CHECK(r.t.compute_ns >= 0);
        CHECK(r.t.download_ns >= 0);
        CHECK(r.t.total_ns() > 0);
        CHECK(r.t.launch_ns > 0);  // host clock around the enqueue; every size here launches work
        if (n == kLargeSize) {
            CHECK(r.t.upload_ns > 0);
            CHECK(r.t.compute_ns > 0);
            CHECK(r.t.download_ns > 0);
        }
        if (!is_simulated(b)) CHECK(b.device_output() != nullptr);
    }
}

// NaN, the infinities, the largest finite values, -0 and a denormal, repeated past 33 elements so
// they land in the scalar head, the float4 body and the tail. The NaN policy (core/ops/hd_math.h) is
// NaN in, NaN out; cudnn gets the same policy from CUDNN_PROPAGATE_NAN.
core::Tensor make_special_input() {
    constexpr float kInf = std::numeric_limits<float>::infinity();
    const float specials[] = {std::numeric_limits<float>::quiet_NaN(), kInf, -kInf,
                              std::numeric_limits<float>::max(), -std::numeric_limits<float>::max(), -0.0f,
                              std::numeric_limits<float>::denorm_min(), 1.0f};
    core::Tensor t = core::Tensor::zeros({37});
    for (std::size_t i = 0; i < t.data.size(); ++i) t.data[i] = specials[i % std::size(specials)];
    return t;
}

// One large run (past 2^26 elements, the size TARGETS.md measures at, with an odd tail) and then a
// small one that reuses the grown buffers.
void check_large_then_small(core::Backend& b, core::Activation a, core::Tolerance tol) {
    const core::OpDesc op = op_for(a);
    for (int64_t n : {(int64_t{1} << 26) + 5, int64_t{33}}) {
        CAPTURE(n);
        CAPTURE(std::string(core::activation_name(a)));
        const core::Tensor in = make_input(n);
        core::Tensor out = core::Tensor::zeros(in.shape);
        const core::RunResult r = b.run(op, in, out);
        REQUIRE_MESSAGE(r.ok, r.error);
        const core::Comparison c = core::compare(reference_of(op, in), out, tol);
        CHECK_MESSAGE(c.pass, c.verdict);
        CHECK(r.t.compute_ns > 0);
    }
}

void check_every_activation(core::Backend& b) {
    REQUIRE_MESSAGE(b.availability().ok, b.availability().reason);
    for (core::Activation a : core::kAllActivations) {
        CHECK(b.supports(op_for(a)));
        check_equal_to_reference(b, a, kernel_tolerance(a));
    }
}

using RunAtOffsets = core::RunResult (*)(const core::OpDesc&, const core::Tensor&, core::Tensor&, int, int);

// (in, out) offsets in floats past a 256-byte boundary: in step (one head aligns both), out of step
// (the all-scalar path), and zero.
void check_offsets(RunAtOffsets run_at_offsets) {
    const int offsets[][2] = {{0, 0}, {1, 1}, {2, 2}, {3, 3}, {1, 0}, {0, 3}, {2, 1}, {4, 8}};
    const int64_t sizes[] = {1, 2, 3, 4, 5, 7, 8, 33, 1000};
    for (core::Activation a : {core::Activation::Relu, core::Activation::Gelu}) {
        const core::OpDesc op = op_for(a);
        for (const auto& off : offsets) {
            for (int64_t n : sizes) {
                CAPTURE(n);
                CAPTURE(off[0]);
                CAPTURE(off[1]);
                const core::Tensor in = make_input(n);
                core::Tensor out = core::Tensor::zeros(in.shape);
                const core::RunResult r = run_at_offsets(op, in, out, off[0], off[1]);
                REQUIRE_MESSAGE(r.ok, r.error);
                const core::Comparison c = core::compare(reference_of(op, in), out, kernel_tolerance(a));
                CHECK_MESSAGE(c.pass, c.verdict);
            }
        }
    }
}

// NaN in gives NaN out, the infinities map to the limits, for every activation `b` offers.
void check_special_values(core::Backend& b) {
    const core::Tensor in = make_special_input();
    for (core::Activation a : core::kAllActivations) {
        const core::OpDesc op = op_for(a);
        if (!b.supports(op)) continue;
        CAPTURE(std::string(b.name()));
        CAPTURE(std::string(core::activation_name(a)));
        core::Tensor out = core::Tensor::zeros(in.shape);
        const core::RunResult r = b.run(op, in, out);
        REQUIRE_MESSAGE(r.ok, r.error);
        const core::Tolerance tol = b.name() == "cudnn" ? cudnn_tolerance(a) : kernel_tolerance(a);
        const core::Comparison c = core::compare(reference_of(op, in), out, tol);
        CHECK_MESSAGE(c.pass, c.verdict);
    }
}

}  // namespace

TEST_SUITE("gpu") {
    TEST_CASE("cuda-sim equals cpu-scalar for every activation and awkward sizes") {
        check_every_activation(*sim::make_cuda_sim_backend());
    }

    TEST_CASE("cuda-kernel equals cpu-scalar for every activation and awkward sizes") {
        if (!gpu_ready()) return;
        core::BackendList list = gpu::make_backends();
        core::Backend* b = find_backend(list, "cuda-kernel");
        REQUIRE(b != nullptr);
        check_every_activation(*b);
    }

    TEST_CASE("cuda-sim head and float4 body and tail at misaligned offsets") {
        check_offsets(sim::run_activation_at_offsets);
    }

    TEST_CASE("cuda-kernel head and float4 body and tail at misaligned offsets") {
        if (!gpu_ready()) return;
        check_offsets(gpu::run_activation_at_offsets);
    }

    TEST_CASE("cudnn equals cpu-scalar where it offers the activation and refuses the rest") {
        if (!gpu_ready()) return;
        core::BackendList list = gpu::make_backends();
        core::Backend* b = find_backend(list, "cudnn");
        REQUIRE(b != nullptr);
        if (!gpu::probe().cudnn_ok) {
            std::cout << "SKIPPED: cuDNN not usable (" << gpu::probe().cudnn_reason << ")\n";
            return;
        }
        REQUIRE_MESSAGE(b->availability().ok, b->availability().reason);
        for (core::Activation a : {core::Activation::Relu, core::Activation::Sigmoid, core::Activation::Tanh}) {
            CHECK(b->supports(op_for(a)));
            check_equal_to_reference(*b, a, cudnn_tolerance(a));
        }
        for (core::Activation a : {core::Activation::LeakyRelu, core::Activation::Gelu}) {
            CAPTURE(std::string(core::activation_name(a)));
            CHECK_FALSE(b->supports(op_for(a)));
            const core::Tensor in = make_input(33);
            core::Tensor out = core::Tensor::zeros(in.shape);
            const core::RunResult r = b->run(op_for(a), in, out);
            CHECK_FALSE(r.ok);
            CHECK_FALSE(r.error.empty());
        }
    }

    TEST_CASE("cuda-sim follows the NaN policy and maps infinities to the limits") {
        check_special_values(*sim::make_cuda_sim_backend());
    }

    TEST_CASE("GPU backends follow the NaN policy and map infinities to the limits") {
        if (!gpu_ready()) return;
        core::BackendList list = gpu::make_backends();
        for (auto& b : list) {
            if (b->availability().ok) check_special_values(*b);
        }
    }

    TEST_CASE("cuda-sim is right past 2^26 elements and after shrinking again") {
        // ReLU only: the point is the kernel's 64-bit indexing and grid-stride loop at the size
        // TARGETS.md measures (about a second of simulation); the formulas are covered above.
        const auto b = sim::make_cuda_sim_backend();
        // Input, output, the reference and the simulator's two buffers.
        if (!b->can_allocate(5 * ((std::size_t{1} << 26) + 5) * sizeof(float)).ok) {
            std::cout << "SKIPPED: no room in host memory for 5 x 2^26 floats\n";
            return;
        }
        check_large_then_small(*b, core::Activation::Relu, kernel_tolerance(core::Activation::Relu));
    }

    TEST_CASE("GPU backends are right past 2^26 elements and after shrinking again") {
        if (!gpu_ready()) return;
        core::BackendList list = gpu::make_backends();
        for (auto& b : list) {
            if (!b->availability().ok) continue;
            CAPTURE(std::string(b->name()));
            if (!b->can_allocate(2 * ((std::size_t{1} << 26) + 5) * sizeof(float)).ok) {
                std::cout << "SKIPPED: " << b->name() << " has no room for 2^26 floats\n";
                continue;
            }
            const bool cudnn = b->name() == "cudnn";
            check_large_then_small(*b, core::Activation::Relu, cudnn ? cudnn_tolerance(core::Activation::Relu)
                                                                     : kernel_tolerance(core::Activation::Relu));
            check_large_then_small(*b, core::Activation::Sigmoid,
                                   cudnn ? cudnn_tolerance(core::Activation::Sigmoid)
                                         : kernel_tolerance(core::Activation::Sigmoid));
            // Nothing above was a sticky error, so the backend must still call itself usable.
            CHECK_MESSAGE(b->availability().ok, b->availability().reason);
        }
    }

    TEST_CASE("GPU backends measure their D2D copy limit") {
        if (!gpu_ready()) return;
        core::BackendList list = gpu::make_backends();
        for (auto& b : list) {
            if (!b->availability().ok) continue;
            CAPTURE(std::string(b->name()));
            const core::LimitResult l = b->bandwidth_limit(std::size_t{64} << 20);
            CHECK_MESSAGE(l.ok, l.error);
            CHECK(l.name == "D2D copy");
            CHECK(l.gbps > 0.0);
        }
    }

    TEST_CASE("GPU backends refuse what does not fit with a message before allocating") {
        if (!gpu_ready()) return;
        core::BackendList list = gpu::make_backends();
        core::Backend* b = find_backend(list, "cuda-kernel");
        REQUIRE(b != nullptr);
        const core::Availability av = b->can_allocate(gpu::probe().total_memory * 4);
        CHECK_FALSE(av.ok);
        CHECK(av.reason.find("GPU memory") != std::string::npos);
        CHECK(b->can_allocate(std::size_t{1} << 20).ok);

        const core::Tensor in = make_input(100);
        core::Tensor wrong = core::Tensor::zeros({99});
        const core::RunResult r = b->run(op_for(core::Activation::Relu), in, wrong);
        CHECK_FALSE(r.ok);
        CHECK_FALSE(r.error.empty());

        core::Tensor empty_in = core::Tensor::zeros({0});
        core::Tensor empty_out = core::Tensor::zeros({0});
        CHECK(b->run(op_for(core::Activation::Relu), empty_in, empty_out).ok);
    }

    TEST_CASE("interop round trip needs a GL context") {
        if (!gpu_ready()) return;
        // The app's tests own GL contexts (EGL offscreen) and drive register/copy/read-back there.
        std::cout << "SKIPPED: interop round trip needs a current GL context; the app's interop test covers it\n";
    }
}

TEST_SUITE("backends") {
    TEST_CASE("the GPU backends are always listed and fail softly when they cannot run") {
        core::BackendList list = gpu::make_backends();
        REQUIRE(list.size() == 2);
        CHECK(list[0]->name() == "cuda-kernel");
        CHECK(list[1]->name() == "cudnn");
        for (auto& b : list) {
            CAPTURE(std::string(b->name()));
            CHECK(b->kind() == core::BackendKind::Gpu);
            CHECK_FALSE(b->description().empty());
            const core::Availability av = b->availability();
            if (av.ok) continue;  // a GPU machine: the gpu suite covers the working path
            CHECK_FALSE(av.reason.empty());
            const core::Tensor in = make_input(16);
            core::Tensor out = core::Tensor::zeros(in.shape);
            core::RunResult r;
            CHECK_NOTHROW(r = b->run(op_for(core::Activation::Relu), in, out));
            CHECK_FALSE(r.ok);
            CHECK(r.error == av.reason);
            CHECK_FALSE(b->can_allocate(1024).ok);
            const core::LimitResult l = b->bandwidth_limit(1 << 20);
            CHECK_FALSE(l.ok);
            CHECK_FALSE(l.error.empty());
            CHECK(b->device_output() == nullptr);
        }
    }

    TEST_CASE("the non-blocking probe answers before and after probe()") {
        // Each test case runs in a fresh process (doctest_discover_tests), so nothing has probed yet:
        // in the CUDA build probe_now() is the placeholder, in the CPU-only build the real answer.
        const bool early_ready = gpu::probe_ready();
        const gpu::GpuProbe& early = gpu::probe_now();
        if (!early_ready) {
            CHECK(early.reason == gpu::kProbing);
            CHECK_FALSE(early.device_ok);
            CHECK_FALSE(early.cudnn_ok);
        }
        const gpu::GpuProbe& p = gpu::probe();
        CHECK(gpu::probe_ready());
        CHECK(&gpu::probe_now() == &p);
        if (!p.device_ok) CHECK(gpu::conv2d_tiled_blocks_per_sm(3, 1) == 0);
    }

    TEST_CASE("probe and version summary explain themselves") {
        const gpu::GpuProbe& p = gpu::probe();
        CHECK(&p == &gpu::probe());  // cached: the same object every call
        CHECK_FALSE(p.reason.empty());
        CHECK_FALSE(gpu::version_summary().empty());
        if (!p.device_ok) {
            CHECK_FALSE(p.cudnn_ok);
            CHECK_FALSE(p.cudnn_reason.empty());
        }
    }

    TEST_CASE("interop without a GL context is a reason and not a crash") {
        const gpu::InteropCheck c = gpu::check_gl_interop();
        CHECK_FALSE(c.ok);
        CHECK(c.reason.rfind("host upload: ", 0) == 0);
        std::string why;
        CHECK(gpu::register_gl_texture(0, 16, 16, why) == nullptr);
        CHECK_FALSE(why.empty());
    }
}
