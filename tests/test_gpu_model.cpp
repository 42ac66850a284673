// core/gpu_model/gpu_model.h against the CUDA programming guide's per-compute-capability figures and the
// occupancy arithmetic worked by hand; core/gpu_model/tensor_peaks.h's published figures and device names.
#include <doctest/doctest.h>

#include <string>

#include "gpu_model/gpu_model.h"
#include "gpu_model/tensor_peaks.h"

using namespace gpulab::core;

TEST_SUITE("gpu-model") {
    TEST_CASE("published tensor peaks: the device names the runtime reports - dense figures - labelled") {
        const PublishedTensorPeaks* sxm = published_tensor_peaks("NVIDIA H100 80GB HBM3");
        REQUIRE(sxm != nullptr);
        CHECK(std::string(sxm->name) == "NVIDIA H100 SXM5");
        CHECK(sxm->fp16_tflops == doctest::Approx(989.4));
        CHECK(sxm->tf32_tflops == doctest::Approx(sxm->fp16_tflops / 2));  // TF32 at half FP16's rate
        CHECK(sxm->bf16_tflops == sxm->fp16_tflops);
        const PublishedTensorPeaks* pcie = published_tensor_peaks("NVIDIA H100 PCIe");
        REQUIRE(pcie != nullptr);
        CHECK(pcie->fp16_tflops < sxm->fp16_tflops);
        CHECK(published_tensor_peaks("NVIDIA A100-SXM4-80GB") != nullptr);
        CHECK(published_tensor_peaks("NVIDIA H100 NVL") == nullptr);
        CHECK(published_tensor_peaks("NVIDIA GeForce RTX 3070") == nullptr);
        CHECK(&example_tensor_peaks() == sxm);
        const std::string text = describe_tensor_peaks(*sxm);
        CHECK(text.find("published") != std::string::npos);
        CHECK(text.find("not measured here") != std::string::npos);
        CHECK(text.find("FP16 989.4") != std::string::npos);
        // The session-14 H100's cuBLAS FP16 (706.3 TFLOP/s, docs/benchmarks.md) is below its published peak.
        CHECK(706.3 < sxm->fp16_tflops);
        // Which instruction reaches the peak (issue 42, item 8): said for Hopper, not for Ampere.
        CHECK(tensor_peak_instruction_note(*sxm).find("wgmma") != std::string::npos);
        CHECK(tensor_peak_instruction_note(*sxm).find("article") != std::string::npos);
        CHECK(tensor_peak_instruction_note(*pcie).find("two thirds") != std::string::npos);
        CHECK(tensor_peak_instruction_note(*published_tensor_peaks("NVIDIA A100-SXM4-80GB")).empty());
    }

    TEST_CASE("FP32 lanes per SM: 64 on 6.0 - 7.x and 8.0 - 128 on 8.6 and later") {
        CHECK(fp32_lanes_per_sm(7, 0) == 64);
        CHECK(fp32_lanes_per_sm(7, 5) == 64);
        CHECK(fp32_lanes_per_sm(8, 0) == 64);
        CHECK(fp32_lanes_per_sm(8, 6) == 128);
        CHECK(fp32_lanes_per_sm(8, 9) == 128);
        CHECK(fp32_lanes_per_sm(9, 0) == 128);
        CHECK(fp32_lanes_per_sm(12, 0) == 128);
        // The figures the articles quote: an RTX 3070 (46 SMs, 8.6) has 5,888 CUDA cores; an H100 SXM5 16,896.
        CHECK(46 * fp32_lanes_per_sm(8, 6) == 5888);
        CHECK(kExampleGpu.sm_count * fp32_lanes_per_sm(kExampleGpu.cc_major, kExampleGpu.cc_minor) == 16896);
    }

    TEST_CASE("threads and blocks per SM follow the guide's table") {
        CHECK(max_threads_per_sm(7, 5) == 1024);
        CHECK(max_threads_per_sm(8, 0) == 2048);
        CHECK(max_threads_per_sm(8, 6) == 1536);
        CHECK(max_threads_per_sm(8, 9) == 1536);
        CHECK(max_threads_per_sm(9, 0) == 2048);
        CHECK(max_blocks_per_sm(7, 5) == 16);
        CHECK(max_blocks_per_sm(8, 9) == 24);
        CHECK(max_blocks_per_sm(9, 0) == 32);
    }

    TEST_CASE("occupancy of the tiled convolution: registers - not threads - set it on an H100") {
        // 40 registers x 32 lanes = 1,280 per warp (already a multiple of 256); 65,536 / 1,280 = 51
        // warps; 8 warps per 256-thread block: 6 blocks. The thread limit alone would allow 8.
        CHECK(resident_blocks_per_sm(9, 0, 256, 40) == 6);
        CHECK(resident_blocks_per_sm(9, 0, 256, 0) == 8);
        // 63 registers round up to 2,048 per warp: 32 warps, 4 blocks; Turing's thread limit says 4 too.
        CHECK(resident_blocks_per_sm(7, 5, 256, 63) == 4);
        // Tiny blocks hit the block limit.
        CHECK(resident_blocks_per_sm(9, 0, 32, 16) == 32);
        CHECK(resident_blocks_per_sm(9, 0, 0, 16) == 0);
    }

    TEST_CASE("waves: ceil(blocks / (SMs x blocks per SM))") {
        CHECK(tiled_conv_blocks(512, 512, 1) == 1024);
        CHECK(tiled_conv_blocks(500, 17, 3) == 32 * 2 * 3);
        const Waves a = waves_of(1024, 132, 6);
        CHECK(a.per_wave == 792);
        CHECK(a.waves == 2);
        CHECK(waves_of(65536, 132, 6).waves == 83);
        CHECK(waves_of(65536, 132, 8).waves == 63);  // the thread-limit-only count
        CHECK(waves_of(10, 0, 6).waves == 0);
    }

    TEST_CASE("a machine without a GPU driver is said in plain words: other reasons are left as they are") {
        using gpulab::core::plain_gpu_reason;
        const std::string driver = "cudaErrorInsufficientDriver: CUDA driver version is insufficient for CUDA runtime version";
        CHECK(plain_gpu_reason(driver) == "no NVIDIA GPU driver on this computer");
        CHECK(plain_gpu_reason("no CUDA device (" + driver + ")") == "no NVIDIA GPU driver on this computer");
        CHECK(plain_gpu_reason("cudaErrorNoDevice: no CUDA-capable device is detected") == "no NVIDIA GPU on this computer");
        CHECK(plain_gpu_reason("CUDA not compiled in: this gpulab was built without a CUDA compiler") ==
              "this gpulab was built without CUDA");
        CHECK(plain_gpu_reason("libcudnn.so.9 not found (...)").empty());
        CHECK(plain_gpu_reason("cudaErrorMemoryAllocation: out of memory").empty());
    }

    TEST_CASE("no GPU is said once in a student's words - naming what stands in") {
        const std::string driver =
            "cudaErrorInsufficientDriver: CUDA driver version is insufficient for CUDA runtime version";
        CHECK(no_gpu_sentence(driver) == "No NVIDIA GPU driver on this computer: GPU rows show the simulated kernel");
        CHECK(no_gpu_sentence("CUDA not compiled in") ==
              "This gpulab was built without CUDA: GPU rows show the simulated kernel");
        CHECK(no_gpu_sentence("cudaErrorMemoryAllocation: out of memory").empty());
    }

    TEST_CASE("the bandwidth-bound model line is a lower bound labelled with its bandwidth") {
        CHECK(bandwidth_bound_ns(3350, 3350.0) == 1);          // 3350 bytes at 3350 GB/s: 1 ns
        CHECK(bandwidth_bound_ns(8 << 20, 3350.0) == 2504);   // 8 MiB: 2.5 us
        CHECK(bandwidth_bound_ns(0, 3350.0) == 0);
        CHECK(bandwidth_bound_ns(100, 0.0) == 0);
        // The floor comes from the data's own bytes, not the sector traffic (a halo re-read is no floor).
        const std::string line = bandwidth_model_line(12 << 20, 8 << 20);
        CHECK(line.find("requested 12.0 MiB") != std::string::npos);
        CHECK(line.find("at least 2.50 us") != std::string::npos);
        CHECK(line.find("3350 GB/s") != std::string::npos);
        CHECK(line.find("published spec; arithmetic, not a measurement") != std::string::npos);
        // What the figure is comes before the counts: a one-line view cuts the end, never the label.
        CHECK(line.find("not a measurement") < line.find("requested"));
        CHECK(line.find("not a measurement") < 80);
        // The GPU the estimates model, named and used.
        const std::string h200 = bandwidth_model_line(12 << 20, 8 << 20, "NVIDIA H200", 4800.0);
        CHECK(h200.find("on an NVIDIA H200") != std::string::npos);
        CHECK(h200.find("at least 1.75 us") != std::string::npos);  // 8 MiB at 4.8 TB/s: 1.748 us
        CHECK(bandwidth_model_line(0, 0).empty());
        CHECK(bandwidth_model_line(100, 0).empty());
    }
}
