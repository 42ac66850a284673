// The kernel puzzles' view: steps, the code kept per puzzle and saved as it is typed, checks on the
// job worker, script actions for the tests, export. See puzzle_view.h; the drawing is in
// puzzle_canvas.cpp, puzzle_results.cpp and puzzle_trace.cpp.
//
// Why the check runs on the shell's JobRunner and not a thread of its own: it is the app's one
// "Run" with one Stop: S, the Cancel button, leaving the step or the lesson all stop it the same
// way (Shell::stop_run_of_left_step), the status bar shows its stage, and the window draws at
// most 4 frames a second while it compiles (a key or a click still answers at once), leaving the
// machine's two cores to the compiler. Nothing else of this lesson measures, so it never waits
// for a measurement; a check started while another lesson's measurement runs is refused with the
// usual "already running" line.
#include "puzzle_view.h"
#include "puzzles/sandbox.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <sstream>

#include "gpu_backends.h"
#include "io/file_io.h"
#include "measure/format.h"
#include "puzzle_store.h"
#include "puzzles/reference_record.h"
#include "render/resources.h"
#include "runtime/cancel.h"
#include "widgets/ui_helpers.h"

namespace gpulab::app {

namespace fs = std::filesystem;

namespace {

// Saved this long after the last keystroke (and on Run, on leaving the step, on closing).
constexpr double kSaveIdleSeconds = 1.0;

double seconds_now() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Where the check is, as a fraction for the progress bar.
float check_fraction(const std::string& stage) {
    if (stage.rfind("compiling", 0) == 0) return 0.15f;
    if (stage.rfind("running the reference", 0) == 0) return 0.45f;
    if (stage.rfind("running", 0) == 0) return 0.65f;
    return 0.05f;
}

}  // namespace

PuzzleView::PuzzleView(ViewHost& host) : host_(host) {
    toolchain_ = puzzles::find_toolchain(student_device_dir(), kernel_runner_path());
    // A GPU and the toolkit's nvcc: a kernel that passes in the simulator also runs there.
    const gpu::GpuProbe& probe = gpu::probe();
    if (probe.device_ok && !toolchain_.nvcc.empty()) gpu_arch_ = probe.cc_major * 10 + probe.cc_minor;
    // Said once on the terminal too (the GUI tests read it); the window says it in Run's place.
    if (!toolchain_.usable()) {
        std::printf("gpulab: kernel puzzles: %s.\n", toolchain_.missing.c_str());
        std::fflush(stdout);
    } else if (const puzzles::SandboxStatus& sb = puzzles::sandbox_status(); !sb.confined) {
        std::printf("gpulab: kernel puzzles: %s.\n", sb.sentence.c_str());
        std::fflush(stdout);
    }
}

PuzzleView::~PuzzleView() {
    // Closing the window: whatever was typed since the last save is written now.
    for (auto& [id, s] : slots_)
        if (s->dirty) save_now(*s);
}

// [SECTION] puzzles and saving

PuzzleView::Slot& PuzzleView::slot_for(const std::string& id) {
    auto it = slots_.find(id);
    if (it != slots_.end()) return *it->second;
    auto s = std::make_unique<Slot>();
    s->id = id;
    Slot& ref = *s;
    slots_.emplace(id, std::move(s));
    return ref;
}

void PuzzleView::load_puzzle(Slot& s) {
    if (s.puzzle) return;
    const fs::path root = puzzle_dir();
    if (root.empty()) {
        s.problem = "gpulab's puzzles folder was not found, so this step's puzzle '" + s.id +
                    "' cannot be shown: reinstall gpulab, or set GPULAB_DATA_DIR to a folder that holds puzzles/.";
        return;
    }
    std::error_code ec;
    if (!fs::is_regular_file(root / s.id / "puzzle.toml", ec)) {
        s.problem = "This step's puzzle, '" + s.id + "', is not installed: there is no " +
                    (root / s.id / "puzzle.toml").string() + ". The other steps' puzzles still work.";
        return;
    }
    puzzles::PuzzleLoad load = puzzles::load_puzzle(root / s.id);
    if (load.puzzles.empty()) {
        s.problem = "The puzzle '" + s.id + "' could not be read: " +
                    (load.errors.empty() ? std::string("its folder holds no puzzle") : load.errors.front()) + ".";
        return;
    }
    s.problem.clear();
    s.puzzle = std::move(load.puzzles.front());
    s.reference.set_text(s.puzzle->solution);
    const SavedCode saved = load_saved_code(s.id);
    s.editor.set_text(saved.found ? saved.text : s.puzzle->skeleton);
    s.ever_saved = saved.found;
    s.load_note = saved.error;
    // No compiler: what the reference did on the example, as recorded with gpulab, so the picture
    // and the counts still teach.
    if (!toolchain_.usable()) {
        if (std::optional<puzzles::CheckResult> recorded = puzzles::recorded_reference_run(*s.puzzle)) {
            auto check = std::make_shared<PuzzleCheck>();
            check->puzzle_id = s.id;
            check->of_reference = true;
            check->code = s.puzzle->solution;
            check->result = std::move(*recorded);
            s.check = std::move(check);
        }
    }
}

void PuzzleView::save_now(Slot& s) {
    s.save_error = save_code(s.id, s.editor.text());
    // A failed save stays due: the next edit or leaving the step tries again.
    s.dirty = !s.save_error.empty();
    if (s.save_error.empty()) {
        s.load_note.clear();
        s.ever_saved = true;
    }
}

void PuzzleView::note_edit(Slot& s) {
    s.dirty = true;
    s.edited_at = seconds_now();
}

void PuzzleView::save_if_idle(Slot& s, bool force) {
    if (!s.dirty) return;
    if (force || seconds_now() - s.edited_at >= kSaveIdleSeconds) save_now(s);
}

void PuzzleView::enter_step(const core::LessonStep& step) {
    if (slot_) save_if_idle(*slot_, true);  // leaving the step
    toolchain_ = puzzles::find_toolchain(student_device_dir(), kernel_runner_path());
    // A GPU and the toolkit's nvcc: a kernel that passes in the simulator also runs there.
    const gpu::GpuProbe& probe = gpu::probe();
    if (probe.device_ok && !toolchain_.nvcc.empty()) gpu_arch_ = probe.cc_major * 10 + probe.cc_minor;  // g++ installed since?
    step_title_ = step.title;
    const std::string id = core::param_string(step.params, "puzzle", "");
    if (id.empty()) {
        slot_ = nullptr;
        step_problem_ = "This step names no puzzle (its lesson file needs puzzle = \"<id>\" in [steps.params]).";
        return;
    }
    step_problem_.clear();
    slot_ = &slot_for(id);
    load_puzzle(*slot_);
}

void PuzzleView::update(float) {
    for (auto& [id, s] : slots_) save_if_idle(*s, false);
}

// [SECTION] checks

void PuzzleView::request_run() {
    if (slot_) start_check(slot_->showing_reference);
}

bool PuzzleView::start_check(bool of_reference) {
    if (!slot_ || !slot_->puzzle) return false;
    if (!toolchain_.usable()) {
        host_.info = toolchain_.missing;
        return false;
    }
    if (host_.refuse_if_busy()) return false;
    Slot& s = *slot_;
    if (!of_reference) save_if_idle(s, true);
    auto check = std::make_shared<PuzzleCheck>();
    check->puzzle_id = s.id;
    check->of_reference = of_reference;
    check->code = of_reference ? s.puzzle->solution : s.editor.text();
    const puzzles::Puzzle puzzle = *s.puzzle;
    const puzzles::Toolchain tc = toolchain_;
    const int gpu_arch = gpu_arch_;
    const bool ok = host_.submit("kernel check", [this, check, puzzle, tc, gpu_arch](const core::ProgressFn& progress) {
        puzzles::CheckOptions o;
        o.trace = true;
        o.gpu_arch = gpu_arch;  // with a GPU and nvcc: the same kernel on the GPU once the checks pass
        o.progress = [&progress](const std::string& stage) { progress(check_fraction(stage), stage); };
        o.cancelled = [] { return core::cancel_requested(); };
        check->result = puzzles::check_submission(tc, puzzle, check->code, o);
        check->cancelled = check->result.summary == "Cancelled";
        return std::function<void()>([this, check] { finish_check(check); });
    });
    if (ok) running_id_ = s.id;
    return ok;
}

void PuzzleView::finish_check(std::shared_ptr<const PuzzleCheck> check) {
    running_id_.clear();
    // One line on the terminal per check (the GUI tests read it).
    std::printf("gpulab: puzzle %s%s: %s\n", check->puzzle_id.c_str(), check->of_reference ? " (reference)" : "",
                check->cancelled ? "check cancelled" : check->result.summary.c_str());
    std::fflush(stdout);
    Slot& s = slot_for(check->puzzle_id);
    if (check->cancelled) {
        host_.info = "check cancelled: the last result stays";  // the previous check still describes the code
        return;
    }
    s.check = std::move(check);
}

void PuzzleView::run_blocking(bool) {
    // Headless export: the reference solution, shown read-only and checked, so a slide of each
    // step has the code, the cases and the picture of what it did. Without a compiler, or without
    // the puzzle, the step shows why (a result too: the export goes on).
    blocking_id_ = slot_ ? slot_->id : std::string();
    blocking_ran_ = true;
    if (!slot_ || !slot_->puzzle) return;
    Slot& s = *slot_;
    s.showing_reference = true;
    if (!toolchain_.usable()) return;
    auto check = std::make_shared<PuzzleCheck>();
    check->puzzle_id = s.id;
    check->of_reference = true;
    check->code = s.puzzle->solution;
    puzzles::CheckOptions o;
    o.trace = true;
    check->result = puzzles::check_submission(toolchain_, *s.puzzle, check->code, o);
    finish_check(check);
}

bool PuzzleView::has_result() const {
    if (slot_ && slot_->check) return true;
    return blocking_ran_ && blocking_id_ == (slot_ ? slot_->id : std::string());
}

std::vector<EditorMark> PuzzleView::marks_for(const Slot& s) const {
    std::vector<EditorMark> marks;
    const PuzzleCheck* c = s.check.get();
    if (!c || c->of_reference != s.showing_reference) return marks;
    for (const puzzles::Diagnostic& d : c->result.compile.diagnostics)
        if (d.line > 0) marks.push_back({d.line, d.error, std::string(d.error ? "error: " : "warning: ") + d.message});
    for (const puzzles::Defect& d : c->result.defects) {
        if (d.kind == puzzles::DefectKind::CompileError) continue;  // its lines are the diagnostics above
        for (int line : d.lines) marks.push_back({line, false, std::string(puzzles::defect_kind_name(d.kind)) + ": " + d.message});
    }
    return marks;
}

std::string PuzzleView::step_text_extra() const {
    if (!slot_) return step_problem_;
    if (!slot_->puzzle) return slot_->problem;
    const puzzles::Puzzle& p = *slot_->puzzle;
    // The puzzle's own title, unless the step already says it.
    std::string md = p.title == step_title_ ? std::string() : "**The puzzle: " + p.title + "**\n\n";
    md += p.statement;
    // The kernel's signature is the skeleton's first line in the editor; one long code span here
    // could not wrap in a narrow column.
    return md;
}

// [SECTION] script actions (--script-keys View=NAME)

bool PuzzleView::script_action(const std::string& name, std::string& said) {
    if (!slot_ || !slot_->puzzle) {
        said = slot_ ? slot_->problem : step_problem_;
        return false;
    }
    Slot& s = *slot_;
    const auto type = [&](const std::string& text) {
        // As if the student typed it: the editor's text, saved after the usual pause.
        s.showing_reference = false;
        s.editor.set_text(text);
        note_edit(s);
    };
    if (name == "type-solution") {
        type(s.puzzle->solution);
        said = "typed the reference solution of " + s.id + " into the editor";
    } else if (name.rfind("type-wrong:", 0) == 0) {
        const std::string file = name.substr(11);
        for (const fs::path& w : s.puzzle->wrong) {
            if (w.stem().string() != file) continue;
            try {
                type(core::read_input_file(w.string(), 1 << 20, "kernel"));
                said = "typed " + w.filename().string() + " of " + s.id + " into the editor";
                return true;
            } catch (const std::exception& e) {
                said = e.what();
                return false;
            }
        }
        said = "puzzle " + s.id + " has no wrong/" + file + ".cu";
        return false;
    } else if (name.rfind("type-file:", 0) == 0) {
        const std::string path = name.substr(10);
        try {
            type(core::read_input_file(path, 1 << 20, "kernel"));
            said = "typed " + path + " into the editor";
        } catch (const std::exception& e) {
            said = e.what();
            return false;
        }
    } else if (name == "type-error") {
        type(s.editor.text() + "\nthis line does not compile\n");
        said = "added a line that does not compile";
    } else if (name == "reset") {
        type(s.puzzle->skeleton);
        said = "reset " + s.id + " to its skeleton";
    } else if (name == "show-reference") {
        s.showing_reference = true;
        said = "showing the reference solution of " + s.id;
    } else if (name == "go-to-error") {
        const std::vector<EditorMark> marks = marks_for(s);
        if (marks.empty()) {
            said = "no marked line";
            return false;
        }
        (s.showing_reference ? s.reference : s.editor).go_to_line(marks.front().line);
        said = "went to line " + std::to_string(marks.front().line);
    } else if (name == "run") {
        const bool ok = start_check(s.showing_reference);
        said = ok ? "check started" : "check not started: " + (host_.info.empty() ? host_.error : host_.info);
        return ok;
    } else {
        said = "unknown action '" + name + "' (type-solution, type-wrong:<file>, type-file:<path>, type-error, reset, "
               "show-reference, go-to-error, run)";
        return false;
    }
    return true;
}

bool PuzzleView::load_comparison(const std::string&, std::string& error) {
    // Every machine gets the same counts: there is nothing to compare.
    error = "the kernel puzzles have nothing to compare between machines: the simulator's counts are the same on "
            "every machine";
    host_.error = error;
    return false;
}

// [SECTION] export

namespace {

std::string check_csv(const puzzles::Puzzle& p, const PuzzleCheck& c, const std::vector<std::string>& caption) {
    std::ostringstream out;
    for (const std::string& line : caption) out << "# " << line << "\n";
    out << "# puzzle " << p.id << " (" << p.title << "), " << (c.of_reference ? "the reference solution" : "the student's kernel")
        << ": " << c.result.summary << "\n";
    out << "# the counts are the simulator's, exact for its memory model (warps of 32 threads, 32-byte sectors, 32 "
           "banks of 4 bytes) and the same on every machine: not a time, not a GPU speed\n";
    for (const puzzles::Defect& d : c.result.defects) {
        out << "# defect: " << puzzles::defect_kind_name(d.kind);
        for (std::size_t i = 0; i < d.lines.size(); ++i) out << (i == 0 ? ", line " : " ") << d.lines[i];
        out << ": " << d.message << "\n";
    }
    out << "puzzle,case,visible,ran,passed,elements,elements_wrong,threads,blocks,warps,divergent_warps,barriers,"
           "global_requests,global_sectors,global_bytes,shared_requests,shared_wavefronts\n";
    for (const puzzles::CaseOutcome& k : c.result.cases) {
        const puzzles::CaseReport& r = k.report;
        out << core::csv_field(p.id) << "," << core::csv_field(k.name) << "," << (k.visible ? 1 : 0) << ","
            << (k.ran ? 1 : 0) << "," << (k.passed ? 1 : 0) << "," << k.elements << "," << k.elements_wrong << ","
            << r.threads << "," << r.blocks << "," << r.warps << "," << r.divergent_warps << "," << r.barriers << ","
            << r.global_requests << "," << r.global_sectors << "," << r.global_bytes << "," << r.shared_requests << ","
            << r.shared_wavefronts << "\n";
    }
    return out.str();
}

}  // namespace

std::string PuzzleView::measurement_csv(const std::string& lesson_title) const {
    if (!slot_ || !slot_->puzzle || !slot_->check) return "";
    const int64_t now = std::chrono::duration_cast<std::chrono::seconds>(
                            std::chrono::system_clock::now().time_since_epoch()).count();
    return check_csv(*slot_->puzzle, *slot_->check, machine_caption_lines(lesson_title, now));
}

ExportResult PuzzleView::export_files(const ViewExport& in) {
    ExportWriter out(in.out_dir, in.lesson_id);
    if (!out.ok()) return out.failed();
    if (slot_ && slot_->puzzle) {
        Slot& s = *slot_;
        if (s.check && !out.text("-puzzle.csv", measurement_csv(in.lesson_title))) return out.failed();
        const fs::path png = out.path("-puzzle.png");
        std::string error;
        const bool ok = render_panel_png(in.ui_scale, 1200, png.string(), error, [&](const Fonts& fonts, float) {
            draw_export_heading(fonts, in.lesson_title + ": " + s.puzzle->title);
            const std::string& code = s.showing_reference ? s.puzzle->solution : s.editor.text();
            ImGui::TextColored(kMutedColour, "%s", s.showing_reference ? "The reference solution" : "The student's kernel");
            if (fonts.mono) ImGui::PushFont(fonts.mono);
            ImGui::TextUnformatted(code.c_str());
            if (fonts.mono) ImGui::PopFont();
            ImGui::Separator();
            const float w = ImGui::GetContentRegionAvail().x;
            draw_results(w, fonts);
            ImGui::Separator();
            draw_what_it_did(w, fonts);
        });
        if (!out.picture(png, ok, error)) return out.failed();
    }
    return out.finish(in.window_rgba, in.window_width, in.window_height);
}

std::string PuzzleView::export_description() const {
    return "Write <lesson>-puzzle.png (the code, its check and a picture of what it did), <lesson>-puzzle.csv (each "
           "case with the simulator's counts) and <lesson>-window.png.";
}

}  // namespace gpulab::app
