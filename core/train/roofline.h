// The sanity check a GPU engineer does before believing "the GPU is 26x faster": the two machines'
// peaks, from their published parts, and a roofline estimate of the lesson's model on each.
//
//   peak FP32 FLOP/s = units x FLOP per unit per cycle x clock      (an FMA is 2 FLOP)
//   bandwidth        = bus width in bytes x transfers per second
//   a layer's arithmetic intensity AI = FLOP / bytes it moves        (FLOP per byte)
//   attainable FLOP/s = min(peak, AI x bandwidth)                   (the "roof")
//   time per picture  = FLOP / attainable FLOP/s, summed over the layers
//
//        FLOP/s |        ________________ peak
//               |      /
//               |    /  <- AI x bandwidth: memory-bound layers live on this slope
//               |  /
//               +----------------------- AI (FLOP/byte); the bend is the "ridge", peak / bandwidth
//
// Every figure carries where it comes from (Source): the parts are published specs, the peaks are
// arithmetic on them, this machine's peaks are measured (train/machine_peak.h), and the times are an
// estimate (roofline). What the estimate leaves out, on purpose: caches (a batch's activations can
// stay in cache between layers, so a real layer may beat the DRAM roof), launch and framework
// overheads, and how close a real kernel gets to the peak. So it is a floor on the time and a
// guide to which layers are compute-bound, never a forecast of a measured speed-up.
// Plain C++ (no GL, ImGui or CUDA). Verified by tests/test_train_roofline.cpp against hand arithmetic.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model.h"

namespace gpulab::train {

enum class Source { PublishedSpec, Arithmetic, Measured, Estimate };
// "published spec", "arithmetic", "measured on this machine", "estimate (roofline)".
std::string_view source_label(Source source);

// The article's GPU as NVIDIA publishes it (GeForce RTX 3070, GA104).
struct GpuSpec {
    std::string name = "RTX 3070";
    int cuda_cores = 5888;
    double boost_ghz = 1.725;
    int bus_bits = 256;          // GDDR6
    double gbps_per_pin = 14.0;  // GDDR6 data rate per pin
    int tensor_cores = 184;      // 4 per SM, 46 SMs
    // Dense FP16 multiply-adds per tensor core per cycle (Ampere GA10x, FP16 accumulation). NVIDIA's
    // "with sparsity" figures double this; they need weights pruned to 2 of every 4, so not here.
    int tensor_fp16_fma_per_cycle = 128;

    double fp32_flops() const;  // CUDA cores x 2 FLOP (one FMA) x clock: 20.3 TFLOP/s
    double bandwidth() const;   // bus bytes x data rate: 448 GB/s
    // Tensor cores, dense: FP16 inputs with FP16 accumulation (81.3 TFLOP/s); GeForce cards run FP32
    // accumulation at half that rate (40.6) and TF32 at a quarter (20.3): on this card TF32 on the
    // tensor cores reaches the same peak as plain FP32 on the CUDA cores.
    double tensor_fp16_acc16_flops() const;
    double tensor_fp16_acc32_flops() const { return tensor_fp16_acc16_flops() / 2.0; }
    double tensor_tf32_flops() const { return tensor_fp16_acc16_flops() / 4.0; }
};

// The article's CPU as AMD publishes it (Ryzen 5 5600X, Zen 3) with its usual memory.
struct CpuSpec {
    std::string name = "Ryzen 5 5600X";
    int cores = 6;
    double max_ghz = 4.6;            // the top boost clock; all cores under AVX2 load run lower
    int fma_units = 2;               // 256-bit FMA pipes per core
    int lanes = 8;                   // floats per 256-bit AVX2 register
    int channels = 2;                // dual-channel DDR4
    int channel_bytes = 8;           // 64 bits per channel
    double mega_transfers = 3200.0;  // DDR4-3200

    double flops_per_cycle_per_core() const { return fma_units * lanes * 2.0; }  // 32
    // cores x 32 x clock: 0.88 TFLOP/s, an upper estimate (the clock is the top boost).
    double fp32_flops() const;
    double bandwidth() const;  // channels x 8 bytes x 3,200 MT/s: 51.2 GB/s
};

// The arithmetic the GPU does the convolutions and matrix products in. The CPU side stays FP32 (the
// 5600X has no faster float arithmetic).
enum class Precision { Fp32, Tf32Tensor, Fp16Tensor };
std::string_view precision_name(Precision p);  // "FP32 (CUDA cores)", ...

// One machine as the roofline sees it.
struct Machine {
    std::string name;
    double flops = 0.0;                  // peak FLOP/s
    double bytes_per_s = 0.0;            // memory bandwidth
    int value_bytes = 4;                 // bytes per activation or weight (FP32: 4, FP16: 2)
    Source source = Source::Arithmetic;  // Arithmetic: from published parts; Measured: on this machine
    std::string flops_how, bytes_how;    // the arithmetic in words, or how it was measured
    // FLOP per byte where the roof bends: a layer below it is memory-bound on this machine.
    double ridge() const { return bytes_per_s > 0 ? flops / bytes_per_s : 0.0; }
};
Machine machine_of(const GpuSpec& gpu, Precision precision = Precision::Fp32);
Machine machine_of(const CpuSpec& cpu);

// One row of the roofline table: a layer's forward and backward work for one picture, and the
// bytes it moves for one picture at a batch (each tensor read or written once; weights and their
// gradients once per batch, so shared by its pictures).
struct LayerWork {
    std::string name;  // "conv1", ..., "loss + update"
    LayerKind kind = LayerKind::Relu;
    bool is_update = false;  // the loss and the SGD step, not a model layer
    double flops = 0.0;      // forward + backward, per picture
    double bytes = 0.0;      // per picture
    double intensity() const { return bytes > 0 ? flops / bytes : 0.0; }
};
// Every layer of `model`, then "loss + update", at `batch` pictures a step, with `value_bytes`
// per activation and weight (the SGD step's weights, gradients and momentum stay FP32).
std::vector<LayerWork> layer_work(const ModelDesc& model, std::int64_t batch, int value_bytes = 4);

// min(peak, AI x bandwidth).
double attainable_flops(const Machine& m, double intensity);
// The roofline time of one row or of all rows, per picture, in seconds.
double roofline_seconds(const Machine& m, const LayerWork& w);
double roofline_seconds(const Machine& m, const std::vector<LayerWork>& rows);
// true when the row sits left of the machine's ridge.
bool memory_bound(const Machine& m, const LayerWork& w);

// Time per picture of a whole training step on `slow` over that on `fast`, each with its own value
// size: the roofline's speed-up estimate for this model at this batch.
double roofline_speedup(const ModelDesc& model, std::int64_t batch, const Machine& slow, const Machine& fast);

// "20.3 TFLOP/s", "0.88 TFLOP/s" (two decimals under 10). Bandwidths use core::format_gbps.
std::string format_flop_rate(double flops);

}  // namespace gpulab::train
