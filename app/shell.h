// The application shell: owns the UI state, the lessons, the backends, the measurement worker
// and the textures, and draws one frame of every panel. The GUI (gui_main.cpp) and headless
// export (export_headless.cpp) both call frame(), so the exported window is the screen. Each
// panel is one file in app/panels/. Verified by the GUI smoke test and the export test.
#pragma once

#include <imgui.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "backend.h"
#include "export.h"
#include "fonts.h"
#include "jobs.h"
#include "lesson.h"
#include "tensor_texture.h"
#include "timing_plot.h"
#include "workloads/activation_workload.h"

namespace gpulab::app {

struct FrameContext {
    ImVec2 size{1600, 900};  // the viewport to lay the windows out in
    float cpu_frame_ms = 0.0f;
    int64_t gpu_frame_ns = -1;
    bool headless = false;   // no window: no fullscreen, no drag-and-drop
    bool fullscreen = false;
};

inline constexpr float kUserScales[] = {1.0f, 1.25f, 1.5f, 2.0f};
// Below this width in unscaled pixels (window width / UI scale) the three-column layout gives way
// to a tabbed side column: 1600 px at 1.5x or 2x, 1920 px at 2x.
inline constexpr float kNarrowLogicalWidth = 1150.0f;

class Shell {
public:
    struct Options {
        std::vector<std::string> lesson_dirs;
        std::string lesson_id;
    };

    Shell();
    ~Shell();
    // Loads lessons and backends. False with `error` when the requested lesson does not exist.
    bool init(const Options& options, std::string& error);
    void set_fonts(const Fonts& fonts) { fonts_ = fonts; }

    // Once per frame before frame(): finished jobs, live re-runs, pending step actions.
    void update(float dt);
    // Between ImGui::NewFrame() and ImGui::Render().
    void frame(const FrameContext& ctx);

    // Commands from keys, menus, buttons and the command line.
    void next_step();
    void prev_step();
    void request_run();
    void request_export() { export_requested_ = true; }
    bool take_export_request();
    bool take_fullscreen_toggle();
    void drop_files(const std::vector<std::string>& paths);
    // Headless: measure on this thread, then show the result exactly as a finished job would.
    void run_blocking(bool quick);

    // Needs the GL context; window pixels top row first (empty: no window picture).
    ExportResult export_now(std::vector<uint8_t> window_rgba, int width, int height);
    void set_export_dir(const std::string& dir);

    float user_scale() const { return kUserScales[user_scale_index_]; }
    void set_content_scale(float s) { content_scale_ = s; }
    const std::string& lesson_id() const;
    const std::vector<core::LessonError>& lesson_errors() const { return catalog_.errors; }
    const core::ActivationRun* last_run() const { return last_run_.get(); }
    const std::string& error_message() const { return error_; }
    bool busy() const { return jobs_.busy(); }
    // Headless pictures freeze the animation at a moment that shows both sides mid-way.
    void set_animation_time(float seconds) { anim_time_ = seconds; }

private:
    // [SECTION] panels, one file each in app/panels/
    void draw_menu_bar(const FrameContext& ctx);
    void draw_lesson_list();
    void draw_lesson_text();
    void draw_controls(const FrameContext& ctx);
    void draw_canvas();
    void draw_activation_canvas();
    void draw_element_grid(float width, float height);
    void draw_activation_curve(ImVec2 size);
    void draw_timing();
    void draw_devices();
    void draw_status_bar(const FrameContext& ctx);

    // [SECTION] state changes
    void select_lesson(int index);
    void enter_step(int index);
    bool start_run(bool live);
    void finish_run(std::shared_ptr<core::ActivationRun> run, bool live);
    void update_textures();
    bool try_load_image(const std::string& path);
    const core::Lesson* lesson() const;
    core::MeasureConfig measure_config(bool live, bool quick) const;
    core::ActivationParams current_params() const;

    core::LessonCatalog catalog_;
    int lesson_index_ = -1;
    int step_index_ = 0;

    // Controls (defaults: ReLU, 2^20 elements, generated input).
    core::ActivationParams params_;
    int log2_elements_ = 20;
    bool use_file_ = false;
    char path_buf_[1024] = {};
    std::string loaded_image_;       // the image the next run uses (validated when it was chosen)
    std::string loaded_image_shape_;
    bool live_ = false;
    bool run_on_step_ = false;       // a step with action "run" asked for a measurement

    core::BackendList backends_;
    std::vector<core::Backend*> backend_ptrs_;
    JobRunner jobs_;
    std::shared_ptr<core::ActivationRun> last_run_;
    std::shared_ptr<core::ActivationRun> last_full_run_;  // last run with limits measured
    SampleHistory history_;
    bool textures_dirty_ = false;
    std::unique_ptr<TensorTexture> input_tex_, output_tex_;
    std::string display_backend_;    // which backend's output the right picture shows
    float timing_rest_h_ = 0.0f;     // height of the Timing panel below its plot, last frame

    std::string error_;              // red line in the controls
    std::string info_;
    bool export_requested_ = false;
    bool fullscreen_toggle_ = false;
    char export_dir_buf_[1024] = "gpulab-export";
    ExportResult last_export_;
    bool exported_once_ = false;

    float anim_time_ = 0.0f;
    int anim_mode_ = 0;              // 0: CPU one core, 1: GPU warps of 32
    float anim_speed_ = 1.0f;
    int user_scale_index_ = 0;
    float content_scale_ = 1.0f;
    Fonts fonts_;
};

}  // namespace gpulab::app
