// The simulated mma.sync: gather, compute, scatter (see sim_mma.h).
#include "sim_mma.h"

#include <cmath>

#include "ops/fp_formats.h"
#include "sim_runtime.h"

namespace gpulab::sim {

namespace {

thread_local std::vector<MmaRecord>* t_recorder = nullptr;

core::FpFormat format_of(kern::MmaInput in) {
    return in == kern::MmaInput::Fp16 ? core::FpFormat::Fp16 : core::FpFormat::Bf16;
}

// Element i of a lane's A or B registers: register i / 2, the lower 16 bits for even i.
float element(core::FpFormat f, const uint32_t* regs, int i) {
    const uint32_t bits = (regs[i / 2] >> ((i & 1) * 16)) & 0xFFFFu;
    return static_cast<float>(core::decode(f, bits));
}

template <kern::MmaInput In>
void run_mma(void* const lanes[32]) {
    const core::FpFormat f = format_of(In);
    using kern::kMmaK;
    using kern::kMmaM;
    using kern::kMmaN;
    float A[kMmaM][kMmaK], B[kMmaK][kMmaN], C[kMmaM][kMmaN];
    MmaRecord* rec = nullptr;
    if (t_recorder != nullptr) {
        rec = &t_recorder->emplace_back();
        rec->input = In;
    }
    for (int l = 0; l < 32; ++l) {
        const auto& op = *static_cast<const MmaLaneOperands*>(lanes[l]);
        for (int i = 0; i < kern::kMmaAElements; ++i) {
            const kern::FragmentIndex at = kern::mma_a_element(l, i);
            A[at.row][at.col] = element(f, op.a, i);
            if (rec) rec->a[l][i] = A[at.row][at.col];
        }
        for (int i = 0; i < kern::kMmaBElements; ++i) {
            const kern::FragmentIndex at = kern::mma_b_element(l, i);
            B[at.row][at.col] = element(f, op.b, i);
            if (rec) rec->b[l][i] = B[at.row][at.col];
        }
        for (int i = 0; i < kern::kMmaCElements; ++i) {
            const kern::FragmentIndex at = kern::mma_cd_element(l, i);
            C[at.row][at.col] = op.c[i];
            if (rec) rec->c[l][i] = op.c[i];
        }
    }
    // D = A x B + C: per element, C plus the products k = 0 .. 15, one FP32 fused multiply-add each.
    float D[kMmaM][kMmaN];
    for (int r = 0; r < kMmaM; ++r) {
        for (int n = 0; n < kMmaN; ++n) {
            float acc = C[r][n];
            for (int k = 0; k < kMmaK; ++k) acc = std::fma(A[r][k], B[k][n], acc);
            D[r][n] = acc;
        }
    }
    for (int l = 0; l < 32; ++l) {
        auto& op = *static_cast<MmaLaneOperands*>(lanes[l]);
        for (int i = 0; i < kern::kMmaCElements; ++i) {
            const kern::FragmentIndex at = kern::mma_cd_element(l, i);
            op.d[i] = D[at.row][at.col];
            if (rec) rec->d[l][i] = op.d[i];
        }
    }
}

constexpr WarpCollective kMmaF16{"mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", &run_mma<kern::MmaInput::Fp16>};
constexpr WarpCollective kMmaBf16{"mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32",
                                  &run_mma<kern::MmaInput::Bf16>};

}  // namespace

void set_mma_recorder(std::vector<MmaRecord>* out) { t_recorder = out; }

void detail::mma_sync(kern::MmaInput input, MmaLaneOperands& lane) {
    warp_collective(input == kern::MmaInput::Fp16 ? kMmaF16 : kMmaBf16, &lane);
}

}  // namespace gpulab::sim
