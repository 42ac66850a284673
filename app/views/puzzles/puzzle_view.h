// The kernel puzzles' view (lessons/kernel-puzzles.toml, workload "puzzles"): each step opens one
// puzzle (core/puzzles/puzzle.h). The student edits the kernel (code_editor.h), presses Run
// (Ctrl+Enter, R), and the check (core/puzzles/puzzle_check.h: compile, run every case in a
// confined child process, compare with the reference) runs on the job worker; the canvas shows
// the editor and the result (pass or fail per case, every defect as a sentence at its lines, the
// compiler's errors at theirs, what the kernel printed), the Timing panel what the kernel did on
// the example (who touched which element in block 0, and the simulator's exact counts: warps that
// diverged, sectors per request, bank conflicts). The statement is added under the step text
// (step_text_extra). The code is saved per puzzle as the student types (puzzle_store.h). Without a
// compiler the sentence saying which package to install takes the Run button's place; the editor,
// statement and reference still work. Verified by tests/puzzle_gui_tests.cmake and by eye in its
// screenshots.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "code_editor.h"
#include "puzzles/puzzle_check.h"
#include "views/lesson_view.h"

namespace gpulab::app {

// One check, as the views draw it.
struct PuzzleCheck {
    std::string puzzle_id;
    bool of_reference = false;   // the reference solution was checked, not the student's code
    std::string code;            // the text that was checked
    puzzles::CheckResult result;
    bool cancelled = false;
};

class PuzzleView : public LessonView {
public:
    explicit PuzzleView(ViewHost& host);
    ~PuzzleView() override;

    void enter_step(const core::LessonStep& step) override;
    void update(float dt) override;
    void request_run() override;
    void run_blocking(bool quick) override;
    bool has_result() const override;

    void draw_canvas() override;
    bool remeasures_when_quiet() const override { return false; }  // see LessonView
    void draw_timing() override;
    std::string timing_title() const override;
    void draw_controls() override;
    float presenter_canvas_share() const override { return 0.6f; }
    std::string step_text_extra() const override;
    bool script_action(const std::string& name, std::string& said) override;
    bool load_comparison(const std::string& path, std::string& error) override;
    std::string comparison_file_suffix() const override { return "-puzzle.csv"; }

    ExportResult export_files(const ViewExport& in) override;
    std::string export_description() const override;
    std::string measurement_csv(const std::string& lesson_title) const override;

private:
    // Everything about one puzzle; kept while the app runs, so going back to a step finds the code,
    // the undo history and the last result where they were.
    struct Slot {
        std::string id;
        std::optional<puzzles::Puzzle> puzzle;
        std::string problem;         // why the puzzle cannot be shown (folder missing, broken file)
        CodeEditor editor;           // the student's code
        CodeEditor reference;        // the solution, read-only
        bool showing_reference = false;
        bool dirty = false;          // edited since the last save
        bool ever_saved = false;     // a saved file holds the code (loaded from it, or written)
        double edited_at = 0.0;      // steady-clock seconds of the last edit
        std::string save_error;      // the last save failed: why (the code stays in the editor)
        std::string load_note;       // the saved code could not be read
        std::shared_ptr<const PuzzleCheck> check;
    };

    // [SECTION] puzzles and saving (puzzle_view.cpp)
    Slot& slot_for(const std::string& id);
    void load_puzzle(Slot& s);
    void save_now(Slot& s);
    void note_edit(Slot& s);  // the student changed the text: saved after a pause
    void save_if_idle(Slot& s, bool force);
    bool start_check(bool of_reference);
    void finish_check(std::shared_ptr<const PuzzleCheck> check);
    std::vector<EditorMark> marks_for(const Slot& s) const;

    // [SECTION] drawing (puzzle_canvas.cpp, puzzle_results.cpp, puzzle_trace.cpp)
    void draw_toolbar();
    void draw_confirm_popups();
    void draw_editor(ImVec2 size);
    void reset_to_skeleton(Slot& s);
    // `fonts`: the window's, or the offscreen context's in an export.
    void draw_results(float width, const Fonts& fonts);
    void draw_counters(const puzzles::CaseOutcome& c, float width);
    void draw_trace(const puzzles::CaseOutcome& c, float width);
    // `heading`: the bold line naming whose run it is (off where the panel's title says it).
    void draw_what_it_did(float width, const Fonts& fonts, bool heading = true);
    std::string what_it_did_heading() const;
    bool results_beside_editor() const;

    ViewHost& host_;
    puzzles::Toolchain toolchain_;
    std::map<std::string, std::unique_ptr<Slot>> slots_;
    Slot* slot_ = nullptr;             // the current step's puzzle; null when the step names none
    std::string step_problem_;         // the step names no puzzle
    std::string step_title_;
    std::string running_id_;           // the puzzle whose check the worker runs
    bool confirm_reset_ = false, confirm_reference_ = false;
    std::string reset_error_;          // the copy of the code could not be kept: nothing was reset
    bool blocking_ran_ = false;        // headless: run_blocking() ran (a result, or the reason there is none)
    std::string blocking_id_;          // for this step's puzzle
    float canvas_width_ = 0.0f;        // last frame's, for results_beside_editor()
    int gpu_arch_ = 0;                 // > 0: a GPU and nvcc are here (its compute capability, 86)
};

}  // namespace gpulab::app
