// Dynamic loss scaling for FP16 mixed-precision training (issue 29 part 5): what keeps small
// gradients from underflowing when they are stored in FP16, whose smallest normal number is 2^-14
// and smallest subnormal 2^-24 (FP32 and BF16 reach 2^-126).
//
// Each batch the loss gradient is multiplied by the scale S before the backward pass, so every
// gradient in it is S times larger while it passes through FP16; the weight gradients (FP32 sums)
// are divided by S again before the update. Too large an S and some gradient passes FP16's largest
// number, 65,504, and becomes infinity: then the update is skipped, and S halves. After a run of
// steps without overflow S doubles, so it stays near the largest value that does not overflow.
// The same policy as PyTorch's GradScaler (start 2^16, x2 / x0.5), with a shorter run before it
// grows (200 steps instead of 2,000: a lesson's training is a few hundred batches). A fixed scale
// (dynamic false) never changes: 1 shows what FP16 does without scaling.
// Plain C++: the CPU engines use it, and the cudnn engine the same policy on the GPU.
// Verified by tests/test_loss_scaling.cpp.
#pragma once

#include <cstdint>
#include <string>

namespace gpulab::train {

struct LossScaler {
    static constexpr float kInitialScale = 65536.0f;  // 2^16
    static constexpr int kGrowthInterval = 200;       // good steps before the scale doubles
    static constexpr float kMaxScale = 16777216.0f;   // 2^24: beyond this nothing gains

    float scale = kInitialScale;
    bool dynamic = true;
    int good_steps = 0;              // since the last change
    std::int64_t skipped_steps = 0;  // updates dropped because a gradient overflowed
    std::int64_t steps = 0;          // backward passes seen

    // After a backward pass: `finite` is whether every scaled weight gradient was finite. Returns
    // whether the update should be applied (false: skip it; the scale has halved if dynamic).
    bool after_backward(bool finite);
};

// A loss scale as the precision sentences write it: "2^16" for a power of two (what the scaler
// keeps it), else the number ("3.5").
std::string loss_scale_text(float scale);

// "loss scale 2^16 (dynamic), 0 of 120 updates skipped": the scaler's state for a precision column.
std::string describe_loss_scale(const LossScaler& s);

// A fixed loss scale as the command line gives it: 0 (dynamic) or a power of two from 1 to 2^24.
// Returns it; throws core::InputError with one sentence otherwise.
float check_loss_scale(float fixed_scale);

// Whether every value of g[0..n) is finite (no infinity, no NaN), threaded over the shared pool.
bool all_finite(const float* g, std::int64_t n);

// g[0..n) *= factor, threaded over the shared pool.
void scale_in_place(float* g, std::int64_t n, float factor);

}  // namespace gpulab::train
