// The latency-vs-throughput lesson's view. One job on the worker measures everything the panels
// show: the size sweep on every backend (core/workloads/latency_sweep.h), then the GPU's fixed
// costs (kernels/probes/latency_probe.h: launch overhead, CUDA Graphs, pinned vs pageable copies, cold
// start). The canvas has four panels: the sweep (time and throughput, log-log, crossover), the
// phase breakdown at one size, "one task vs many tasks" with the fixed-cost tables, and the
// mathematicians-vs-students analogy driven by the measured speeds. A step's predict prompt is
// answered from the live sweep. With --compare / File > Compare another machine's sweep is drawn
// over this one (thin lines, hollow dots), both machines named. Export writes <lesson>-sweep.png,
// -window.png and -sweep.csv.
// Verified by the gui.latency_* tests in tests/gui_tests.cmake and by the screenshots.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "measure/result_cache.h"
#include "runtime/memory.h"
#include "probes/latency_probe.h"
#include "views/lesson_view.h"
#include "views/recorded_gpu.h"
#include "sweep_plot.h"
#include "workloads/latency_sweep.h"

namespace gpulab::app {

// Everything one measurement job produces; immutable once handed to the main thread.
struct LatencyMeasurement {
    core::SweepConfig config;
    core::SweepResult sweep;
    gpu::LaunchCosts launch;
    gpu::CopyBandwidth copy;
    gpu::ColdStart cold;
};

// The live answer to a "faster-at:N" prompt.
struct PredictAnswer {
    bool ok = false;  // false: `text` says why there is no answer
    bool gpu_measured = false;
    // Where no GPU ran here, the GPU side came from the shipped recording ("recorded GPU run") or
    // the model ("GPU estimate"); empty when it came from this machine or nowhere.
    std::string gpu_from;
    int winner = -1;   // 0: CPU, 1: GPU, 2: about the same (within 25 %)
    std::string text;  // one or two sentences with both times
};

// Which kind of answer a choice's text names: 0 CPU, 1 GPU, 2 about the same, -1 unknown.
int classify_choice(const std::string& choice);

// Answers `reveal` ("faster-at:N") from a sweep; never throws. `other`: a recorded GPU run or an
// estimate (ImportedMachine::recorded_source set) answers the GPU side where no GPU ran here.
PredictAnswer answer_prompt(const std::string& reveal, const core::SweepResult& sweep,
                            const core::ImportedSweep* other = nullptr);

class LatencyView : public LessonView {
  public:
    enum class Panel { Sweep, Breakdown, OneTask, Analogy };

    explicit LatencyView(ViewHost& host);

    void enter_step(const core::LessonStep& step) override;
    void update(float dt) override;
    void request_run() override;
    void run_blocking(bool quick) override;
    void show_overview_panel() override;
    bool has_result() const override { return result_ != nullptr; }

    void draw_canvas() override;
    void draw_timing() override;
    void draw_controls() override;
    void set_animation_time(float seconds) override { anim_time_ = seconds; }
    bool load_comparison(const std::string& path, std::string& error) override;
    bool script_action(const std::string& name, std::string& said) override;  // answer-first
    bool draws_predict_prompt() const override { return true; }
    std::string comparison_file_suffix() const override { return "-sweep.csv"; }

    ExportResult export_files(const ViewExport& in) override;
    std::string export_description() const override;
    std::string measurement_csv(const std::string& lesson_title) const override;

  private:
    // [SECTION] panels (latency_canvas.cpp, latency_analogy.cpp)
    void draw_sweep_panel();
    void draw_breakdown_panel();
    void draw_one_task_panel();
    void draw_analogy_panel();
    void draw_predict();
    void draw_result_note();

    // [SECTION] comparison with another machine (latency_compare.cpp)
    // While the step's prompt about the GPU waits for an answer, the plots leave the GPU out
    // (gpu_hidden()): the answer is in its line (issue 41, item 5).
    SweepPlotOptions plot_options() const {
        if (gpu_hidden()) return {transfers_, -1, nullptr, "The GPU's line appears when you answer the question below."};
        return {transfers_, -1, comparison(), ""};
    }
    bool gpu_hidden() const;
    // The sweep as the plots show it now: without its GPU runs while gpu_hidden().
    const core::SweepResult& shown_sweep();
    core::SweepResult hidden_copy_;
    std::shared_ptr<const LatencyMeasurement> hidden_copy_of_;  // held, so its address is never reused
    // The file loaded to compare with, else the shipped GPU recording's sweep of the same op (its
    // GPU curves only: views/recorded_gpu.h); null when neither.
    const core::ImportedSweep* comparison() const;
    // "the recorded GPU would win above N = ... against this CPU (two computers, copies included)",
    // when this machine has no GPU curve of its own and the recording has one; else "".
    std::string recorded_crossover_text() const;
    // core::sweep_csv with the source column, and the recording's curves when one is shown.
    std::string sweep_csv_with_recording(const core::SweepResult& sweep, const std::vector<std::string>& caption) const;
    // "" when the other machine swept the same op, else what differs.
    std::string comparison_mismatch() const;
    void draw_comparison_legend(float width) const;

    // [SECTION] runs (latency_view.cpp)
    core::SweepConfig sweep_config(bool quick) const;
    bool result_matches_config() const;
    bool still_wants_running_job() const override;
    bool start_sweep();
    void finish(std::shared_ptr<const LatencyMeasurement> m);
    // Index of the measured size nearest 2^exp; nullopt without a result.
    std::optional<std::size_t> size_index_near(int exp) const;

    ViewHost& host_;

    // Controls, set by steps and by the student.
    core::Activation activation_ = core::Activation::Relu;
    int min_exp_ = 4, max_exp_ = 24;
    int breakdown_exp_ = 20;
    bool transfers_ = true;
    Panel panel_ = Panel::Analogy;
    bool select_panel_ = false;   // the tab bar selects panel_ on the next frame
    bool sweep_on_step_ = false;  // the step asked for a sweep (started when the worker is free)
    std::optional<core::SweepConfig> running_config_;  // the sweep the worker is running, if any

    // The step's prompt and the student's pick.
    std::optional<core::PredictPrompt> predict_;
    int pick_ = -1;
    bool reveal_now_ = false;  // the student asked to see the answer without picking

    std::shared_ptr<const LatencyMeasurement> result_;
    // Every sweep of this session, by activation and sizes: a step with those settings shows it at
    // once instead of sweeping again (core/measure/result_cache.h).
    core::ResultCache<const LatencyMeasurement> cache_{core::results_cache_bytes()};
    static std::string config_key(const core::SweepConfig& c);
    std::unique_ptr<core::ImportedSweep> other_;  // another machine's sweep; null: none
    mutable RecordedMatch<core::ImportedSweep> recorded_;
    float anim_time_ = 0.0f;
};

}  // namespace gpulab::app
