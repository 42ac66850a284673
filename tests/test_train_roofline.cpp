// The roofline tab's arithmetic (core/train/roofline.h) recomputed by hand: the published parts of
// the article's two machines give their peaks, each layer's FLOPs and bytes follow from its shapes,
// and the roofline's time is max(FLOP / peak, bytes / bandwidth). Then this machine's measurement
// (core/train/machine_peak.h) is positive and under what its instruction set could ever do, and the
// lesson step's figures are the functions' own (as tests/test_lesson_numbers.cpp does for the rest).
#include <doctest/doctest.h>

#include <string>

#include "measure/format.h"
#include "lesson/lesson.h"
#include "backends/simd/simd_math.h"
#include "train/article_figures.h"
#include "train/machine_peak.h"
#include "train/roofline.h"

using namespace gpulab;
using namespace gpulab::train;

namespace {

ModelDesc article_model() { return make_model(kDefaultModelSpec, {1, 28, 28}, 10); }

const LayerWork& row(const std::vector<LayerWork>& rows, const std::string& name) {
    for (const LayerWork& w : rows)
        if (w.name == name) return w;
    FAIL("no row " << name);
    return rows.front();
}

bool says(const std::string& text, const std::string& figure) { return text.find(figure) != std::string::npos; }

}  // namespace

TEST_SUITE("train") {
    TEST_CASE("roofline: the article's machines' peaks are the arithmetic of their published parts") {
        const GpuSpec g;
        const CpuSpec c;
        // 5,888 x 2 x 1.725e9 = 20,313,600,000,000; 256 / 8 x 14e9 = 448e9.
        CHECK(g.fp32_flops() == doctest::Approx(20.3136e12));
        CHECK(g.bandwidth() == doctest::Approx(448e9));
        // 2 FMA units x 8 floats x 2 = 32 FLOP a cycle; x 6 cores x 4.6e9 = 883.2e9; 2 x 8 x 3,200e6 = 51.2e9.
        CHECK(c.flops_per_cycle_per_core() == 32.0);
        CHECK(c.fp32_flops() == doctest::Approx(883.2e9));
        CHECK(c.bandwidth() == doctest::Approx(51.2e9));
        // Tensor cores: 184 x 128 x 2 x 1.725e9 = 81.2544e12 with FP16 accumulation; FP32
        // accumulation at half, TF32 at a quarter: TF32 reaches exactly the FP32 peak on this card.
        CHECK(g.tensor_fp16_acc16_flops() == doctest::Approx(81.2544e12));
        CHECK(g.tensor_fp16_acc32_flops() == doctest::Approx(40.6272e12));
        CHECK(g.tensor_tf32_flops() == doctest::Approx(g.fp32_flops()));
        CHECK(format_flop_rate(g.fp32_flops()) == "20.3 TFLOP/s");
        CHECK(format_flop_rate(c.fp32_flops()) == "0.88 TFLOP/s");
        CHECK(core::format_gbps(g.bandwidth() / 1e9) == "448 GB/s");
        CHECK(core::format_gbps(c.bandwidth() / 1e9) == "51.2 GB/s");

        const Machine cpu = machine_of(c), gpu = machine_of(g), fp16 = machine_of(g, Precision::Fp16Tensor);
        CHECK(cpu.ridge() == doctest::Approx(883.2 / 51.2));
        CHECK(gpu.ridge() == doctest::Approx(20313.6 / 448.0));
        CHECK(fp16.value_bytes == 2);
        CHECK(machine_of(g, Precision::Tf32Tensor).flops == doctest::Approx(gpu.flops));
        // The arithmetic in words says what it multiplies, and every figure carries its source.
        CHECK(says(gpu.flops_how, "5,888 CUDA cores x 2 FLOP"));
        CHECK(says(gpu.flops_how, "1.725 GHz"));
        CHECK(says(cpu.flops_how, "6 cores x 2 FMA units x 8 floats x 2 FLOP x 4.6 GHz"));
        CHECK(says(cpu.bytes_how, "3,200 MT/s"));
        CHECK(source_label(Source::PublishedSpec) == "published spec");
        CHECK(source_label(Source::Estimate) == "estimate (roofline)");
    }

    TEST_CASE("roofline: a layer's FLOPs and bytes per picture, by hand") {
        const ModelDesc m = article_model();
        const std::vector<LayerWork> rows = layer_work(m, 150, 4);
        REQUIRE(rows.size() == m.layers.size() + 1);
        // conv1: 1x28x28 in, 32x26x26 = 21,632 out, 288 weights + 32 biases, no input gradient.
        // Forward 21,632 x (2 x 9 + 1); backward 2 x 194,688 multiply-adds' worth + 21,632.
        const LayerWork& conv1 = row(rows, "conv1");
        CHECK(conv1.flops == doctest::Approx(411008.0 + 411008.0));
        // 4 x (784 + 21,632) forward, 4 x (21,632 + 784) backward, weights read and gradients written
        // once per batch of 150: 4 x 320 x 2 / 150.
        CHECK(conv1.bytes == doctest::Approx(4.0 * 22416 * 2 + 4.0 * 320 * 2 / 150));
        // relu1: one FLOP each way per value; five tensors of 21,632 floats (in, out; grad in, saved, grad out).
        const LayerWork& relu1 = row(rows, "relu1");
        CHECK(relu1.flops == doctest::Approx(2.0 * 21632));
        CHECK(relu1.bytes == doctest::Approx(4.0 * 5 * 21632));
        CHECK(relu1.intensity() == doctest::Approx(0.1));
        // The update: softmax 4 x 10 + 10 FLOP per picture, 3 FLOP per parameter per batch; bytes: the
        // logits and their gradient, and 5 FP32 arrays of 93,322 per batch.
        const LayerWork& upd = rows.back();
        CHECK(upd.is_update);
        CHECK(upd.flops == doctest::Approx(50.0 + 3.0 * 93322 / 150));
        CHECK(upd.bytes == doctest::Approx(80.0 + 20.0 * 93322 / 150));
        // Every FLOP of the model is in some row.
        double flops = 0.0;
        for (const LayerWork& w : rows) flops += w.flops;
        CHECK(flops == doctest::Approx(m.forward_flops() + m.backward_flops() + m.step_flops() / 150));
        // dense2 at batch 1: its 650 parameters are read, then gradients written, for one picture.
        const std::vector<LayerWork> single = layer_work(m, 1, 4);  // kept: row() returns a reference into it
        const LayerWork& dense2 = row(single, "dense2");
        CHECK(dense2.bytes == doctest::Approx(4.0 * (64 + 10) + 4.0 * 650 + 4.0 * (10 + 64 + 64) + 4.0 * (640 + 650)));
        // FP16 halves the layers' bytes; the update stays FP32.
        const std::vector<LayerWork> half = layer_work(m, 150, 2);
        CHECK(row(half, "relu1").bytes == doctest::Approx(relu1.bytes / 2));
        CHECK(half.back().bytes == doctest::Approx(40.0 + 20.0 * 93322 / 150));
    }

    TEST_CASE("roofline: time is max(FLOP / peak, bytes / bandwidth), and the bound flips at the ridge") {
        const ModelDesc m = article_model();
        const Machine cpu = machine_of(CpuSpec{}), gpu = machine_of(GpuSpec{});
        const std::vector<LayerWork> rows = layer_work(m, 150, 4);
        const LayerWork& relu1 = row(rows, "relu1");
        const LayerWork& conv2 = row(rows, "conv2");
        const LayerWork& dense1 = row(rows, "dense1");
        CHECK(roofline_seconds(cpu, relu1) == doctest::Approx(432640.0 / 51.2e9));
        CHECK(roofline_seconds(gpu, conv2) == doctest::Approx(conv2.flops / 20.3136e12));
        CHECK(attainable_flops(gpu, 1.0) == doctest::Approx(448e9));
        CHECK(attainable_flops(gpu, 1000.0) == doctest::Approx(20.3136e12));
        CHECK(memory_bound(cpu, relu1));
        CHECK(memory_bound(gpu, relu1));
        CHECK_FALSE(memory_bound(cpu, conv2));
        CHECK_FALSE(memory_bound(gpu, conv2));
        // dense1 (about 21 FLOP a byte) sits between the ridges: compute-bound on the CPU (17.25),
        // memory-bound on the GPU (45.3), so the GPU's lead there is the bandwidth's, not the peak's.
        CHECK(dense1.intensity() > cpu.ridge());
        CHECK(dense1.intensity() < gpu.ridge());
        CHECK(roofline_seconds(cpu, rows) == doctest::Approx([&] {
                  double s = 0;
                  for (const auto& w : rows) s += roofline_seconds(cpu, w);
                  return s;
              }()));
        // The whole step's ratio lies between the bandwidth ratio and the peak ratio.
        const double s150 = roofline_speedup(m, 150, cpu, gpu);
        CHECK(s150 == doctest::Approx(roofline_seconds(cpu, rows) / roofline_seconds(gpu, rows)));
        CHECK(s150 > gpu.bytes_per_s / cpu.bytes_per_s);
        CHECK(s150 < gpu.flops / cpu.flops);
        // A bigger batch moves fewer weight bytes per picture; TF32 changes nothing on this card;
        // FP16 raises the peak and halves the bytes.
        CHECK(roofline_speedup(m, 1, cpu, gpu) < s150);
        CHECK(roofline_speedup(m, 150, cpu, machine_of(GpuSpec{}, Precision::Tf32Tensor)) == doctest::Approx(s150));
        CHECK(roofline_speedup(m, 150, cpu, machine_of(GpuSpec{}, Precision::Fp16Tensor)) > 1.9 * s150);
    }

    TEST_CASE("roofline: this machine's peaks are measured, positive, and under what its ISA could do") {
        const MeasuredPeaks p = measure_peaks(20'000'000, std::size_t{8} << 20);
        INFO(p.error);
        REQUIRE(p.ok);
        CHECK(p.threads >= 1);
        CHECK(p.isa == std::string(cpu::simd_isa_name(cpu::best_simd_isa())));
        CHECK(p.flops > 1e9);
        // Two FMA units per core of `lanes` floats, 2 FLOP each, at an impossible 6 GHz.
        CHECK(p.flops < p.threads * 2.0 * p.lanes * 2.0 * 6e9);
        CHECK(p.bytes_per_s > 1e8);
        CHECK_FALSE(p.copy_name.empty());
        const Machine here = machine_of(p);
        CHECK(here.source == Source::Measured);
        CHECK(says(here.flops_how, p.isa));
        CHECK(says(here.bytes_how, "read + write"));
    }

    TEST_CASE("train-small-cnn: the roofline step's figures are the functions' own") {
        const core::LessonCatalog cat = core::load_lessons({std::string(GPULAB_SOURCE_DIR) + "/lessons"});
        const core::Lesson* lesson = cat.find("train-small-cnn");
        REQUIRE(lesson != nullptr);
        std::size_t race = lesson->steps.size(), peaks = lesson->steps.size();
        for (std::size_t i = 0; i < lesson->steps.size(); ++i) {
            if (lesson->steps[i].title == "The race") race = i;
            if (lesson->steps[i].title == "Peaks and the roofline") peaks = i;
        }
        REQUIRE(peaks < lesson->steps.size());
        CHECK(peaks == race + 1);  // right after the race that quotes the article's ratio
        const core::LessonStep& s = lesson->steps[peaks];
        CHECK(core::param_string(s.params, "panel", "") == "roofline");
        const GpuSpec g;
        const CpuSpec c;
        const Machine cpu = machine_of(c), gpu = machine_of(g);
        const ModelDesc m = article_model();
        INFO(s.body);
        CHECK(says(s.body, core::format_count(g.cuda_cores) + " CUDA cores x 2 FLOP"));
        CHECK(says(s.body, core::format_fixed(g.boost_ghz, 3) + " GHz = **" + format_flop_rate(g.fp32_flops()) + "**"));
        CHECK(says(s.body, std::to_string(g.bus_bits) + "-bit bus at " + core::format_fixed(g.gbps_per_pin, 0) +
                               " Gb/s per pin = **" + core::format_gbps(g.bandwidth() / 1e9) + "**"));
        CHECK(says(s.body, std::to_string(c.cores) + " cores x " + core::format_fixed(c.flops_per_cycle_per_core(), 0) +
                               " FLOP per cycle (" + std::to_string(c.fma_units) + " FMA units x " +
                               std::to_string(c.lanes) + " floats x 2)"));
        CHECK(says(s.body, core::format_fixed(c.max_ghz, 1) + " GHz = **" + format_flop_rate(c.fp32_flops()) + "**"));
        CHECK(says(s.body, "DDR4-" + core::format_fixed(c.mega_transfers, 0) + " = **" +
                               core::format_gbps(c.bandwidth() / 1e9) + "**"));
        CHECK(says(s.body, "**" + core::format_ratio(gpu.flops / cpu.flops) + "** the arithmetic"));
        CHECK(says(s.body, "**" + core::format_ratio(gpu.bytes_per_s / cpu.bytes_per_s) + "** the memory bandwidth"));
        CHECK(says(s.body, "batch of " + std::to_string(ArticleFigures::kBatch) + " in FP32 the estimate is **" +
                               core::format_ratio(roofline_speedup(m, ArticleFigures::kBatch, cpu, gpu)) + "**"));
        CHECK(says(s.body, "the estimate becomes **" +
                               core::format_ratio(roofline_speedup(m, ArticleFigures::kBatch, cpu,
                                                                   machine_of(g, Precision::Fp16Tensor))) +
                               "**"));
        CHECK(says(s.body, "peaks at " + core::format_fixed(g.tensor_tf32_flops() / 1e12, 1) + " TFLOP/s dense"));
        CHECK(says(s.body, "peaks at " + core::format_fixed(g.tensor_fp16_acc32_flops() / 1e12, 1) + " and halves"));
        // The article's ratio is quoted through its function, and is above the ratio of the peaks.
        CHECK(says(s.body, "**" + article_speedup_text() + "**"));
        CHECK(ArticleFigures::speedup() > gpu.flops / cpu.flops);
        CHECK(says(s.body, "even more than the ratio of the peaks"));
        // Labelled: arithmetic on published specs, an upper estimate, an estimate.
        CHECK(says(s.body, "arithmetic on published specs"));
        CHECK(says(s.body, "an upper estimate"));
        // The GeForce card's dense TF32 figure is not the 81 (FP16 accumulation) or 40.6 (sparse) one.
        CHECK_FALSE(says(s.body, "81"));
    }
}
