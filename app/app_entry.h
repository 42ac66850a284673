// The long-running modes of the gpulab binary, called by the command line (app/main.cpp): the GUI
// in a GLFW window, headless export into an offscreen EGL context, and the pre-run before class.
// The first two draw the same frame code, so an exported PNG shows what the screen shows.
#pragma once

#include <string>
#include <vector>

namespace gpulab::app {

struct GuiOptions {
    std::string lesson_id;                 // lesson to open first; empty: the first lesson
    std::vector<std::string> lesson_dirs;  // extra lesson folders after the built-in lessons/
    bool fullscreen = false;
    int max_frames = 0;                    // > 0: render this many frames, then exit (smoke tests)
    std::string screenshot_path;           // with max_frames: save the last frame as PNG here
    bool present = false;                  // start in presenter mode (F5 toggles)
    int monitor = 0;                       // presenter/fullscreen monitor, 1-based; 0: the primary
    float present_scale = 0.0f;            // presenter text size 1, 1.5, 2 or 3; 0: the default 1.5
    // The presenter view (notes, next step, timer) in a second window while presenting: "auto" when
    // a second monitor is connected, "on" always (a second window even on one screen), "off" never.
    std::string presenter_view = "auto";
    // For tests: keys pressed one every few frames through the real key queue, e.g.
    // "Right,Right,B,B,Escape"; at exit the presenter state is printed to stdout.
    std::string script_keys;
    // Another machine's <lesson>-summary.csv shown beside the live bars; a bad file is a red line.
    std::string compare_path;
};

// Returns the process exit code. With no display: prints why and the headless command, returns 1.
int run_gui(const GuiOptions& options);

struct ExportOptions {
    std::string lesson_id = "elementwise-activations";
    std::string out_dir;
    std::vector<std::string> lesson_dirs;
    int width = 1600, height = 900;  // size of the whole-window picture
    bool quick = false;              // fewer samples (tests)
    bool all_steps = false;          // one picture per step, with the step's params and action applied
    bool check_layout = false;       // with all_steps: report panels whose content does not fit (cli/layout_check.h)
    std::string theme = "normal";    // "normal" or "presenter" (presenter layout, high contrast)
    std::string palette = "normal";  // "normal" or "colour-blind" (the View menu's colour-blind-safe palette)
    float present_scale = 0.0f;      // presenter text size (1, 1.5, 2, 3); 0: the size a room uses at this height
    // Another machine's <lesson>-summary.csv drawn beside the live bars in the timing PNG; a bad
    // file exits 1 with its one-line reason before anything is measured.
    std::string compare_path;
};

// Runs the lesson's measurement, then writes four files: <out>/<lesson>-timing.png (timing panel
// with a caption block), <out>/<lesson>-window.png (the whole window), <out>/<lesson>-samples.csv
// (every timed run with its upload / compute / download split) and <out>/<lesson>-summary.csv
// (one row per backend). With all_steps it first writes <out>/<lesson>-step-01.png ... (the window
// after each step's params and action) with <out>/<lesson>-step-01.csv ... (the measurement on screen
// at that step, in the table of the lesson's export CSV), then those files for the last measurement, and
// <out>/<lesson>.json (lesson, steps, sizes, params, hardware, versions). Works with no display.
// Returns the process exit code; an unwritable folder is a clear message.
int run_export(const ExportOptions& options);

struct PrerunOptions {
    std::vector<std::string> lesson_ids;   // empty: every lesson whose results can be stored
    std::vector<std::string> lesson_dirs;
    bool fresh = false;                    // measure every step, even settings already stored
    std::string out_dir;                   // also copy this computer's stored results here
    std::string import_dir;                // only import another computer's results from here
};

// `gpulab prerun` (cli/prerun.cpp): walks every step of the chosen lessons headless, as Lesson >
// Measure every step now does in the window, so their results are stored on disk
// (views/stored_results.h) and the window shows each step at once in class. --out copies them to
// a folder; --import loads such a folder from another computer, shown as "measured on <machine>".
// Returns the process exit code.
int run_prerun(const PrerunOptions& options);

}  // namespace gpulab::app
