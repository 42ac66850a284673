// cpu-scalar: the plain loop, one element after another on one core. It is the reference every
// other backend is compared with, and it is written to be read by a student.
#pragma once

#include <string>

#include "backend.h"

namespace gpulab::cpu {

std::unique_ptr<core::Backend> make_scalar_backend();

// The reference itself, callable without a Backend (tests, apply).
void activation_reference(const core::OpDesc& op, const float* in, float* out, int64_t n);

// The convolution reference: input N,C,H,W, filters K,C,R,S, output N,K,P,Q, one output element
// at a time through hd::conv2d_point. The shape must be valid (Conv2dDesc::validate).
void conv2d_reference(const core::Conv2dDesc& d, const float* input, const float* filters, float* output);

// Checks that three tensors hold exactly the elements a shape needs; empty when they do.
std::string conv2d_size_error(const core::Conv2dDesc& d, const core::Tensor& input, const core::Tensor& filters,
                              const core::Tensor& output);

}  // namespace gpulab::cpu
