// The kernel headers compiled by the host compiler for the SIMT simulator: the device environment
// first (sim/sim_device_env.h), then the same headers nvcc compiles in activation.cu and conv2d.cu.
// Launch configurations come from the same functions the CUDA launchers call.
//
// Verified by tests/test_gpu_backends.cpp and tests/test_gpu_conv2d.cpp (cuda-sim equal to
// cpu-scalar) and tests/test_sim.cpp.
#include "sim_device_env.h"

#include "activation/activation_kernel.cuh"
#include "activation/activation_launch.h"
#include "conv2d/conv2d_kernels.cuh"
#include "sim_kernels.h"
#include "tensor/mma_kernels.cuh"

namespace gpulab::sim {

int model_resident_blocks(int threads_per_block) {
    return kModelSms * std::max(1, kModelThreadsPerSm / std::max(1, threads_per_block));
}

namespace {

LaunchConfig config_of(const kern::LaunchShape& l) {
    return {{l.grid.x, l.grid.y, l.grid.z}, {l.block.x, l.block.y, l.block.z}, l.shared_bytes};
}

}  // namespace

Result run_activation(const core::OpDesc& op, GlobalPtr<const float> in, GlobalPtr<float> out, int64_t n,
                      const Options& options) {
    if (n <= 0) return {true, "", {}};  // as the CUDA launcher: nothing to launch
    const kern::ActivationSplit split = kern::activation_split(reinterpret_cast<std::uintptr_t>(in.raw()),
                                                               reinterpret_cast<std::uintptr_t>(out.raw()), n);
    const LaunchConfig c = config_of(
        kern::activation_launch(split, model_resident_blocks(static_cast<int>(kern::kActivationThreads))));
    const auto run = [&](auto f) {
        return launch("activation_kernel", c, options, &kern::activation_kernel<decltype(f)>, in, out, split.head,
                      split.n_vec, n, f);
    };
    Result unknown;
    unknown.error = "activation_kernel: unknown activation " + std::to_string(static_cast<int>(op.activation));
    return kern::with_activation_op(op, run, unknown);
}

namespace {

// What the divergence kernel asks of the hardware, as the host compiler can spell it: the lesson's
// kernel reads both with inline PTX (activemask.b32, %clock64), which only nvcc compiles.
__global__ void divergence_kernel_reads(GlobalPtr<unsigned> out) {
    const unsigned mask = __activemask();
    out[threadIdx.x] = mask + static_cast<unsigned>(clock64());
}

}  // namespace

std::string divergence_kernel_refusal() {
    Buffer<unsigned> out("out", 32);
    const Result r = launch("divergence_kernel", {{1, 1, 1}, {32, 1, 1}, 0}, Options{}, &divergence_kernel_reads,
                            out.ptr());
    if (r.ok) return "";  // the simulator learned to model both; the lesson may then run it
    return r.error +
           ". The lesson's divergence kernel reads the active mask and clock64() with inline PTX (kernels/probes/divergence.cu), "
           "which only a GPU runs; "
           "the warp emulator (core/ops/simt.h) gives the theory instead.";
}

Result run_conv2d(kern::Conv2dKernel which, const kern::ConvShape& s, GlobalPtr<const float> in,
                  GlobalPtr<const float> filters, GlobalPtr<float> out, const Options& options) {
    const LaunchConfig c = config_of(kern::conv2d_launch(which, s));
    if (which == kern::Conv2dKernel::Naive) {
        return launch("conv2d_naive_kernel", c, options, &kern::conv2d_naive_kernel, in, filters, out, s,
                      s.planes * s.out_h * s.out_w);
    }
    return launch("conv2d_tiled_kernel", c, options, &kern::conv2d_tiled_kernel, in, filters, out, s);
}

// [SECTION] the tensor-core kernel

Result run_mma_gemm(kern::MmaInput in, const float* a, const float* b, const float* c, float* d, int64_t m, int64_t n,
                    int64_t k, const Options& options, kern::MmaKernel kernel) {
    if (const std::string why = kern::mma_gemm_problem(m, n, k); !why.empty()) return {false, why, {}};
    const kern::MmaOperands o = kern::pack_mma_operands(in, a, b, c, m, n, k);
    Buffer<uint32_t> da("A", o.a.size()), dbt("Bt", o.bt.size());
    Buffer<float> dc("C", o.c.size()), dd("D", o.c.size());
    std::memcpy(da.data(), o.a.data(), o.a.size() * sizeof(uint32_t));
    std::memcpy(dbt.data(), o.bt.data(), o.bt.size() * sizeof(uint32_t));
    std::memcpy(dc.data(), o.c.data(), o.c.size() * sizeof(float));
    const LaunchConfig cfg = config_of(kern::mma_gemm_launch(o.shape, kernel));
    const bool fp16 = in == kern::MmaInput::Fp16;
    Result r;
    if (kernel == kern::MmaKernel::Tiled)
        r = fp16 ? launch("mma_gemm_tiled_kernel<FP16>", cfg, options, &kern::mma_gemm_tiled_kernel<kern::MmaInput::Fp16>,
                          da.cptr(), dbt.cptr(), dc.cptr(), dd.ptr(), o.shape)
                 : launch("mma_gemm_tiled_kernel<BF16>", cfg, options, &kern::mma_gemm_tiled_kernel<kern::MmaInput::Bf16>,
                          da.cptr(), dbt.cptr(), dc.cptr(), dd.ptr(), o.shape);
    else
        r = fp16 ? launch("mma_gemm_kernel<FP16>", cfg, options, &kern::mma_gemm_kernel<kern::MmaInput::Fp16>,
                          da.cptr(), dbt.cptr(), dc.cptr(), dd.ptr(), o.shape)
                 : launch("mma_gemm_kernel<BF16>", cfg, options, &kern::mma_gemm_kernel<kern::MmaInput::Bf16>,
                          da.cptr(), dbt.cptr(), dc.cptr(), dd.ptr(), o.shape);
    if (r.ok) kern::unpack_mma_result(o.shape, dd.data(), d, m, n);
    return r;
}

namespace {

// Reads an element's coordinates back from the code it was given (code = row * width + col).
LaneElement decode_code(float v, int width, int rows) {
    const int code = static_cast<int>(v);
    if (static_cast<float>(code) != v || code < 0 || code >= width * rows) return {};
    return {static_cast<int8_t>(code / width), static_cast<int8_t>(code % width)};
}

// Each element of a rows x cols matrix held by exactly one lane and register: the owner table, or
// the sentence naming the first element held twice or never.
template <std::size_t R, std::size_t C, std::size_t E>
std::string owners(const std::array<std::array<LaneElement, E>, 32>& held, std::array<std::array<int8_t, C>, R>& owner,
                   const char* matrix) {
    for (auto& row : owner) row.fill(-1);
    for (int lane = 0; lane < 32; ++lane) {
        for (const LaneElement& e : held[static_cast<std::size_t>(lane)]) {
            if (e.row < 0 || e.row >= static_cast<int>(R) || e.col < 0 || e.col >= static_cast<int>(C))
                return std::string("lane ") + std::to_string(lane) + " held a value of " + matrix + " that is no element of it";
            int8_t& o = owner[static_cast<std::size_t>(e.row)][static_cast<std::size_t>(e.col)];
            if (o >= 0)
                return std::string(matrix) + "[" + std::to_string(e.row) + "][" + std::to_string(e.col) +
                       "] was held by lanes " + std::to_string(o) + " and " + std::to_string(lane);
            o = static_cast<int8_t>(lane);
        }
    }
    for (std::size_t r = 0; r < R; ++r)
        for (std::size_t c = 0; c < C; ++c)
            if (owner[r][c] < 0)
                return std::string(matrix) + "[" + std::to_string(r) + "][" + std::to_string(c) + "] was held by no lane";
    return "";
}

}  // namespace

MmaLaneData mma_lane_data(kern::MmaInput in) {
    using kern::kMmaK;
    using kern::kMmaM;
    using kern::kMmaN;
    MmaLaneData out;
    out.input = in;
    float a[kMmaM * kMmaK], b[kMmaK * kMmaN], zero_b[kMmaK * kMmaN], c[kMmaM * kMmaN], d[kMmaM * kMmaN];
    for (int i = 0; i < kMmaM * kMmaK; ++i) a[i] = static_cast<float>(i);  // row * 16 + col
    for (int i = 0; i < kMmaK * kMmaN; ++i) {
        b[i] = static_cast<float>(i);  // k * 8 + n
        zero_b[i] = 0.0f;
    }
    for (int i = 0; i < kMmaM * kMmaN; ++i) c[i] = static_cast<float>(i);  // row * 8 + n
    std::vector<MmaRecord> records;
    Options o;
    o.parallel = false;  // the block runs on this thread, where the recorder is set
    set_mma_recorder(&records);
    Result first = run_mma_gemm(in, a, b, c, d, kMmaM, kMmaN, kMmaK, o);
    Result second = first.ok ? run_mma_gemm(in, a, zero_b, c, d, kMmaM, kMmaN, kMmaK, o) : first;
    set_mma_recorder(nullptr);
    if (!first.ok || !second.ok) {
        out.error = !first.ok ? first.error : second.error;
        return out;
    }
    out.instructions = static_cast<int>(records.size());
    if (records.size() != 2) {
        out.error = "expected one mma.sync per launch, recorded " + std::to_string(records.size());
        return out;
    }
    for (int lane = 0; lane < 32; ++lane) {
        const auto l = static_cast<std::size_t>(lane);
        for (int i = 0; i < kern::kMmaAElements; ++i) out.a[l][static_cast<std::size_t>(i)] = decode_code(records[0].a[l][static_cast<std::size_t>(i)], kMmaK, kMmaM);
        for (int i = 0; i < kern::kMmaBElements; ++i) out.b[l][static_cast<std::size_t>(i)] = decode_code(records[0].b[l][static_cast<std::size_t>(i)], kMmaN, kMmaK);
        for (int i = 0; i < kern::kMmaCElements; ++i) {
            out.c[l][static_cast<std::size_t>(i)] = decode_code(records[0].c[l][static_cast<std::size_t>(i)], kMmaN, kMmaM);
            out.d[l][static_cast<std::size_t>(i)] = decode_code(records[1].d[l][static_cast<std::size_t>(i)], kMmaN, kMmaM);
        }
    }
    for (const std::string& why : {owners(out.a, out.a_owner, "A"), owners(out.b, out.b_owner, "B"),
                                   owners(out.c, out.c_owner, "C"), owners(out.d, out.d_owner, "D")}) {
        if (!why.empty()) {
            out.error = "the simulated kernel's lanes do not cover the matrices: " + why;
            return out;
        }
    }
    out.ok = true;
    return out;
}

}  // namespace gpulab::sim
