// `gpulab apply matmul --a A.npy --b B.npy --output C.npy [--precision fp32|tf32|bf16|fp16]
// [--accumulate fp32|tf32|bf16|fp16] [--backend cpu-scalar|cpu-parallel|cpu-onednn|cuda-sim|cuda-kernel]`:
// C = A x B with the
// inputs rounded to --precision (round to nearest even, core/ops/fp_formats.h) and the running sum
// kept in --accumulate, so the result can be checked against NumPy or PyTorch. A and B are 2-D
// float32 .npy files (other dtypes NumPy writes are converted), row-major; C is float32 (m, n).
//
// Backends: cpu-scalar runs every combination (core::matmul_reduced, k from 0 upwards); cpu-parallel
// (our threaded FP32 GEMM, and our BF16 kernels on AMX tiles or VDPBF16PS, core/backends/simd/gemm_bf16.h)
// and cpu-onednn (oneDNN's matmul) run FP32 or BF16 inputs with FP32 accumulation; cuda-sim (the
// tensor-core kernel on the SIMT simulator) and cuda-kernel (the same kernel on a GPU) run FP16 or
// BF16 inputs with FP32 accumulation, the mma.sync instruction the kernel is built on; any other
// combination or backend is refused with one sentence. After the product, the result is
// compared with the FP64 product of the unrounded inputs and the error printed beside the bound
// the formats predict (core::matmul_error_bound). NaN and infinity in the inputs, and inputs past
// the format's largest number (infinity in FP16), are said in a note and propagate as IEEE
// arithmetic makes them. Usage problems exit 2, file and size problems 1, each with one line.
// Verified by tests/cli_tests.cmake (apply_matmul_* cases) and tests/test_mixed_matmul.cpp.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "backends/cpu_onednn_matmul.h"
#include "backends/simd/gemm_bf16.h"
#include "cli.h"
#include "cli_apply_common.h"
#include "gpu_backends.h"
#include "io/image_io.h"
#include "measure/clock.h"
#include "measure/format.h"
#include "ops/mixed_matmul.h"
#include "runtime/memory.h"
#include "shell/backend_set.h"
#include "sim/sim_kernels.h"
#include "tensor/tensor_gemm.h"

namespace gpulab::app {

namespace {

// Multiply-adds each backend does in seconds on a 2-core box (measured: cpu-scalar ~0.9 G/s with an
// FP32 sum, ~0.08 G/s with a narrow one, which rounds every step in software; cuda-sim ~0.5 G/s).
// Past these a run would take minutes: refused with a sentence instead.
constexpr double kMaxFmaFp32Sum = 8589934592.0;  // 2^33
constexpr double kMaxFmaNarrowSum = 1073741824.0;  // 2^30
constexpr double kMaxFmaSim = 4294967296.0;  // 2^32
constexpr double kMaxFmaGpu = 1099511627776.0;  // 2^40: memory runs out first
// cpu-parallel and cpu-onednn: ~50-300 G/s in FP32 on 2 cores, several times that in BF16 with AMX.
constexpr double kMaxFmaCpuFast = 137438953472.0;  // 2^37
// Past this the FP64 comparison (as long again as cpu-scalar's product) is skipped, with a note.
constexpr double kMaxCompared = 2147483648.0;  // 2^31

std::string dims(int64_t rows, int64_t cols) { return std::to_string(rows) + " x " + std::to_string(cols); }

struct Specials {
    int64_t nan = 0, inf = 0, overflow = 0;  // overflow: finite floats that become infinity in the format
};

Specials count_specials(const core::Tensor& t, core::FpFormat f) {
    Specials s;
    for (float x : t.data) {
        if (std::isnan(x)) ++s.nan;
        else if (std::isinf(x)) ++s.inf;
        else if (std::isinf(core::round_to(f, x))) ++s.overflow;
    }
    return s;
}

// cpu-parallel or cpu-onednn, FP32 or BF16 inputs (checked by the caller): "" or why it failed;
// `timing` says what ran and how long the call took (one run, its set-up included: packing, rounding,
// oneDNN building its kernel).
std::string run_cpu_matmul(const std::string& backend, core::FpFormat inputs, const core::Tensor& a,
                           const core::Tensor& b, core::Tensor& c, int64_t m, int64_t n, int64_t k, std::string& timing) {
    const int64_t t0 = core::now_ns();
    std::string path;
    if (backend == "cpu-parallel") {
        if (inputs == core::FpFormat::Fp32) {
            cpu::gemm_fp32_parallel(a.ptr(), b.ptr(), c.ptr(), m, n, k);
            path = "our FP32 GEMM";
        } else {
            if (!cpu::gemm_bf16(a.ptr(), b.ptr(), c.ptr(), m, n, k)) return cpu::gemm_bf16_availability().reason;
            path = "our BF16 kernel, " + cpu::gemm_bf16_availability().reason;
        }
    } else {
        cpu::OnednnMatmul mm(inputs, m, n, k);
        if (!mm.availability().ok) return mm.availability().reason;
        std::string error;
        if (inputs == core::FpFormat::Bf16) {
            // oneDNN takes BF16 bits: rounded here, the same rounding as every other backend's.
            std::vector<uint16_t> a16(a.data.size()), b16(b.data.size());
            cpu::round_to_bf16_bits(a.ptr(), a16.data(), static_cast<int64_t>(a16.size()));
            cpu::round_to_bf16_bits(b.ptr(), b16.data(), static_cast<int64_t>(b16.size()));
            error = mm.run(a16.data(), b16.data(), c.ptr());
        } else {
            error = mm.run(a.ptr(), b.ptr(), c.ptr());
        }
        if (!error.empty()) return error;
        path = mm.path();
    }
    timing = path + ": " + core::format_duration(core::now_ns() - t0) +
             " (one run with its set-up, no warm-up: `gpulab bench --suite tensor` times it properly)";
    return "";
}

}  // namespace

int cmd_apply_matmul(const ApplyOptions& o) {
    // [SECTION] flags first: nothing is read before they all make sense
    if (!o.input.empty()) return apply_usage_error("apply matmul reads two matrices: give --a A.npy and --b B.npy, not --input");
    if (o.a_path.empty() || o.b_path.empty()) return apply_usage_error("apply matmul needs both --a A.npy and --b B.npy");
    if (!has_npy_extension(o.a_path) || !has_npy_extension(o.b_path))
        return apply_usage_error("--a and --b must be .npy files (2-D float32), got '" + (has_npy_extension(o.a_path) ? o.b_path : o.a_path) + "'");
    if (!has_npy_extension(o.output)) return apply_usage_error("--output must be a .npy file, got '" + o.output + "'");
    const auto precision = core::parse_format(o.precision);
    if (!precision) return apply_usage_error("--precision must be fp32, tf32, bf16 or fp16, got '" + o.precision + "'");
    const auto accumulate = core::parse_format(o.accumulate);
    if (!accumulate) return apply_usage_error("--accumulate must be fp32, tf32, bf16 or fp16, got '" + o.accumulate + "'");
    const core::MatmulPrecision p{*precision, *accumulate};
    // Without --backend: cpu-scalar, the one that runs every combination.
    const std::string backend = o.backend_given ? o.backend : "cpu-scalar";
    const bool tensor_kernel = backend == "cuda-sim" || backend == "cuda-kernel";
    const bool cpu_fast = backend == "cpu-parallel" || backend == "cpu-onednn";
    if (!tensor_kernel && !cpu_fast && backend != "cpu-scalar") {
        std::string names;
        for (const auto& b : make_all_backends()) names += (names.empty() ? "" : ", ") + std::string(b->name());
        if (names.find(backend) == std::string::npos)
            return apply_usage_error("unknown backend '" + backend + "' (expected one of: " + names + ")");
        return apply_failure("backend " + backend + " has no matrix product: use cpu-scalar (every precision), "
                             "cpu-parallel or cpu-onednn (FP32 or BF16 inputs, FP32 accumulation), cuda-sim or "
                             "cuda-kernel (the tensor-core kernel: FP16 or BF16 inputs, FP32 accumulation)");
    }
    if (tensor_kernel && ((p.inputs != core::FpFormat::Fp16 && p.inputs != core::FpFormat::Bf16) ||
                          p.accumulate != core::FpFormat::Fp32)) {
        return apply_failure(backend + " runs the mma.sync tensor-core kernel, which is built for FP16 or BF16 inputs with "
                       "FP32 accumulation, not " + core::precision_label(p) + ": use --backend cpu-scalar for that");
    }
    if (cpu_fast && ((p.inputs != core::FpFormat::Fp32 && p.inputs != core::FpFormat::Bf16) ||
                     p.accumulate != core::FpFormat::Fp32)) {
        return apply_failure(backend + " multiplies FP32 numbers, or BF16 ones with FP32 sums where the CPU has an "
                             "instruction for them, not " + core::precision_label(p) +
                             ": use --backend cpu-scalar for that");
    }
    if (backend == "cpu-parallel" && p.inputs == core::FpFormat::Bf16) {
        if (const core::Availability av = cpu::gemm_bf16_availability(); !av.ok)
            return apply_failure("cpu-parallel cannot multiply BF16 here: " + av.reason);
    }
    if (backend == "cuda-kernel") {
        const gpu::GpuProbe& g = gpu::probe();
        if (!g.device_ok) return apply_failure("backend cuda-kernel is not available: " + g.reason);
    }

    // [SECTION] files and sizes
    try {
        const core::Tensor a = core::read_npy(o.a_path);
        const core::Tensor b = core::read_npy(o.b_path);
        if (a.shape.size() != 2) return apply_failure(o.a_path + ": matmul needs a 2-D matrix, got shape " + a.shape_string());
        if (b.shape.size() != 2) return apply_failure(o.b_path + ": matmul needs a 2-D matrix, got shape " + b.shape_string());
        const int64_t m = a.shape[0], k = a.shape[1], n = b.shape[1];
        if (b.shape[0] != k)
            return apply_failure("A is " + dims(m, k) + " and B is " + dims(b.shape[0], n) + ": A's columns (" +
                           std::to_string(k) + ") must equal B's rows (" + std::to_string(b.shape[0]) + ")");
        if (m == 0 || n == 0 || k == 0)
            return apply_failure("A is " + dims(m, k) + " and B is " + dims(b.shape[0], n) + ": an empty matrix has no product");
        const double fmas = static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
        const double limit = backend == "cuda-sim"    ? kMaxFmaSim
                             : backend == "cuda-kernel" ? kMaxFmaGpu
                             : cpu_fast                 ? kMaxFmaCpuFast
                             : p.accumulate == core::FpFormat::Fp32 ? kMaxFmaFp32Sum
                                                                    : kMaxFmaNarrowSum;
        if (fmas > limit) {
            return apply_failure("A (" + dims(m, k) + ") times B (" + dims(k, n) + ") is " + core::format_count(static_cast<int64_t>(fmas)) +
                           " multiply-adds, which would take minutes on " + backend + "; it takes up to " +
                           core::format_count(static_cast<int64_t>(limit)) + " (seconds)");
        }
        if (tensor_kernel) {
            if (const std::string why = kern::mma_gemm_problem(m, n, k); !why.empty()) return apply_failure(why);
        }
        const core::Availability fits =
            core::check_host_allocation(static_cast<std::size_t>(m * n) * (sizeof(float) + sizeof(double)));
        if (!fits.ok) return apply_failure(o.output + ": " + fits.reason);

        // [SECTION] the product
        core::Tensor c = core::Tensor::zeros({m, n});
        std::string timing;
        if (backend == "cpu-scalar") {
            core::matmul_reduced(a.ptr(), b.ptr(), c.ptr(), m, n, k, p);
        } else if (cpu_fast) {
            if (std::string why = run_cpu_matmul(backend, p.inputs, a, b, c, m, n, k, timing); !why.empty())
                return apply_failure(backend + " failed: " + why);
        } else if (backend == "cuda-sim") {
            const kern::MmaInput in = p.inputs == core::FpFormat::Fp16 ? kern::MmaInput::Fp16 : kern::MmaInput::Bf16;
            // The tiled kernel, as cuda-kernel runs it on a GPU (the same sums either way).
            const sim::Result r = sim::run_mma_gemm(in, a.ptr(), b.ptr(), nullptr, c.ptr(), m, n, k, {}, kern::MmaKernel::Tiled);
            if (!r.ok) return apply_failure("cuda-sim failed: " + r.error);
            timing = "simulated in " + core::format_duration(r.stats.wall_ns) +
                     " (the simulator's time on this CPU, never a GPU time)";
        } else {
            const kern::MmaInput in = p.inputs == core::FpFormat::Fp16 ? kern::MmaInput::Fp16 : kern::MmaInput::Bf16;
            const gpu::MmaGemmRun r = gpu::run_mma_gemm(in, a.ptr(), b.ptr(), c.ptr(), m, n, k);
            if (!r.ok) return apply_failure("cuda-kernel failed: " + r.error);
            timing = "kernel " + core::format_duration(r.kernel_ns) + " (CUDA events, one run, no warm-up)";
        }
        core::write_npy(o.output, c);
        std::printf("%s x %s: %s x %s -> %s %s, %s on %s\n", o.a_path.c_str(), o.b_path.c_str(),
                    a.shape_string().c_str(), b.shape_string().c_str(), o.output.c_str(), c.shape_string().c_str(),
                    core::precision_label(p).c_str(), backend.c_str());
        if (!timing.empty()) std::printf("  %s\n", timing.c_str());

        // [SECTION] what was special, and how far from FP64
        const Specials sa = count_specials(a, p.inputs), sb = count_specials(b, p.inputs);
        if (sa.nan + sa.inf + sb.nan + sb.inf > 0)
            std::printf("  note: the inputs hold %lld NaN and %lld infinite values; they propagate as IEEE arithmetic makes them\n",
                        static_cast<long long>(sa.nan + sb.nan), static_cast<long long>(sa.inf + sb.inf));
        if (const int64_t over_range = sa.overflow + sb.overflow; over_range > 0)
            std::printf("  note: %lld %s beyond %s's largest number (%s) and became infinity\n",
                        static_cast<long long>(over_range), over_range == 1 ? "input lies" : "inputs lie",
                        core::format_label(p.inputs),
                        core::format_count(static_cast<int64_t>(core::format_range(p.inputs).max_finite)).c_str());
        if (fmas > kMaxCompared) {
            std::printf("  not compared with FP64: over %s multiply-adds\n",
                        core::format_count(static_cast<int64_t>(kMaxCompared)).c_str());
            return kExitOk;
        }
        std::vector<double> ref(static_cast<std::size_t>(m * n));
        core::matmul_fp64(a.ptr(), b.ptr(), ref.data(), m, n, k);
        double worst_error = 0, worst_bound = 0, worst_ratio = 0;
        int64_t compared = 0, over = 0;
        for (int64_t i = 0; i < m; ++i) {
            for (int64_t j = 0; j < n; ++j) {
                const double got = c.data[static_cast<std::size_t>(i * n + j)], want = ref[static_cast<std::size_t>(i * n + j)];
                if (!std::isfinite(got) || !std::isfinite(want)) continue;
                double sum_abs = 0, sum_inputs = 0;
                for (int64_t kk = 0; kk < k; ++kk) {
                    const double x = std::fabs(a.data[static_cast<std::size_t>(i * k + kk)]);
                    const double y = std::fabs(b.data[static_cast<std::size_t>(kk * n + j)]);
                    sum_abs += x * y;
                    sum_inputs += x + y;
                }
                // The FP64 reference's own rounding is counted in, so the bound holds strictly.
                const double bound = core::matmul_error_bound(p, k, sum_abs, sum_inputs) +
                                     1.2 * static_cast<double>(k) * std::ldexp(sum_abs, -53);
                const double err = std::fabs(got - want);
                ++compared;
                if (err > bound) ++over;
                const double ratio = bound > 0 ? err / bound : (err > 0 ? INFINITY : 0.0);
                if (ratio >= worst_ratio) {
                    worst_ratio = ratio;
                    worst_error = err;
                    worst_bound = bound;
                }
            }
        }
        if (compared == 0) {
            std::printf("  not compared with FP64: no output is finite\n");
        } else if (std::isinf(worst_bound)) {
            std::printf("  largest difference from the FP64 product of the unrounded inputs: %.3g; %s predicts no "
                        "bound for K = %lld (K x 2^-%d >= 1: the sum may lose everything)\n",
                        worst_error, core::format_label(p.accumulate), static_cast<long long>(k),
                        core::format_range(p.accumulate).significant_bits);
        } else {
            std::printf("  against the FP64 product of the unrounded inputs: worst error %.3g where the formats predict "
                        "at most %.3g; %s\n",
                        worst_error, worst_bound,
                        over == 0 ? ("all " + core::format_count(compared) + " finite outputs within the bound").c_str()
                                  : (core::format_count(over) + " of " + core::format_count(compared) +
                                     " finite outputs beyond it")
                                        .c_str());
        }
    } catch (const core::InputError& e) {
        return apply_failure(e.what());
    } catch (const std::bad_alloc&) {
        return apply_failure(o.output + ": out of memory");
    }
    return kExitOk;
}

}  // namespace gpulab::app
