// Peaks from published parts, bytes per layer, the roofline: see roofline.h.
#include "roofline.h"

#include <algorithm>
#include <cstdio>

#include "measure/format.h"

namespace gpulab::train {

namespace {

std::string ghz(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g GHz", v);
    return buf;
}

}  // namespace

std::string_view source_label(Source source) {
    switch (source) {
        case Source::PublishedSpec:
            return "published spec";
        case Source::Arithmetic:
            return "arithmetic";
        case Source::Measured:
            return "measured on this machine";
        case Source::Estimate:
            return "estimate (roofline)";
    }
    return "";
}

double GpuSpec::fp32_flops() const { return cuda_cores * 2.0 * boost_ghz * 1e9; }
double GpuSpec::bandwidth() const { return bus_bits / 8.0 * gbps_per_pin * 1e9; }
double GpuSpec::tensor_fp16_acc16_flops() const {
    return tensor_cores * tensor_fp16_fma_per_cycle * 2.0 * boost_ghz * 1e9;
}

double CpuSpec::fp32_flops() const { return cores * flops_per_cycle_per_core() * max_ghz * 1e9; }
double CpuSpec::bandwidth() const { return channels * channel_bytes * mega_transfers * 1e6; }

std::string_view precision_name(Precision p) {
    switch (p) {
        case Precision::Fp32:
            return "FP32 on the CUDA cores";
        case Precision::Tf32Tensor:
            return "TF32 on the tensor cores";
        case Precision::Fp16Tensor:
            return "FP16 on the tensor cores (FP32 accumulation)";
    }
    return "";
}

Machine machine_of(const GpuSpec& gpu, Precision precision) {
    Machine m;
    m.name = gpu.name;
    m.bytes_per_s = gpu.bandwidth();
    m.bytes_how = std::to_string(gpu.bus_bits) + "-bit bus / 8 x " + core::format_fixed(gpu.gbps_per_pin, 0) +
                  " Gb/s per pin (GDDR6)";
    switch (precision) {
        case Precision::Fp32:
            m.flops = gpu.fp32_flops();
            m.flops_how = core::format_count(gpu.cuda_cores) + " CUDA cores x 2 FLOP (one FMA) x " + ghz(gpu.boost_ghz);
            break;
        case Precision::Tf32Tensor:
            m.flops = gpu.tensor_tf32_flops();
            m.flops_how = std::to_string(gpu.tensor_cores) + " tensor cores x " +
                          std::to_string(gpu.tensor_fp16_fma_per_cycle) + " FP16 FMA x 2 FLOP x " + ghz(gpu.boost_ghz) +
                          ", a quarter for TF32 on a GeForce card";
            break;
        case Precision::Fp16Tensor:
            m.flops = gpu.tensor_fp16_acc32_flops();
            m.value_bytes = 2;
            m.flops_how = std::to_string(gpu.tensor_cores) + " tensor cores x " +
                          std::to_string(gpu.tensor_fp16_fma_per_cycle) + " FP16 FMA x 2 FLOP x " + ghz(gpu.boost_ghz) +
                          ", half for FP32 accumulation on a GeForce card";
            break;
    }
    return m;
}

Machine machine_of(const CpuSpec& cpu) {
    Machine m;
    m.name = cpu.name;
    m.flops = cpu.fp32_flops();
    m.bytes_per_s = cpu.bandwidth();
    m.flops_how = std::to_string(cpu.cores) + " cores x " + std::to_string(cpu.fma_units) + " FMA units x " +
                  std::to_string(cpu.lanes) + " floats x 2 FLOP x " + ghz(cpu.max_ghz);
    m.bytes_how = std::to_string(cpu.channels) + " channels x " + std::to_string(cpu.channel_bytes) + " bytes x " +
                  core::format_count(static_cast<std::int64_t>(cpu.mega_transfers)) + " MT/s (DDR4-" +
                  core::format_fixed(cpu.mega_transfers, 0) + ")";
    return m;
}

std::vector<LayerWork> layer_work(const ModelDesc& model, std::int64_t batch, int value_bytes) {
    const double b = value_bytes;
    const double per_batch = 1.0 / static_cast<double>(std::max<std::int64_t>(batch, 1));
    std::vector<LayerWork> rows;
    double layer_flops = 0.0;
    for (const Layer& l : model.layers) {
        LayerWork w;
        w.name = l.name;
        w.kind = l.kind;
        w.flops = l.forward_flops() + l.backward_flops();
        layer_flops += w.flops;
        const double in = static_cast<double>(l.in.size()), out = static_cast<double>(l.out.size());
        const double params = static_cast<double>(l.weight_count + l.bias_count);
        const double input_grad = l.needs_input_gradient ? in : 0.0;
        switch (l.kind) {
            case LayerKind::Conv:
            case LayerKind::Dense:
                // Forward: read the input, write the output, read the weights once per batch.
                // Backward: read the output's gradient and the saved input, write the input's
                // gradient; read the weights (for that gradient) and write their gradients, per batch.
                w.bytes =
                    b * (in + out) + b * params * per_batch + b * (out + in + input_grad) +
                    b * ((l.needs_input_gradient ? static_cast<double>(l.weight_count) : 0.0) + params) * per_batch;
                break;
            case LayerKind::Relu:
                // Forward: read, write. Backward: the gradient in, the saved values, the gradient out.
                w.bytes = b * (in + out) + b * (out + in + input_grad);
                break;
            case LayerKind::MaxPool:
                // Backward reads the saved input to find each window's maximum again.
                w.bytes = b * (in + out) + b * (out + in + input_grad);
                break;
        }
        rows.push_back(w);
    }
    // The loss (softmax forward, minus one-hot backward) per picture, and the SGD step once per
    // batch: 3 FLOP per parameter, reading weights, gradients and momentum and writing weights and
    // momentum, in FP32 whatever the layers use (mixed precision keeps FP32 master weights).
    LayerWork update;
    update.name = "loss + update";
    update.is_update = true;
    const double loss_flops = model.forward_flops() + model.backward_flops() - layer_flops;
    update.flops = loss_flops + model.step_flops() * per_batch;
    update.bytes = b * 2.0 * model.classes + 4.0 * 5.0 * static_cast<double>(model.parameter_count) * per_batch;
    rows.push_back(update);
    return rows;
}

double attainable_flops(const Machine& m, double intensity) { return std::min(m.flops, intensity * m.bytes_per_s); }

double roofline_seconds(const Machine& m, const LayerWork& w) {
    // flops / min(peak, AI x bandwidth) = max(flops / peak, bytes / bandwidth): the form that stays
    // finite for a row with no flops.
    if (m.flops <= 0 || m.bytes_per_s <= 0) return 0.0;
    return std::max(w.flops / m.flops, w.bytes / m.bytes_per_s);
}

double roofline_seconds(const Machine& m, const std::vector<LayerWork>& rows) {
    double s = 0.0;
    for (const LayerWork& w : rows) s += roofline_seconds(m, w);
    return s;
}

bool memory_bound(const Machine& m, const LayerWork& w) { return w.intensity() < m.ridge(); }

double roofline_speedup(const ModelDesc& model, std::int64_t batch, const Machine& slow, const Machine& fast) {
    const double t_fast = roofline_seconds(fast, layer_work(model, batch, fast.value_bytes));
    const double t_slow = roofline_seconds(slow, layer_work(model, batch, slow.value_bytes));
    return t_fast > 0 ? t_slow / t_fast : 0.0;
}

std::string format_flop_rate(double flops) {
    const double t = flops / 1e12;
    return core::format_fixed(t, t >= 10 ? 1 : 2) + " TFLOP/s";
}

}  // namespace gpulab::train
