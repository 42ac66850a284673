// The elementwise-activations lesson's view: controls for the op, size and input, one run on
// every backend (on the worker, or live with short runs), the input/output pictures with the
// element-grid animation, the timing module, and the four-file export. Moved unchanged out of the
// former single-lesson Shell. With --compare / File > Compare the timing panel and the exported
// timing PNG also show another machine's medians. Verified by the gui.smoke, gui.export and
// compare.* tests.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "backends/device_output_tag.h"
#include "measure/result_cache.h"
#include "runtime/memory.h"
#include "views/lesson_view.h"
#include "views/result_headline.h"
#include "views/stored_results.h"
#include "render/tensor_texture.h"
#include "sim/sim_trace_runs.h"
#include "views/timing_plot.h"
#include "workloads/activation_workload.h"

namespace gpulab::app {

class ActivationView : public LessonView {
public:
    explicit ActivationView(ViewHost& host);
    ~ActivationView() override;

    void enter_step(const core::LessonStep& step) override;
    void update(float dt) override;
    void prepare_frame() override;
    void request_run() override;
    void run_blocking(bool quick) override;
    bool has_result() const override { return last_run_ != nullptr; }
    std::string result_headline() const override { return last_run_ ? medians_headline(last_run_->reports) : std::string(); }
    bool reading_stored_result() const override { return stored_load_.pending(); }

    void draw_canvas() override;
    void draw_timing() override;
    void draw_controls() override;
    void draw_status() override;
    void drop_files(const std::vector<std::string>& paths) override;
    void set_animation_time(float seconds) override { anim_time_ = seconds; }
    void toggle_live() override { live_ = !live_; }
    bool load_comparison(const std::string& path, std::string& error) override;
    std::string comparison_file_suffix() const override { return "-summary.csv"; }

    ExportResult export_files(const ViewExport& in) override;
    std::string export_description() const override;
    std::string measurement_csv(const std::string& lesson_title) const override;

private:
    // [SECTION] canvas pieces (activation_canvas.cpp)
    void draw_element_grid(float width, float height);
    void draw_activation_curve(ImVec2 size);
    void update_textures();
    // [SECTION] one warp's loads, traced on cuda-sim (activation_coalescing.cpp)
    void trace_coalescing();  // fills traces_: the kernel's block 0 for three buffer placements
    void draw_coalescing(float width);

    // [SECTION] runs (activation_view.cpp)
    bool start_run(bool live);
    void finish_run(std::shared_ptr<core::ActivationRun> run, bool live);
    bool try_load_image(const std::string& path);
    core::MeasureConfig measure_config(bool live, bool quick) const;
    core::ActivationParams current_params() const;

    ViewHost& host_;

    // Controls (defaults: ReLU, 2^20 elements, generated input).
    core::ActivationParams params_;
    int log2_elements_ = 20;
    bool use_file_ = false;
    char path_buf_[1024] = {};
    std::string loaded_image_;       // the image the next run uses (validated when it was chosen)
    std::string loaded_image_shape_;
    bool live_ = false;
    bool run_on_step_ = false;       // a step with action "run" asked for a measurement

    std::shared_ptr<core::ActivationRun> last_run_;
    std::shared_ptr<core::ActivationRun> last_full_run_;  // last run with limits measured
    // Every full run of this session, by its settings: a step with the same settings shows it at
    // once instead of measuring again (core/measure/result_cache.h).
    core::ResultCache<core::ActivationRun> cache_{core::results_cache_bytes()};
    // A step's stored result read off the UI thread (tens of MB at the larger sizes).
    BackgroundLoad<core::ActivationRun> stored_load_;
    void show_cached_run(const core::ResultCache<core::ActivationRun>::Hit& hit);
    std::unique_ptr<core::ImportedRun> other_;            // another machine's summary; null: none
    // The shipped GPU recording's run of the same op and size (views/recorded_gpu.h), its GPU rows
    // only; shown where no file was loaded to compare with. Null: the recording has none.
    std::unique_ptr<core::ImportedRun> recorded_;
    const core::ImportedRun* comparison() const { return other_ ? other_.get() : recorded_.get(); }
    void match_recording();
    // Where the recording has no run of these settings: our kernel's time on the estimated GPU, from
    // the simulator's byte count (core/gpu_model/gpu_estimate.h), labelled as an estimate.
    static std::unique_ptr<core::ImportedRun> estimate_for(const core::ActivationRun& run);
    std::string other_error_;  // why the last file to compare with was refused, shown in the Timing panel
    SampleHistory history_;
    bool textures_dirty_ = false;
    DivergingRamp textures_ramp_ = DivergingRamp::BlueRed;  // the palette's ramp the textures were drawn with
    // Device outputs are read only while they still hold last_run_'s run (core/backends/device_output_tag.h).
    core::DeviceOutputTag device_output_tag_;
    std::unique_ptr<TensorTexture> input_tex_, output_tex_;
    std::string display_backend_;    // which backend's output the right picture shows
    float timing_rest_h_ = 0.0f;     // height of the Timing panel below its plot, last frame
    bool show_table_ = false;        // the Timing panel shows the table instead of the bars

    float anim_time_ = 0.0f;
    int anim_mode_ = 0;              // 0: CPU one core, 1: GPU warps of 32
    bool show_coalescing_ = false;   // the lower canvas shows one warp's traced loads instead
    std::vector<sim::ActivationTrace> traces_;
    float anim_speed_ = 1.0f;
};

}  // namespace gpulab::app
