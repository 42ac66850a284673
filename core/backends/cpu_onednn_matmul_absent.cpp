// oneDNN's matmul when oneDNN was not found at build time: unavailable, with the configure's reason
// (see cpu_onednn_matmul.h). Compiled instead of cpu_onednn_matmul.cpp by core/CMakeLists.txt.
#include "cpu_onednn_matmul.h"

namespace gpulab::cpu {

struct OnednnMatmul::Impl {};

OnednnMatmul::OnednnMatmul(core::FpFormat, int64_t, int64_t, int64_t) : availability_{false, GPULAB_ONEDNN_WHY} {}

OnednnMatmul::~OnednnMatmul() = default;

std::string OnednnMatmul::run(const void*, const void*, float*) { return availability_.reason; }

}  // namespace gpulab::cpu
