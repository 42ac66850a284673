// The arithmetic a CPU training engine can be asked to use (issue 29 part 5, the tensor-core
// lesson's "Training in BF16"): plain FP32; TF32 products with FP32 sums and FP32 weights (what an
// Ampere or newer GPU's tensor cores do with FP32 data when TF32 is allowed: TensorFlow's default
// there, so most likely how the source article's RTX 3070 trained); BF16 products with FP32 sums and FP32 master weights
// (mixed precision, what a BF16 tensor core or oneDNN's bf16 path computes up to the order of the
// sums); or BF16 weights as well, with their update done in BF16 (to show what goes wrong); or FP16
// products with FP32 master weights and loss scaling (mixed precision on GPUs before BF16).
//
// How the engines model it (cpu_engine.cpp), for every convolution and dense layer, forward and
// backward: the layer's input activations, its weights and the gradient arriving from above are
// rounded to BF16 (TF32 for Tf32) where they enter a product (core::round_to, round to nearest even, the one
// rounding of core/ops/fp_formats.h); every sum (the products, the bias, the weight gradients) stays
// FP32. ReLU and max pooling commute with rounding and are left as they are; the loss is FP32.
// This is IEEE rounding on a CPU, not a bit-exact model of a tensor core, whose internal rounding
// is not documented.
//
// The update (SGD with momentum, engine.h):
//   FP32, TF32,       v = mu v - rate g; w = w + v, all FP32 (for mixed and TF32, w is the FP32
//   BF16 mixed        master copy; the next forward pass rounds a copy of it to BF16 or TF32)
//   BF16 pure         g, v and w are BF16: v = round(mu v - rate g); w = round(w + v). An update
//                     smaller than half the BF16 step at w rounds back to w: it is lost.
//   FP16 mixed        as BF16 mixed, with FP16's rounding, and loss scaling (loss_scaling.h): the
//                     loss gradient is multiplied by the scale S before the backward pass, the
//                     weight gradients divided by S before the update, and a batch whose scaled
//                     gradients overflowed FP16 (infinity or NaN) is not applied at all.
// Verified by tests/test_mixed_precision_train.cpp.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace gpulab::train {

struct Sgd;

// New values come last so that the older ones keep their numbers.
enum class ComputePrecision { Fp32, Bf16Mixed, Bf16Pure, Tf32, Fp16Mixed };
// The tensor lesson's BF16 race trains one lane per entry: FP32 and the two BF16 ways (no TF32 lane:
// that race is about BF16's 8 mantissa bits; TF32 keeps 10 and belongs to the GPU training race).
inline constexpr ComputePrecision kAllComputePrecisions[] = {ComputePrecision::Fp32, ComputePrecision::Bf16Mixed,
                                                             ComputePrecision::Bf16Pure};
// Every precision an engine can be asked for, in the order the command line lists them.
inline constexpr ComputePrecision kEveryComputePrecision[] = {ComputePrecision::Fp32, ComputePrecision::Tf32,
                                                              ComputePrecision::Bf16Mixed, ComputePrecision::Bf16Pure,
                                                              ComputePrecision::Fp16Mixed};

// "fp32", "tf32", "bf16-mixed", "bf16-pure", "fp16-mixed": how the command line and lesson files spell it.
const char* precision_id(ComputePrecision p);
// What the race's precision column says: "FP32", "TF32 products (...), FP32 sums and weights", ...
const char* precision_label(ComputePrecision p);
// A legend's short name: "FP32", "TF32", "BF16 mixed", "BF16 pure", "FP16 mixed".
const char* precision_short_label(ComputePrecision p);
// The precision an id names (case-insensitive). Throws core::InputError with one sentence that
// lists every id otherwise.
ComputePrecision parse_compute_precision(std::string_view text);

// What the updates did to the stored weights, summed over every parameter and every step.
struct UpdateCounts {
    std::int64_t steps = 0;
    std::int64_t nonzero = 0;     // parameter updates whose step v was not 0
    std::int64_t lost = 0;        // of those, the stored weight stayed exactly as it was
    // Of those, the weight's BF16 rounding stayed the same: the BF16 copy the next forward pass
    // multiplies with did not change. Mixed precision keeps them in the FP32 master copy, where
    // they add up. (In Tf32 the copy is the TF32 rounding, and that is what is compared.)
    std::int64_t below_bf16 = 0;
    double lost_share() const { return nonzero > 0 ? static_cast<double>(lost) / static_cast<double>(nonzero) : 0.0; }
};

// x[0..n) replaced by its BF16 rounding, value by value (core::round_to(Bf16, x) bit for bit).
void round_bf16_in_place(float* x, std::int64_t n);
// x[0..n) replaced by its TF32 rounding (core::round_to(Tf32, x): 10 mantissa bits, round to nearest
// even, FP32's exponent range).
void round_tf32_in_place(float* x, std::int64_t n);
// x[0..n) replaced by its FP16 rounding (core::round_to(Fp16, x): 10 mantissa bits, round to nearest
// even; past 65,504 infinity, below 2^-14 subnormal, below 2^-25 zero).
void round_fp16_in_place(float* x, std::int64_t n);
// The rounding a product's inputs get in precision p: BF16 for both BF16 ways, TF32 for Tf32, FP16
// for Fp16Mixed, nothing for Fp32.
void round_product_inputs_in_place(ComputePrecision p, float* x, std::int64_t n);

// One SGD-with-momentum update of `count` parameters in precision `p` (see above), threaded over
// the shared pool; `counts` gets this step's updates added. The FP32 result is the same arithmetic
// as the engines' own update.
void sgd_step_counted(ComputePrecision p, std::int64_t count, const Sgd& sgd, float* w, float* v, const float* g,
                      UpdateCounts& counts);

}  // namespace gpulab::train
