// Every figure a lesson file states about the code (paths per warp, blocks, waves, registers, FLOPs,
// the pool's chunk) is recomputed here from the functions the views and workloads use, so the text
// cannot drift from the computation. A figure the code changes makes this test name the step.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "ops/conv2d.h"
#include "measure/format.h"
#include "gpu_model/gpu_model.h"
#include "lesson/lesson.h"
#include "ops/simt.h"
#include "runtime/thread_pool.h"
#include "ops/fp_formats.h"
#include "train/article_figures.h"
#include "train/loss_scaling.h"
#include "train/model.h"
#include "workloads/simd_mimd.h"

using namespace gpulab;
using namespace gpulab::core;

namespace {

const LessonCatalog& catalog() {
    static const LessonCatalog cat = load_lessons({std::string(GPULAB_SOURCE_DIR) + "/lessons"});
    return cat;
}

const LessonStep& step(const std::string& lesson, const std::string& title) {
    const Lesson* l = catalog().find(lesson);
    REQUIRE(l != nullptr);
    for (const LessonStep& s : l->steps)
        if (s.title == title) return s;
    FAIL("no step '" << title << "' in " << lesson);
    return l->steps.front();
}

bool says(const std::string& text, const std::string& figure) { return text.find(figure) != std::string::npos; }

}  // namespace

TEST_SUITE("lesson") {
    TEST_CASE("the random pattern's paths per warp in simd-vs-mimd agree with core/ops/simt.h") {
        const LessonStep& s = step("simd-vs-mimd", "Data-dependent branches");
        // The emulator's mean over many warps of the hash in simt.h, and the closed form
        // 8 (1 - (7/8)^32) the header gives: both 7.9.
        const double mean = theoretical_factor(simt::Pattern::Random, 4096);
        CHECK(mean == doctest::Approx(7.86).epsilon(0.01));
        const std::string figure = format_fixed(mean, 1) + " of " + std::to_string(simt::paths_per_warp(simt::Pattern::Random));
        INFO("expected '" << figure << "' in: " << s.body);
        CHECK(says(s.body, figure));
        CHECK_FALSE(says(s.body, "about five"));
    }

    TEST_CASE("the H100 example of conv-sliding-window agrees with core/gpu_model/gpu_model.h") {
        const LessonStep& s = step("conv-sliding-window", "All at once: a GPU's way");
        const ExampleGpu& g = kExampleGpu;
        const int regs = tiled_conv_registers(g.cc_major, g.cc_minor);
        const int per_sm = resident_blocks_per_sm(g.cc_major, g.cc_minor, 256, regs);
        // The step's own output size, from its settings (stride 1, zero padding: output = input).
        const int64_t h = param_int(s.params, "height", 0), w = param_int(s.params, "width", 0);
        REQUIRE(h > 0);
        REQUIRE(param_int(s.params, "stride", 1) == 1);
        const std::string size = std::to_string(h) + " x " + std::to_string(w);
        const int64_t here = tiled_conv_blocks(h, w, 1), big = tiled_conv_blocks(4096, 4096, 1);
        const Waves ws = waves_of(here, g.sm_count, per_sm), wb = waves_of(big, g.sm_count, per_sm);
        INFO(s.notes);
        INFO(s.body);
        CHECK(says(s.body, size + " output is " + format_count(here) + " blocks"));
        CHECK(says(s.notes, std::to_string(g.sm_count) + " SMs"));
        CHECK(says(s.notes, "about " + std::to_string(regs) + " registers per thread"));
        CHECK(says(s.notes, "holds " + std::to_string(per_sm) + " blocks of 256 threads"));
        CHECK(says(s.notes, format_count(ws.per_wave) + " blocks run at once"));
        CHECK(says(s.notes, size + " output (" + format_count(here) + " blocks) takes " + std::to_string(ws.waves) +
                                (ws.waves == 1 ? " wave" : " waves")));
        CHECK(says(s.notes, "(" + format_count(big) + " blocks, " + std::to_string(wb.waves) + " waves)"));
        // Resident is not executing: the step must not say every pixel is computed at once.
        CHECK_FALSE(says(s.body, "at the same time"));
        CHECK(says(s.body, "interleaves"));
    }

    TEST_CASE("the layer arithmetic of conv-sliding-window agrees with Conv2dDesc::flops") {
        const LessonStep& s = step("conv-sliding-window", "Channels, honestly");
        Conv2dDesc map;  // one 128 x 128 output map of a C = 64, 3x3 layer
        map.channels = 64;
        map.height = map.width = 128;
        map.filters = 1;
        map.kernel = 3;
        Conv2dDesc layer = map;
        layer.filters = 64;
        INFO(s.notes);
        CHECK(says(s.notes, format_count(layer.filter_elements()) + " weights"));
        CHECK(says(s.notes, format_fixed(map.flops() / 1e6, 1) + " MFLOP"));
        CHECK(says(s.notes, format_fixed(layer.flops() / 1e9, 2) + " GFLOP"));
    }

    TEST_CASE("the thread pool's inline range in latency-vs-throughput agrees with core/runtime/thread_pool.h") {
        const LessonStep& s = step("latency-vs-throughput", "The size sweep");
        INFO(s.body);
        CHECK(says(s.body, format_count(cpu::kDefaultChunk) + " floats"));
    }

    TEST_CASE("train-small-cnn: the model's size and work agree with train::make_model") {
        const LessonStep& s = step("train-small-cnn", "The model");
        const train::ModelDesc m = train::make_model(train::kDefaultModelSpec, {1, 28, 28}, 10);
        INFO(s.body);
        CHECK(says(s.body, "**" + format_count(m.parameter_count) + " parameters**"));
        CHECK(says(s.body, "**" + format_fixed(m.forward_flops() / 1e6, 1) + " MFLOP** forward"));
        // A multiply-add is two FLOPs: 5.7 MFLOP is about 2.8 million of them.
        CHECK(says(s.body, "about " + format_fixed(m.forward_flops() / 2e6, 1) + " million multiply-adds"));
        // The model is not the one the article timed, and the text says so.
        CHECK(says(s.body, "times nothing"));
        CHECK_FALSE(says(s.body, "93 thousand"));
    }

    TEST_CASE("train-small-cnn: the article's timing is quoted once, computed, and labelled as another model's") {
        using F = train::ArticleFigures;
        CHECK(F::speedup() == doctest::Approx(26.07).epsilon(0.001));
        CHECK(F::steps_per_epoch() == 14);
        CHECK(F::steps() == 280);
        CHECK(F::gpu_ms_per_step() == doctest::Approx(46.57).epsilon(0.001));
        CHECK(F::cpu_s_per_step() == doctest::Approx(1.214).epsilon(0.001));
        const LessonStep& s = step("train-small-cnn", "The race");
        INFO(s.body);
        CHECK(says(s.body, "**" + train::article_speedup_text() + "**"));
        CHECK(says(s.body, "the article says " + std::to_string(F::kQuotedSpeedup) + "x"));
        CHECK(says(s.body, std::to_string(F::steps()) + " steps"));
        CHECK(says(s.body, format_fixed(F::gpu_ms_per_step(), 1) + " ms a step"));
        CHECK(says(s.body, format_fixed(F::cpu_s_per_step(), 2) + " s on the CPU"));
        CHECK(says(s.body, format_count(F::kImages) + " pictures"));
        CHECK(says(s.body, "a different model"));
        CHECK(says(s.body, "TF32"));
        CHECK_FALSE(says(s.body, "61 ms"));
        CHECK_FALSE(says(s.body, "about **28x**"));
        // The sentences the views use carry the same figures and the same label.
        const std::string line = train::article_experiment_sentence();
        CHECK(says(line, train::article_speedup_text()));
        CHECK(says(line, "a different model"));
        CHECK(says(line, "Not measured here"));
        CHECK(says(train::article_step_sentence(), format_fixed(F::gpu_ms_per_step(), 1) + " ms"));
    }

    TEST_CASE("train-small-cnn: the race is one key away, and its seconds are the step's own") {
        const LessonStep& s = step("train-small-cnn", "The race");
        INFO(s.body);
        CHECK(s.action.empty());  // a minute of racing never starts just because the step was entered
        CHECK(says(s.body, "press **R** to start the race"));
        CHECK(says(s.body, "**" + std::to_string(param_int(s.params, "budget_s", 0)) + " seconds**"));
        CHECK(step("train-small-cnn", "Batch size").action.empty());
    }

    TEST_CASE("tensor-cores: the FP16 rounding threshold and the loss scaler's growth are the code's (issue 42)") {
        // Just below 1, FP16 numbers are 2^-11 apart; round to nearest keeps 1 for any update below
        // half of that, 2^-12, and moves it for one just above.
        const float gap = 1.0f - round_fp16(1.0f - std::ldexp(1.0f, -11));
        CHECK(gap == std::ldexp(1.0f, -11));
        CHECK(round_fp16(1.0f - 0.9f * std::ldexp(1.0f, -12)) == 1.0f);
        CHECK(round_fp16(1.0f - 1.1f * std::ldexp(1.0f, -12)) != 1.0f);
        const LessonStep& master = step("tensor-cores", "FP32 master weights");
        INFO(master.body);
        CHECK(says(master.body, "2^-11 apart"));
        CHECK(says(master.body, "half that gap (2^-12 for a weight of 1)"));
        const LessonStep& scaling = step("tensor-cores", "Loss scaling");
        INFO(scaling.body);
        CHECK(says(scaling.body, "skips its update and halves the scale"));
        CHECK(says(scaling.body, "doubles it after " + std::to_string(train::LossScaler::kGrowthInterval)));
    }
}
