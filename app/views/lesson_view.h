// One view per lesson workload: what the Canvas, Timing and Controls windows show, how a step's
// parameters apply, what a run measures and what Export writes. The Shell owns the frame layout,
// the lesson list and text, the devices, menus and the status bar, and hands the middle of the
// window to the view that matches `lesson.workload` (activation_view.h, latency_view.h).
// Verified through both implementations by the GUI smoke tests and the export tests
// (tests/gui_tests.cmake).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "export.h"
#include "widgets/fonts.h"
#include "jobs.h"
#include "lesson/lesson.h"
#include "measure/result_cache.h"

namespace gpulab::app {

// What every view shares with the shell. Owned by the Shell and outlives every view.
struct ViewHost {
    std::vector<core::Backend*> backends;  // registry order: CPU backends first, then GPU
    JobRunner* jobs = nullptr;             // the one measurement worker
    std::string error;                     // red line in the controls
    std::string info;                      // grey line in the controls
    // Why the step's own input (a lesson's picture) could not be used, or "": set by a view's
    // enter_step, cleared by the shell before it. The window shows it as `error`; a headless export
    // stops on it instead of exporting the built-in picture under the step (issue 43).
    std::string step_input_problem;
    // Set by the shell before enter_step while Lesson > Measure every step (or `gpulab prerun`)
    // walks the lesson: a step whose run waits for the student (the race after its prediction)
    // runs now, so it too is stored for class.
    bool measuring_every_step = false;
    int measurements = 0;  // runs that measured (not reading a data set): `gpulab prerun` reports them
    Fonts fonts;

    // True, with a grey line saying why, while a measurement runs: Run buttons and keys ask first.
    bool refuse_if_busy() {
        if (!jobs->busy()) return false;
        info = kBusyMessage;
        return true;
    }
    // Hands a measurement to the worker; refused with the same line while one runs. Accepted, it
    // clears the previous run's messages ("cancelled", a failure), which would now describe the
    // wrong run, unless `keep_messages` (live runs follow each other and keep them). Work that
    // measures nothing (`measures_here` false: reading a data set) leaves the shown result's
    // machine as it is.
    bool submit(std::string label, JobRunner::Work work, bool keep_messages = false, bool measures_here = true) {
        if (!jobs->submit(std::move(label), std::move(work))) {
            info = kBusyMessage;
            return false;
        }
        if (!keep_messages) {
            error.clear();
            info.clear();
        }
        if (measures_here) {
            set_shown_result_machine("");  // what follows is measured here
            ++measurements;
        }
        return true;
    }

    // A step shows a result from the cache: the grey line says when and where it was measured, and
    // the status bar and captions name the other computer when it was not this one.
    void show_cached(std::int64_t measured_unix_s, const core::CacheOrigin& origin) {
        info = core::cached_result_line(measured_unix_s, origin);
        set_shown_result_machine(origin.kind == core::CacheOrigin::Kind::OtherMachine ? origin.machine_label : "");
    }

    static constexpr const char* kBusyMessage = "a measurement is already running: wait for it or press Cancel";
};

// What an export needs from the shell; the view adds its own measurements.
struct ViewExport {
    std::string out_dir;
    std::string lesson_id;
    std::string lesson_title;
    Pixels window_rgba;  // top row first; null or empty: no window picture
    int window_width = 0, window_height = 0;
    float ui_scale = 1.0f;
};

class LessonView {
  public:
    virtual ~LessonView() = default;

    // A step was entered: apply its parameters and its action (may queue a measurement).
    virtual void enter_step(const core::LessonStep& step) = 0;
    // Once per frame after the worker's completions ran: start queued or live runs.
    virtual void update(float dt) = 0;
    // Start of frame(): GL work such as texture updates.
    virtual void prepare_frame() {}
    virtual void request_run() = 0;
    // Headless: measure on this thread, then show the result as a finished job would.
    virtual void run_blocking(bool quick) = 0;
    virtual bool has_result() const = 0;
    // The one-picture headless export (not --all-steps, whose pictures keep each step's own panel):
    // put in front the panel that sums the lesson up.
    virtual void show_overview_panel() {}

    virtual void draw_canvas() = 0;
    virtual void draw_timing() = 0;
    // The title of the panel under the canvas: "Timing" unless the view shows something else there
    // (the kernel puzzles: what the kernel did).
    virtual std::string timing_title() const { return "Timing"; }
    // The view's part of the Controls window, above the shell's export and scale controls.
    virtual void draw_controls() = 0;
    // The view's part of the status bar, after the frame times.
    virtual void draw_status() {}
    // Asked right after enter_step(): is the job now running the very run this step would start
    // (a sweep of the same sizes)? Then the shell lets it finish instead of stopping it when the
    // step is left. Default: no, a step's run belongs to its step.
    virtual bool still_wants_running_job() const { return false; }
    // A stored result is being read off the UI thread (views/stored_results.h, BackgroundLoad): the
    // step is not settled yet (a walk over every step and a script's Idle wait for it).
    virtual bool reading_stored_result() const { return false; }
    // Whether a run that shared the machine with other programs is repeated once it is quiet
    // (shell/remeasure_quiet.cpp): not for a student's puzzle check or a minute of training.
    virtual bool remeasures_when_quiet() const { return true; }
    // The shown result's key numbers in one line ("cpu-scalar 1.67 ms, cpu-parallel 389 us"; "" where
    // the view has none): kept when the window measures a busy run again, and said beside the new one.
    virtual std::string result_headline() const { return {}; }
    // True when draw_timing() asks the step's predict prompt itself (answer buttons and reveal), so
    // presenter mode does not print it a second time in the text column.
    virtual bool draws_predict_prompt() const { return false; }
    // Presenter mode, a step showing both: the canvas's share of the right-hand side's height (the
    // timing panel gets the rest). Half for views whose timing panel holds plots and tables.
    virtual float presenter_canvas_share() const { return 0.5f; }
    virtual void drop_files(const std::vector<std::string>&) {}
    // Markdown the lesson text shows under the step's body, in the window and in presenter mode
    // (the kernel puzzles: the puzzle's statement, which lives in its own folder). "" for none.
    virtual std::string step_text_extra() const { return {}; }
    // A named action of the view for --script-keys ("View=NAME"), as a test drives a button;
    // false when the view has none of that name. `said` gets one line for the terminal.
    virtual bool script_action(const std::string& /*name*/, std::string& said) {
        said = "this lesson's view has no script actions";
        return false;
    }
    virtual void set_animation_time(float) {}
    // Live mode (continuous short re-runs) on or off, for views that have one; the soak's script
    // (scripts/soak.sh) drives it through --script-keys Live.
    virtual void toggle_live() {}
    // Another machine's export of this lesson (its CSV, read by core/compare/compare_import.h) to show
    // beside the live measurement, both machines named ("this lab machine vs my laptop"). False with
    // a one-line `error` when the file is unusable or another lesson's export; a comparison already
    // shown stays.
    virtual bool load_comparison(const std::string& path, std::string& error) = 0;
    // The end of the export file name load_comparison reads ("-sweep.csv"), for the prompt.
    virtual std::string comparison_file_suffix() const = 0;

    // Needs a current GL context. Never throws.
    virtual ExportResult export_files(const ViewExport& in) = 0;
    // Tooltip of the Export button: which files this view writes.
    virtual std::string export_description() const = 0;
    // The measurement on screen as CSV text, the same table as the view's export CSV (the activation
    // lesson: its per-backend summary), or "" before the first measurement. No GL. Used for the
    // per-step CSVs of `gpulab export --all-steps`.
    virtual std::string measurement_csv(const std::string& lesson_title) const = 0;
};

}  // namespace gpulab::app
