// The application shell: owns the lessons, the backends, the measurement worker and one view per
// lesson workload (lesson_view.h), lays out the windows and draws one frame of every panel. The
// GUI (gui_main.cpp) and headless export (export_headless.cpp) both call frame(), so the exported
// window is the screen. Each panel is one file in app/shell/. Verified by the GUI smoke tests
// and the export tests.
#pragma once

#include <imgui.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "background_export.h"
#include "backends/backend.h"
#include "views/export.h"
#include "widgets/fonts.h"
#include "views/jobs.h"
#include "lesson/lesson.h"
#include "views/lesson_view.h"
#include "lesson/presenter.h"
#include "keyboard_focus.h"
#include "markdown.h"
#include "io/user_settings.h"
#include "measure/quiet_retry.h"

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
    void set_fonts(const Fonts& fonts) {
        fonts_ = fonts;
        host_.fonts = fonts;
    }

    // Once per frame before frame(): finished jobs, live re-runs, pending step actions.
    void update(float dt);
    // Between ImGui::NewFrame() and ImGui::Render().
    void frame(const FrameContext& ctx);
    // The presenter view's content, drawn in the presenter view window's own ImGui context with its
    // fonts (app/shell/presenter_view.cpp); `presenting_seconds` since presenter mode began.
    void draw_presenter_view(const Fonts& fonts, ImVec2 size, double presenting_seconds);

    // Commands from keys, menus, buttons and the command line.
    void next_step();
    void prev_step();
    void request_run();
    // Stops the running measurement, as its Stop / Cancel button does; says so when none runs.
    void request_stop();
    // Lesson > Measure every step now: before class, walks the lesson's steps and lets each measure
    // what it would measure in class (skipping settings this session has measured), so that in class
    // every step shows its results at once (app/shell/measure_every_step.cpp). Stopped by S / Cancel,
    // by moving to another step or lesson, and by a failed run.
    void start_measuring_every_step();
    void stop_measuring_every_step(const std::string& why);  // "measuring every step stopped: <why>"
    bool measuring_every_step() const { return every_step_.active; }
    void set_print_walk_summary(bool on) { every_step_.print_summary = on; }
    // On in the window (gui_main.cpp); off for prerun, exports and scripted tests, whose runs must not
    // repeat by themselves.
    void set_remeasure_when_quiet(bool on) { remeasure_when_quiet_ = on; }
    void request_export() { export_requested_ = true; }
    bool take_export_request();
    bool take_fullscreen_toggle();
    void drop_files(const std::vector<std::string>& paths);
    void toggle_live() {
        if (view_) view_->toggle_live();
    }
    // --script-keys "View=NAME": the current view's named action (LessonView::script_action);
    // the line to print says what happened.
    std::string view_script_action(const std::string& name);
    // Headless: measure on this thread, then show the result exactly as a finished job would.
    void run_blocking(bool quick);
    void show_overview_panel();
    // Another machine's exported summary beside the live run, if the current lesson's view can
    // compare (app/shell/compare_popup.cpp). False with a one-line `error`; nothing shown is lost.
    bool load_comparison(const std::string& path, std::string& error);

    // Needs the GL context; window pixels top row first (empty: no window picture). Writes every
    // file before it returns (the command line's export).
    ExportResult export_now(std::vector<uint8_t> window_rgba, int width, int height);
    // The window's export (F12): the view renders its pictures here on the UI thread, and the files
    // are encoded and written on a background thread (background_export.h); the status line says
    // "Exporting N pictures..." until then. While one is still being written, a second one is
    // refused with a sentence that says so (nothing is lost: the first one's files are unchanged).
    void start_export(std::vector<uint8_t> window_rgba, int width, int height);
    bool exporting() const { return background_export_.busy(); }
    // An export that ended since the last call (written, failed, refused or nothing to export), for
    // the terminal; the window shows it in Controls.
    std::optional<ExportResult> take_finished_export();
    // Shutting down: waits for the files being written, then as take_finished_export().
    std::optional<ExportResult> finish_export();
    // False (and nothing changed) when `dir` is longer than the folder field holds (4,095 bytes):
    // a cut path would be another folder.
    bool set_export_dir(const std::string& dir);

    // The font scale the UI asks for: while presenting, the presenter's preset lowered to what fits
    // the screen (core::fitting_presenter_scale).
    float user_scale() const { return presenter_.presenting ? presenter_scale() : kUserScales[user_scale_index_]; }
    float presenter_scale() const;
    void set_content_scale(float s) { content_scale_ = s; }
    const std::string& lesson_id() const;
    const std::vector<core::LessonError>& lesson_errors() const { return catalog_.errors; }
    // True once the current lesson's view holds a measurement (headless export checks this).
    bool has_result() const { return view_ && view_->has_result(); }
    // The measurement on screen as CSV (see LessonView::measurement_csv); "" before the first one.
    std::string measurement_csv() const { return view_ ? view_->measurement_csv(lesson_title()) : std::string(); }
    const std::string& error_message() const { return host_.error; }
    const std::string& step_input_problem() const { return host_.step_input_problem; }
    const std::string& info_message() const { return host_.info; }
    const core::LessonCatalog& catalog() const { return catalog_; }
    bool busy() const { return jobs_.busy() || (view_ && view_->reading_stored_result()); }
    // Runs that measured something so far (reading a data set or a stored result does not count).
    int measurements() const { return host_.measurements; }
    // The window drew a frame: counted into the running measurement's quality note.
    void note_frame_drawn() { jobs_.count_frame(); }
    // The presenter view window is open: the speaker notes stay off the slide (N says where they are).
    void set_presenter_view_open(bool open) { presenter_view_open_ = open; }
    // The window's measurement threads (the job worker and the cpu-parallel pool) take
    // cpu::kMeasurementNice (core/runtime/thread_priority.h, 0 today: see why there). Headless export and the
    // command line keep normal priority.
    void set_measurement_priority();
    // Headless pictures freeze the animation at a moment that shows both sides mid-way.
    void set_animation_time(float seconds) {
        if (view_) view_->set_animation_time(seconds);
    }

    // [SECTION] presenter mode (app/shell/presenter_shell.cpp, app/shell/presenter_frame.cpp)
    // One key through the presenter's state machine (core/lesson/presenter.h); true when it acted.
    bool handle_presenter_key(core::PresenterKey key, bool repeat);
    void set_presenting(bool on);
    void set_presenter_scale_index(int index);
    void set_reduced_motion(bool on) { presenter_.reduced_motion = on; }
    const core::PresenterState& presenter_state() const { return presenter_; }
    int step_index() const { return step_index_; }
    int step_count() const;
    const core::LessonStep* current_step() const;
    std::string lesson_title() const;
    void go_to_step(int index) { enter_step(index); }
    void set_warmup_status(std::string status) { warmup_status_ = std::move(status); }
    // The step's text as Markdown blocks, the view's additions after the body (lesson_text.cpp): what
    // the window and the presenter's slide lay out a part at a time.
    std::vector<MarkdownBlock> step_text_blocks(const core::LessonStep& step) const;
    // The window's remembered settings (core/io/user_settings.h): applied now, and written to `path`
    // whenever the palette, the UI scale or reduced motion changes. The GUI only: exports and tests
    // take their looks from their options.
    void use_user_settings(const std::string& path);
    // "lesson=<id> step=<n> of <m> presenting=<yes|no> blanked=<yes|no> help=<yes|no> runs=<n>
    // text_part=<p> of <q> palette=<normal|colour-blind> ui_scale=<1.00..2.00>": printed by the
    // --script-keys test option.
    // The Timing panel's ImGui name: the view's title, the same window (###Timing) whatever it says.
    std::string timing_window_name() const { return (view_ ? view_->timing_title() : std::string("Timing")) + "###Timing"; }
    std::string presenter_summary() const;
    // Tab, F6, Space, Enter, arrows and Escape for the controls (keyboard_focus.h); gui_main.cpp
    // feeds it the keys, the status bar says what it holds.
    KeyboardFocus& keyboard_focus() { return keyboard_focus_; }

private:
    // [SECTION] panels, one file each in app/shell/
    void draw_menu_bar(const FrameContext& ctx);
    void draw_lesson_list();
    void draw_lesson_text();
    void draw_controls(const FrameContext& ctx);
    void draw_canvas();
    void draw_timing();
    void draw_devices();
    void draw_status_bar(const FrameContext& ctx);
    // An export ended: shown in Controls (and on the presenter's message line), kept for the terminal.
    void show_export_result(ExportResult result);
    void draw_step_progress(float dot_radius);
    // Presenter layout instead of the normal one; false when not presenting.
    bool draw_presenter_frame(const FrameContext& ctx);
    // Key map and blank screen on top of either layout.
    void draw_presenter_overlays(const FrameContext& ctx);
    void draw_presenter_status();
    void draw_predict_prompt(const core::PredictPrompt& prompt);
    void draw_speaker_notes(const core::LessonStep& step);
    // File > Compare with another machine...: a path field, Load and Cancel, the error in red.
    void draw_compare_popup();

    // [SECTION] state changes
    void select_lesson(int index);
    void enter_step(int index);
    void stop_run_of_left_step();
    // The tab bar of the side column: Controls, Lessons, Devices (and the step text first when the
    // window is too narrow for a column of its own).
    void draw_side_tabs(const FrameContext& ctx, bool with_lesson_text);
    std::string select_side_tab_;  // a script's "tab=<name>": chosen on the next frame
    const core::Lesson* lesson() const;
    // The view for a workload, created the first time it is needed and kept: a job still running
    // for a lesson the student left finishes into its own view.
    LessonView* view_for(const std::string& workload);

    core::LessonCatalog catalog_;
    int lesson_index_ = -1;
    int step_index_ = 0;

    core::BackendList backends_;
    std::vector<core::Backend*> backend_ptrs_;
    JobRunner jobs_;
    ViewHost host_;  // backends, worker, messages and fonts as the views see them

    bool export_requested_ = false;
    bool fullscreen_toggle_ = false;
    char export_dir_buf_[4096] = "gpulab-export";  // PATH_MAX: a longer path is refused, never cut
    ExportResult last_export_;
    bool exported_once_ = false;
    BackgroundExport background_export_;
    std::optional<ExportResult> finished_export_;  // for take_finished_export()
    std::string export_note_;  // a second F12 refused while the first export is written
    bool compare_popup_requested_ = false;
    char compare_path_buf_[1024] = {};
    std::string compare_error_;

    core::PresenterState presenter_;
    std::string presenter_message_;
    float presenter_message_age_ = 0.0f;  // seconds since the message appeared; it fades after a few
    std::string warmup_status_;
    bool cancelled_by_leaving_ = false;  // the running job was cancelled because its step was left
    struct EveryStepRun {
        bool active = false;
        int step = 0;            // the step being measured
        int return_step = 0;     // where the lesson was when it started
        int runs_at_start = 0;   // the job count then, to say how many runs it took
        int cancels_at_start = 0;
        std::int64_t started_ns = 0;
        bool print_summary = true;  // the stdout line at the end (tests read it; prerun prints its own)
    };
    EveryStepRun every_step_;
    void continue_measuring_every_step();  // from update(), after the view's own
    // A step whose run shared the machine is measured again once it is quiet (remeasure_quiet.cpp).
    bool remeasure_when_quiet_ = false;
    core::QuietRetry quiet_retry_;
    bool was_busy_ = false;
    int cancels_when_run_began_ = 0;
    bool automatic_run_ = false;  // the running (or last) run was started by quiet_retry_
    std::string busy_headline_;   // the busy run's key numbers (LessonView::result_headline), kept beside
    void watch_for_quiet(bool busy_now);  // from update()
    int pending_scroll_lines_ = 0;       // Up / Down on the zoomed canvas, applied in the next frame
    int text_page_ = 0;                  // the step text's page in the window (paged_text.h)
    int text_pages_ = 1;                 // how many it had in the last frame
    float side_content_h_ = 0.0f;        // the controls' height in the last frame: the step text takes the rest
    float timing_content_h_ = 1e6f;      // the Timing panel's in the last frame: the canvas takes the rest
    // use_user_settings: where they go and what was last written (or read).
    bool settings_on_ = false;
    std::string settings_path_;
    core::UserSettings saved_settings_;
    core::UserSettings current_settings() const;
    void save_settings_if_changed();
    bool presenter_view_open_ = false;

    int user_scale_index_ = 0;
    float content_scale_ = 1.0f;
    Fonts fonts_;
    KeyboardFocus keyboard_focus_;
    // Last: views are destroyed first, while the worker, the backends and the GL context live.
    std::map<std::string, std::unique_ptr<LessonView>> views_;
    LessonView* view_ = nullptr;  // the current lesson's view; null when no lesson is open
};

}  // namespace gpulab::app
