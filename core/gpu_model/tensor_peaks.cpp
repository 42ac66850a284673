// Published tensor-core peaks: see tensor_peaks.h.
#include "tensor_peaks.h"

#include "measure/format.h"

namespace gpulab::core {

namespace {

constexpr PublishedTensorPeaks kH100Sxm{"NVIDIA H100 SXM5", 66.9, 494.7, 989.4, 989.4, "NVIDIA H100 whitepaper", true};
constexpr PublishedTensorPeaks kH100Pcie{"NVIDIA H100 PCIe", 51.2, 378.0, 756.0, 756.0, "NVIDIA H100 whitepaper", true};
constexpr PublishedTensorPeaks kA100{"NVIDIA A100", 19.5, 156.0, 312.0, 312.0, "NVIDIA A100 whitepaper", false};

bool has(std::string_view text, std::string_view part) { return text.find(part) != std::string_view::npos; }

}  // namespace

const PublishedTensorPeaks* published_tensor_peaks(std::string_view name) {
    if (has(name, "H100")) {
        if (has(name, "PCIe")) return &kH100Pcie;
        // The SXM5 module reports its memory ("80GB HBM3"); the NVL card is another product.
        if (has(name, "SXM") || (has(name, "HBM3") && !has(name, "NVL"))) return &kH100Sxm;
        return nullptr;
    }
    if (has(name, "A100")) return &kA100;
    return nullptr;
}

const PublishedTensorPeaks& example_tensor_peaks() { return kH100Sxm; }

std::string describe_tensor_peaks(const PublishedTensorPeaks& p) {
    return std::string(p.name) + ", published (" + p.source + ", dense, not measured here): FP32 " +
           format_fixed(p.fp32_tflops, 1) + ", TF32 " + format_fixed(p.tf32_tflops, 1) + ", FP16 " +
           format_fixed(p.fp16_tflops, 1) + ", BF16 " + format_fixed(p.bf16_tflops, 1) + " TFLOP/s";
}

std::string tensor_peak_instruction_note(const PublishedTensorPeaks& p) {
    if (!p.needs_wgmma) return "";
    return std::string("On ") + p.name + " (Hopper) the tensor-core peaks need the wgmma instruction, which drives a "
           "group of four warps; mma.sync, which gpulab's kernel uses, reaches about two thirds of them at best (article: "
           "the FlashAttention-3 paper, Shah et al. 2024)";
}

}  // namespace gpulab::core
