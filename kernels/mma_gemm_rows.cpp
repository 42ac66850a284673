// The tensor-core kernel's speed rows (mma_gemm_rows.h): samples of gpu::run_mma_gemm.
#include "mma_gemm_rows.h"

#include <string>
#include <utility>

#include "gpu_backends.h"
#include "libraries/cublas_gemm_precision.h"
#include "measure/clock.h"
#include "ops/pseudo_random.h"
#include "tensor/mma_launch.h"
#include "tensor/tensor_gemm.h"

namespace gpulab::gpu {

namespace {

core::GemmSpeedRow row_for(kern::MmaInput in) {
    core::GemmSpeedRow r;
    r.backend = kMmaGemmBackend;
    r.instruction = kMmaGemmInstruction;
    r.inputs = in == kern::MmaInput::Fp16 ? core::FpFormat::Fp16 : core::FpFormat::Bf16;
    return r;
}

}  // namespace

std::vector<core::GemmSpeedRow> measure_mma_gemm_rows(int64_t m, int64_t n, int64_t k, const core::MeasureConfig& config) {
    std::vector<core::GemmSpeedRow> rows;
    const std::vector<float> a = core::uniform_signed_floats(m * k, 1), b = core::uniform_signed_floats(k * n, 2);
    std::vector<float> d(static_cast<std::size_t>(m * n));
    for (const kern::MmaInput in : {kern::MmaInput::Fp16, kern::MmaInput::Bf16}) {
        core::GemmSpeedRow r = row_for(in);
        std::vector<int64_t> samples;
        const int64_t start = core::now_ns();
        std::string error;
        for (int i = 0; error.empty(); ++i) {
            const MmaGemmRun run = run_mma_gemm(in, a.data(), b.data(), d.data(), m, n, k);
            if (!run.ok) {
                error = run.error;
                break;
            }
            if (i < config.warmup) continue;
            samples.push_back(run.kernel_ns);
            const int count = static_cast<int>(samples.size());
            if (count >= config.max_samples) break;
            if (count >= config.min_samples && core::now_ns() - start > config.time_budget_ns) break;
        }
        if (!error.empty()) {
            // The device's absence is said as the cuBLAS rows say it, so the view shows one line;
            // on a GPU that is there, the kernel failed: the row's error says so and `bench` fails
            // (issue 44, item 4: it printed "not run" and exited 0).
            const bool device = probe().device_ok;
            r.path = device ? error : no_gpu_reason(error);
            if (device) r.error = "our mma.sync kernel failed: " + error;
            rows.push_back(std::move(r));
            continue;
        }
        r.ran = r.native = true;
        r.path = std::string("our kernel: ") + kern::mma_kernel_label(kern::MmaKernel::Tiled) +
                 ", one mma.sync.m16n8k16 per 16 x 8 x 16 step, " + kern::mma_input_label(in) +
                 " inputs rounded on the host, FP32 sums";
        cublas_gemm_fill_times(r, std::move(samples), m, n, k);
        r.worst_error_ratio = cublas_gemm_worst_ratio(r.inputs, a, b, d, m, n, k);
        r.check_pass = r.worst_error_ratio <= 1.0;
        rows.push_back(std::move(r));
    }
    return rows;
}

}  // namespace gpulab::gpu
