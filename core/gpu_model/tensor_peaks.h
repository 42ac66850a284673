// NVIDIA's published peak arithmetic rates of a few data-centre GPUs, for the tensor-core lesson's
// speed step: beside what cuBLAS and our kernel measured on the GPU in this computer, or, without
// one, as an example labelled as such. Never a measurement: every figure is the vendor's, dense
// (NVIDIA also quotes "with sparsity" figures, twice these, for weights pruned 2 of every 4).
//
// Sources: NVIDIA H100 Tensor Core GPU Architecture whitepaper (H100 SXM5 and H100 PCIe: peak FP32,
// TF32, FP16 and BF16 tensor TFLOPS with FP32 accumulation) and NVIDIA A100 Tensor Core GPU
// Architecture whitepaper (A100). Verified by tests/test_gpu_model.cpp.
#pragma once

#include <string>
#include <string_view>

namespace gpulab::core {

struct PublishedTensorPeaks {
    const char* name;       // "NVIDIA H100 SXM5"
    double fp32_tflops;     // ordinary FP32 units
    double tf32_tflops;     // tensor cores, dense
    double fp16_tflops;     // tensor cores, dense, FP32 accumulation
    double bf16_tflops;     // likewise
    const char* source;     // "NVIDIA H100 whitepaper"
    bool needs_wgmma;       // Hopper: the tensor peaks need the warpgroup instruction wgmma
};

// The entry for a device as the CUDA runtime names it ("NVIDIA H100 80GB HBM3" is the SXM5 module,
// "NVIDIA H100 PCIe", "NVIDIA A100-SXM4-80GB"), or nullptr for any other (H100 NVL included: its
// figures differ and are not in the table).
const PublishedTensorPeaks* published_tensor_peaks(std::string_view device_name);
// The example the views use where there is no GPU: the H100 SXM5.
const PublishedTensorPeaks& example_tensor_peaks();

// "NVIDIA H100 SXM5, published (NVIDIA H100 whitepaper, dense, not measured here): FP32 66.9, TF32
// 494.7, FP16 989.4, BF16 989.4 TFLOP/s".
std::string describe_tensor_peaks(const PublishedTensorPeaks& p);

// Which instruction reaches those peaks, when it is not the mma.sync gpulab's kernels use (issue 42,
// item 8): on Hopper only the warpgroup wgmma does, and mma.sync reaches about two thirds of the
// tensor peak at best (the FlashAttention-3 paper, Shah et al. 2024), so the gap between our
// kernel's row and 989 TFLOP/s is not all the kernel's. "" for Ampere, where mma.sync is the path.
std::string tensor_peak_instruction_note(const PublishedTensorPeaks& p);

}  // namespace gpulab::core
