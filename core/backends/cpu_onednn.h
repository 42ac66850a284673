// cpu-onednn: the CPU library as a peer. oneDNN (Intel's deep-learning primitives, the CPU engine
// behind PyTorch and TensorFlow) runs the same activations with its own JIT-generated kernels and
// OpenMP threads, so students can see how our cpu-parallel compares with a tuned library.
//
// Built only when CMake finds oneDNN (GPULAB_ENABLE_ONEDNN and libdnnl-dev); otherwise a stand-in
// reports "oneDNN not found when gpulab was built" as its availability reason. Which kernel oneDNN
// picked (its impl_info_str, e.g. "jit:avx512_core") is named in description() and by
// onednn_implementation(), because a peer is only meaningful once we know what it ran.
// Its bandwidth limit is the same as cpu-parallel's (cpu_limit.h): one machine, one memory system.
//
// Known differences from cpu-scalar, on purpose left visible: oneDNN 2.6's ReLU turns NaN into 0,
// and its GELU of -inf is NaN (ours gives NaN and -0). The app's generated inputs are always
// finite, so its checks are not affected; a user-supplied array with NaN or inf shows a mismatch.
// Verified by tests/test_cpu_backends.cpp ("cpu-onednn ..." cases).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "backend.h"

namespace gpulab::cpu {

// The backend; always returns an object (unavailable with a reason when oneDNN is not built in).
std::unique_ptr<core::Backend> make_onednn_backend();

// oneDNN's name for the kernel it would run for `op` on `elements` floats ("jit:avx512_core"),
// or a sentence saying why there is none.
std::string onednn_implementation(const core::OpDesc& op, int64_t elements);

}  // namespace gpulab::cpu
