// The SIMD-vs-MIMD lesson's view. One job on the worker measures what the panels show: scalar vs
// vectorised on one core (core::measure_simd_vs_scalar), several threads running different tasks
// at once (core::run_mimd_demo) and, where a GPU exists, the divergence kernel for every branch
// pattern (gpu::run_divergence). The canvas has three tabs: Flynn's 2x2 grid with a small live
// example per cell, the CPU measurements (SIMD bars, MIMD per-thread timeline) and the GPU warp
// view, which replays a warp's steps from the kernel's recorded masks or, without a GPU, from the
// emulator (core::emulate_warp), labelled "emulated" with the reason. A step's predict prompt
// ("how much slower is the 4-way split?") is answered with the measured factor, or with the
// theoretical one, said to be theoretical, when nothing ran on a GPU.
// With --compare / File > Compare the Timing window and the PNG add a "this machine | other
// machine" table. Export writes <lesson>-simd.png, -window.png and -simd.csv.
// Verified by the gui.simd_* tests in tests/simd_gui_tests.cmake and by the screenshots.
#pragma once

#include <imgui.h>

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "measure/result_cache.h"
#include "runtime/memory.h"
#include "probes/divergence.h"
#include "views/lesson_view.h"
#include "views/recorded_gpu.h"
#include "workloads/simd_mimd.h"

namespace gpulab::app {

// One pattern's GPU measurement and its expected cost; `measured` false: `why` says what is missing.
struct PatternCost {
    simt::Pattern pattern = simt::Pattern::Uniform;
    double theoretical = 1.0;     // distinct paths per warp, averaged (core::theoretical_factor)
    bool measured = false;
    int64_t kernel_ns = 0;        // median kernel time
    double measured_factor = 0.0; // kernel median / uniform's kernel median
    std::string why;
};

// A warp's steps as the warp view draws them: from the emulator or from the kernel's record.
struct WarpReplay {
    int warp = 0;
    std::vector<core::WarpStep> steps;
    std::vector<int64_t> start_clock, end_clock;  // per step; empty for the emulator
};

// Everything one measurement job produces; immutable once handed to the main thread.
struct SimdMimdMeasurement {
    core::Activation activation = core::Activation::Relu;
    int64_t elements = 0;
    core::SimdComparison simd;
    core::MimdTimeline mimd;
    std::array<PatternCost, simt::kPatternCount> costs{};
    // Recorded warps per pattern when the kernel ran; empty otherwise.
    std::array<std::vector<WarpReplay>, simt::kPatternCount> recorded{};
    bool gpu_ran = false;
    std::string gpu_reason;  // why the warp view is emulated, in a student's words where known
    std::string gpu_error;   // the driver's exact error behind gpu_reason (tooltips)
    std::string sim_refusal; // why cuda-sim cannot run the divergence kernel instead (sim_kernels.h)
    int64_t started_unix_s = 0;
};

// The live answer to a "divergence:<pattern>" prompt.
struct DivergenceAnswer {
    bool ok = false;        // false: `text` says why there is no answer
    bool measured = false;  // the factor was measured on a GPU (else theoretical)
    // Not measured here, measured on the shipped recording's GPU: what the answer was judged by
    // ("recorded on NVIDIA H200, 2026-11-28"); empty otherwise.
    std::string recorded_source;
    double factor = 0.0;
    int best_choice = -1;   // the choice nearest the factor
    std::string text;
};

// The slow-down factor a choice's text names ("about the same" 1, "about 4x" 4); 0 when none.
double choice_factor(const std::string& choice);
// Answers `reveal` ("divergence:4-way") from a measurement; never throws. `recorded`: a GPU recording
// whose measured factor answers where no GPU ran here (else the theory does).
DivergenceAnswer answer_divergence(const std::string& reveal, const std::vector<std::string>& choices,
                                   const SimdMimdMeasurement& m, const core::ImportedSimd* recorded = nullptr);
// The warps the view shows for a pattern: recorded when the kernel ran, else emulated.
std::vector<WarpReplay> warp_replays(const SimdMimdMeasurement* m, simt::Pattern pattern, int warps);
// The lesson's CSV: caption lines as # comments, then simd, span and pattern rows.
// Every row's last column says where it was measured (issue 39); `recorded`, a shipped GPU
// recording's measurement, adds its measured divergence patterns under its own source.
std::string simd_csv(const SimdMimdMeasurement& m, const std::vector<std::string>& caption,
                     const core::ImportedSimd* recorded = nullptr);
std::vector<std::string> simd_caption_lines(const SimdMimdMeasurement& m, std::string_view lesson_title);

// [SECTION] drawing, shared by the canvas and the exported PNG (simd_draw.cpp)
// Scalar and vector medians as two horizontal bars, the speed-up and the instruction set.
void draw_simd_bars(const core::SimdComparison& s, float width);
// One row per thread, spans coloured per task, a time axis; a playhead at `playhead` (0..1, <0: none).
void draw_mimd_timeline(const core::MimdTimeline& t, ImVec2 size, float playhead);
// Warps side by side, 32 lane columns each, one row per step; `shown_steps` rows are lit (the
// replay), the row being executed framed; `shown_steps` >= the step count shows the whole trace.
// `merged`: one row per warp, each lane in the colour of the path it takes, nothing serialised
// yet (the question before the replay).
void draw_warp_grid(const std::vector<WarpReplay>& warps, float shown_steps, ImVec2 size, bool merged = false);
// Pattern, paths per warp, measured kernel time and factor (or why not measured); `hidden`
// pattern's factors show "?" while its predict prompt is unanswered.
// `note_below`: without GPU timings a muted line under it says so (the window puts it on the
// heading's line instead: no_gpu_timings_line, with no_gpu_timings_detail in its tooltip).
void draw_cost_table(const SimdMimdMeasurement& m, simt::Pattern highlight,
                     std::optional<simt::Pattern> hidden = std::nullopt, bool note_below = true);
std::string no_gpu_timings_line();
std::string no_gpu_timings_detail(const SimdMimdMeasurement& m);
// The colour of branch path `path` (paths 0..31), the same in every picture.
ImU32 path_color(int path, float alpha = 1.0f);
// The colour of a MIMD task, by name.
ImU32 task_color(const std::string& task, float alpha = 1.0f);

class SimdMimdView : public LessonView {
  public:
    enum class Panel { Flynn, Cpu, Warp };

    explicit SimdMimdView(ViewHost& host);

    void enter_step(const core::LessonStep& step) override;
    void update(float dt) override;
    void request_run() override;
    void run_blocking(bool quick) override;
    void show_overview_panel() override;
    bool has_result() const override { return result_ != nullptr; }
    std::string result_headline() const override;

    void draw_canvas() override;
    void draw_timing() override;
    void draw_controls() override;
    void set_animation_time(float seconds) override { anim_time_ = seconds; }
    bool load_comparison(const std::string& path, std::string& error) override;
    bool script_action(const std::string& name, std::string& said) override;  // answer-first
    bool draws_predict_prompt() const override { return true; }
    std::string comparison_file_suffix() const override { return "-simd.csv"; }

    ExportResult export_files(const ViewExport& in) override;
    std::string export_description() const override;
    std::string measurement_csv(const std::string& lesson_title) const override;

  private:
    // [SECTION] panels (simd_flynn.cpp, simd_canvas.cpp)
    void draw_flynn_panel();
    void draw_cpu_panel();
    void draw_warp_panel();
    void draw_pattern_combo(float width);
    void draw_predict();
    void draw_result_note();
    // The pattern whose cost the step's prompt asks about, while the student has not answered.
    std::optional<simt::Pattern> hidden_pattern() const;

    // [SECTION] comparison with another machine (simd_compare.cpp)
    // "" when the other machine measured the same activation and size, else what differs.
    std::string comparison_mismatch() const;
    // Both machines named, then "this machine | other machine" rows: ISA and lanes, SIMD speed-up,
    // MIMD wall vs sequential, divergence factor per pattern (left out while `hide_divergence`).
    void draw_comparison(float width, bool hide_divergence) const;
    std::vector<std::string> comparison_caption() const;

    // [SECTION] runs (simd_mimd_view.cpp)
    bool result_matches_config() const;
    bool start_run();
    void finish(std::shared_ptr<const SimdMimdMeasurement> m);

    ViewHost& host_;

    // Controls, set by steps and by the student.
    core::Activation activation_ = core::Activation::Sigmoid;
    int64_t elements_ = int64_t{1} << 18;
    simt::Pattern pattern_ = simt::Pattern::FourWay;
    float replay_speed_ = 1.0f;
    Panel panel_ = Panel::Flynn;
    bool focus_mimd_ = false;     // the CPU tab: the step is about the timeline rather than the bars
    bool select_panel_ = false;   // the tab bar selects panel_ on the next frame
    bool run_on_step_ = false;    // the step needs numbers (started when the worker is free)

    std::optional<core::PredictPrompt> predict_;
    int pick_ = -1;
    bool reveal_now_ = false;

    std::shared_ptr<const SimdMimdMeasurement> result_;
    // Every result measured in this session, by activation and size: a step with the same settings
    // shows it at once (core/measure/result_cache.h).
    core::ResultCache<const SimdMimdMeasurement> cache_{core::results_cache_bytes()};
    static std::string config_key(core::Activation activation, int64_t elements);
    std::unique_ptr<core::ImportedSimd> other_;  // another machine's measurement; null: none
    // The file loaded to compare with, else the shipped GPU recording's divergence patterns
    // (views/recorded_gpu.h); null when neither.
    mutable RecordedMatch<core::ImportedSimd> recorded_;
    const core::ImportedSimd* comparison() const;
    float anim_time_ = 0.0f;
};

}  // namespace gpulab::app
