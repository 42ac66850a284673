// cpu-scalar: the plain loop, one element after another on one core. It is the reference every
// other backend is compared with, and it is written to be read by a student.
#pragma once

#include "backend.h"

namespace gpulab::cpu {

std::unique_ptr<core::Backend> make_scalar_backend();

// The reference itself, callable without a Backend (tests, apply).
void activation_reference(const core::OpDesc& op, const float* in, float* out, int64_t n);

}  // namespace gpulab::cpu
