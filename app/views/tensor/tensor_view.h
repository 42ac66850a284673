// The tensor-core lesson's view (lessons/tensor-cores.toml, workload "tensor"). One job on the worker
// computes what the panels show (tensor_view.cpp, measure_tensor): the lane data of the simulated
// mma.sync kernel for FP16 and BF16 (sim::mma_lane_data: which element each of the 32 lanes held),
// a whole matrix product on the simulated kernel checked against cpu-scalar, and the precision
// ladder's dot-product sweep (core::run_dot_sweep). The canvas has three tabs:
//   One instruction   A, B and D of one mma.sync, every element coloured and numbered by the lane
//                     that held it, from the kernel's own lane data; a lane picker lights up one
//                     lane's 8 A, 4 B and 4 C/D elements (tensor_fragments.cpp)
//   Number formats    a number the student types, in FP32, TF32, BF16 and FP16: the bits in their
//                     fields, what is stored, the step there, the range (tensor_formats.cpp)
//   Dot product error the sweep's error against K, one line per input format and accumulator
//                     (tensor_dot_plot.cpp)
//   Training in BF16  the training lesson's CNN trained in FP32, BF16 mixed precision and with BF16
//                     weights, the three loss curves on one plot, and how many updates BF16 weights
//                     lost (tensor_training.cpp; its own job and cache: train::run_precision_race)
// The Timing window holds the step's predict prompt (answered by the sweep), the numbers behind
// the pictures and the kernel check (tensor_controls.cpp). Every number is computed from the step's
// settings or labelled as arithmetic or the formats' definitions; the simulated kernel's time is
// the simulator's, never a GPU's. Export writes <lesson>-tensor.png, -window.png and -tensor.csv.
// Verified by tests/tensor_gui_tests.cmake and by the screenshots.
#pragma once

#include <imgui.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "measure/result_cache.h"
#include "ops/fp_formats.h"
#include "runtime/memory.h"
#include "sim/sim_kernels.h"
#include "train/gradient_precision.h"
#include "train/precision_race.h"
#include "workloads/gemm_ladder.h"
#include "compare/compare_import.h"
#include "views/lesson_view.h"
#include "views/recorded_gpu.h"
#include "workloads/precision_ladder.h"
#include "workloads/tensor_speed.h"

namespace gpulab::app {

// A whole matrix product on the simulated tensor-core kernel against cpu-scalar's loop with the
// same rounded inputs and FP32 accumulation (equal bit for bit: tests/test_tensor_kernel.cpp).
struct KernelCheck {
    bool ok = false;
    std::string error;
    kern::MmaInput input = kern::MmaInput::Fp16;
    int64_t m = 0, n = 0, k = 0;
    int64_t outputs_differing = -1;
    int64_t instructions = 0;  // mma.sync executions of the whole grid: tiles x K / 16
    int64_t warps = 0;
    int64_t sim_ns = 0;        // the simulator's wall time on this CPU: never a GPU time
};

struct TensorMeasurement {
    sim::MmaLaneData lanes[2];   // FP16, BF16
    KernelCheck checks[2];
    core::DotSweep sweep;
    int64_t started_unix_s = 0;
    train::BatchGradients gradients;  // one batch of the training lesson's CNN (the gradients panel)
    core::GemmSpeedRun speed;         // FP32 against BF16 matrix products on this CPU (the speed panel)
    const sim::MmaLaneData& lanes_for(kern::MmaInput in) const { return lanes[in == kern::MmaInput::Fp16 ? 0 : 1]; }
    const KernelCheck& check_for(kern::MmaInput in) const { return checks[in == kern::MmaInput::Fp16 ? 0 : 1]; }
};

// The size of the kernel check: 64 x 64 x 64, 32 tiles of 16 x 8, four mma.sync each.
inline constexpr int64_t kCheckSide = 64;
// The speed panel's matrices: 512 x 512 x 512 (134 million multiply-adds a product).
inline constexpr int64_t kSpeedSide = 512;

// About how much memory a measurement holds, for the results cache's budget.
std::size_t tensor_measurement_bytes(const TensorMeasurement& m);

// Everything the job computes, on the calling thread; `keep_going` false stops it (nullptr back).
std::shared_ptr<const TensorMeasurement> measure_tensor(const core::DotSweepConfig& sweep,
                                                        const std::function<bool(float, const std::string&)>& keep_going);

// The lesson's CSV: caption lines as # comments, then the lane data, the typed number in each
// format, the formats' ranges, the sweep and the kernel checks, each a table with its own header.
// `speed`: the speed rows shown (this machine's, with a recording's GPU rows where none ran here).
std::string tensor_csv(const TensorMeasurement& m, const core::GemmSpeedRun& speed, kern::MmaInput input, double value,
                       const std::vector<std::string>& caption);
std::vector<std::string> tensor_caption_lines(const TensorMeasurement& m, std::string_view lesson_title, double value);

// A number as the student would type it: "0.1", "65504", "1e-06", "infinity", "NaN".
std::string number_text_of(double v);

// The four formats' colours (palette_colours.h, kColourBlindFormats) and marker shapes.
ImU32 format_colour(core::FpFormat f, float alpha = 1.0f);

// [SECTION] drawing, shared by the canvas and the exported PNG
// The three tiles of one mma.sync with each element's lane; `lane` lit (-1: none). Returns the
// lane of the element under the mouse, or -1. `size`: the room the picture may take.
int draw_fragment_tiles(const sim::MmaLaneData& d, int lane, ImVec2 size, const Fonts& fonts);
// "lane 5 (g = 1, t = 1) holds A[1][2] ..." from the lane data.
std::string lane_holdings(const sim::MmaLaneData& d, int lane);
// The typed number in each format: bit boxes by field, stored value, error, step.
void draw_format_rows(double value, float width, const Fonts& fonts);
// Range and step of each format, from its definition.
void draw_format_ranges();
// The stored number with the representable numbers just below and above it, per format.
void draw_format_neighbours(double value);
// Error against K, log-log; `hide_narrow` / `hide_fp32` leave out the lines a prompt asks about.
void draw_dot_plot(const core::DotSweep& s, ImVec2 size, int64_t mark_k, bool hide_narrow, bool hide_fp32);
// The sweep's numbers at `k`: one row per line.
void draw_dot_table(const core::DotSweep& s, int64_t k, bool hide_narrow, bool hide_fp32);
void draw_kernel_check(const KernelCheck& c);
// [SECTION] training in low precision (tensor_gradients.cpp)
// What the gradients panel shows of one batch at one loss scale, counted once: 93,322 roundings per
// format are too many to redo every frame, so the view keeps this until the run or the scale changes.
// Two sets: the weight gradients (kept whole) and the gradients between layers (counted in core
// under every scale, train::ScaledGradientCounts; absent from a result measured before they were).
struct GradientCounts {
    int scale_exp = 0;
    train::PowerHistogram histogram;  // of the unscaled weight gradients
    train::CastCounts fp16, bf16;     // under the scale 2^scale_exp
    bool has_between = false;
    train::PowerHistogram between_histogram;        // of the gradients between layers
    train::CastCounts between_fp16, between_bf16;  // under the scale 2^scale_exp
    int safe_exp = 0;  // the largest scale's power that overflows none of either set in FP16
};
GradientCounts count_gradients(const train::BatchGradients& g, int scale_exp);
// One batch's gradients by power of two, as a share of each set's non-zero values: weight
// gradients solid, the gradients between layers hatched beside them. `coloured`: each bar coloured
// by what FP16 makes of it under the loss scale (lost, subnormal, normal, overflow), the bands named
// above; otherwise neutral bars (a predict prompt's answer is in the colours).
void draw_gradient_histogram(const GradientCounts& c, ImVec2 size, bool coloured = true);
// The counts behind it for FP16 and BF16 at this scale, and the largest scale that overflows nothing.
void draw_gradient_table(const train::BatchGradients& g, const GradientCounts& c);
// Which pictures, engine and training steps the batch came from (one muted line).
void draw_gradient_source(const train::BatchGradients& g);
// A weight of 1 minus the same small step, update after update, kept in each format.
void draw_weight_walk(const train::WeightWalk& w, ImVec2 size);
void draw_weight_walk_table(const train::WeightWalk& w);
// [SECTION] training in BF16 (tensor_training.cpp)
// Each lane's loss (mean of the last 10 batches) against the batch, the three on one plot.
void draw_precision_loss_plot(const train::PrecisionRace& r, ImVec2 size);
// Per lane: precision, final loss, test accuracy, updates lost; `hide_lost` leaves the lost column
// blank until the prompt is answered.
void draw_precision_table(const train::PrecisionRace& r, bool hide_lost);
// What ran and what it showed, one wrapped line each (train::describe_precision_race).
void draw_precision_sentences(const train::PrecisionRace& r);
std::size_t precision_race_bytes(const train::PrecisionRace& r);
// "148 GFLOP/s", "1.7 GFLOP/s": the speed and ladder panels' figures (tensor_speed_panel.cpp).
std::string gflops_text(double gflops);
// The FP32 ladder's cache budget and its rows for the lesson's CSV (tensor_ladder.cpp).
std::size_t gemm_ladder_bytes(const core::GemmLadder& l);
std::string gemm_ladder_csv(const core::GemmLadder& l);
// The race's rows for the lesson's CSV: one per lane, then every batch's loss per lane.
std::string precision_race_csv(const train::PrecisionRace& r);
// [SECTION] speed (tensor_speed_panel.cpp)
// The matrix products' GFLOP/s as bars with their spread, each with the path that ran (four CPU
// rows, then four gpu-cublas rows, run or not).
void draw_speed_bars(const core::GemmSpeedRun& run, float width);
// How the gpu-cublas rows of `run` were timed, or that they need an NVIDIA GPU.
void draw_speed_gpu_note(const core::GemmSpeedRun& run);
// `run` with each GPU row that did not run here replaced by `recorded`'s row of the same backend,
// format and size (its source set, drawn outlined and hatched); `run` itself when `recorded` is null.
core::GemmSpeedRun with_recorded_rows(const core::GemmSpeedRun& run, const core::ImportedTensorSpeed* recorded);
// The sentence every panel with model arithmetic carries.
extern const char* const kModelNote;

class TensorView : public LessonView {
  public:
    enum class Panel { Fragments, Formats, Dot, Gradients, Master, Training, Speed, Ladder };

    explicit TensorView(ViewHost& host);

    void enter_step(const core::LessonStep& step) override;
    void update(float dt) override;
    void request_run() override;
    void run_blocking(bool quick) override;
    void show_overview_panel() override;
    // The training panel has its own result; every other panel shows the main measurement.
    bool has_result() const override {
        return panel_ == Panel::Training ? race_ != nullptr : panel_ == Panel::Ladder ? ladder_ != nullptr : result_ != nullptr;
    }

    void draw_canvas() override;
    void draw_timing() override;
    void draw_controls() override;
    bool draws_predict_prompt() const override { return true; }
    // The timing panel holds a prompt and a small table: the pictures get most of the height.
    float presenter_canvas_share() const override { return 0.62f; }
    bool script_action(const std::string& name, std::string& said) override;
    bool load_comparison(const std::string& path, std::string& error) override;
    std::string comparison_file_suffix() const override { return "-tensor.csv"; }

    ExportResult export_files(const ViewExport& in) override;
    std::string export_description() const override;
    std::string measurement_csv(const std::string& lesson_title) const override;

  private:
    // [SECTION] panels (tensor_fragments.cpp, tensor_formats.cpp, tensor_dot_plot.cpp)
    void draw_fragments_panel();
    void draw_formats_panel();
    void draw_dot_panel();
    void draw_gradients_panel();
    void draw_master_panel();
    void draw_training_panel();
    bool training_race_shown();  // false, with the reason drawn, when there is no race to show
    void draw_training_timing();
    void draw_speed_panel();
    // The speed rows on screen: this machine's, and the shipped GPU recording's GPU rows of the same
    // size where none ran here (views/recorded_gpu.h).
    core::GemmSpeedRun shown_speed() const;
    mutable RecordedMatch<core::ImportedTensorSpeed> recorded_speed_;
    const train::WeightWalk& weight_walk();  // for weight_step_, computed when it changes
    const GradientCounts& gradient_counts();  // for result_ and loss_scale_exp_, counted when one changes
    // The gradients prompt's answer for result_ and predict_, worked out once (a pass over the batch).
    const train::GradientAnswer& gradient_answer();
    void draw_predict();
    void draw_result_note();
    // Which lines the unanswered prompt hides: {narrow, fp32}.
    std::pair<bool, bool> hidden_lines() const;
    int64_t prompt_k() const;

    // [SECTION] runs (tensor_view.cpp)
    core::DotSweepConfig sweep_config() const;
    bool result_matches_config() const;
    bool start_run();
    void finish(std::shared_ptr<const TensorMeasurement> m);
    static std::string config_key(const core::DotSweepConfig& c);
    // [SECTION] the training panel's run (tensor_training.cpp)
    train::PrecisionRaceConfig race_config(bool quick) const;
    static std::string race_key(const train::PrecisionRaceConfig& c);
    bool start_race();
    // The FP32 ladder (tensor_ladder.cpp): its own run and cache, as the race.
    static std::string ladder_key(int64_t size);
    static int64_t ladder_size(bool quick);
    static std::shared_ptr<const core::GemmLadder> measure_ladder(int64_t size);
    bool start_ladder();
    void finish_ladder(std::shared_ptr<const core::GemmLadder> l);
    bool ladder_shown();  // false, with the reason drawn, when there is no ladder to show
    void draw_ladder_panel();
    void draw_ladder_timing();
    void finish_race(std::shared_ptr<const train::PrecisionRace> r);
    // On the worker or headless: the race for `c` on Fashion-MNIST, or synthetic pictures where it is missing.
    static std::shared_ptr<const train::PrecisionRace> measure_race(const train::PrecisionRaceConfig& c,
                                                                    const std::function<bool(float)>& keep_going);
    bool updates_prompt() const;  // the step's prompt asks about the lost updates

    ViewHost& host_;

    // Controls, set by steps and by the student.
    Panel panel_ = Panel::Fragments;
    bool select_panel_ = false;
    int lane_ = 5;
    kern::MmaInput input_ = kern::MmaInput::Fp16;
    double value_ = 0.1;
    char value_text_[64] = "0.1";
    std::string value_error_;  // the typed text is not a number
    int max_k_exp_ = 16;
    int trials_ = 8;
    int loss_scale_exp_ = 0;     // the gradients panel's loss scale: 2^this
    double weight_step_ = 1e-4;  // what the master-weights panel subtracts each update
    std::optional<train::WeightWalk> walk_;
    std::shared_ptr<const TensorMeasurement> counts_of_, answer_of_;  // what the two caches below were made from
    std::optional<GradientCounts> counts_;
    std::optional<train::GradientAnswer> answer_;
    std::string answer_reveal_;  // and for which prompt
    std::vector<std::string> answer_choices_;
    bool run_on_step_ = false;

    std::optional<core::PredictPrompt> predict_;
    int pick_ = -1;
    bool reveal_now_ = false;

    std::shared_ptr<const TensorMeasurement> result_;
    core::ResultCache<const TensorMeasurement> cache_{core::results_cache_bytes()};
    int64_t train_batches_ = 30;   // the training panel's batches per precision
    bool race_on_step_ = false;
    std::shared_ptr<const train::PrecisionRace> race_;
    bool ladder_on_step_ = false;
    std::shared_ptr<const core::GemmLadder> ladder_;
    core::ResultCache<const core::GemmLadder> ladder_cache_{core::results_cache_bytes()};
    core::ResultCache<const train::PrecisionRace> race_cache_{core::results_cache_bytes()};
};

}  // namespace gpulab::app
