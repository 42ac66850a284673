// The shell's state changes and frame layout: see shell.h. Its panels are the other files in app/shell/.
#include "shell.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "views/activation/activation_view.h"
#include "backend_set.h"
#include "views/conv2d/conv2d_view.h"
#include "gpu_backends.h"
#include "views/latency/latency_view.h"
#include "lesson_directories.h"
#include "views/puzzles/puzzle_view.h"
#include "views/simd_mimd/simd_mimd_view.h"
#include "views/tensor/tensor_view.h"
#include "views/train/train_view.h"
#include "render/resources.h"
#include "runtime/thread_pool.h"
#include "runtime/thread_priority.h"

namespace gpulab::app {

Shell::Shell() = default;

// The views are destroyed first (they are the last members: their GL objects need the context and
// the backends), but a job still running on the worker captured its view: the worker is stopped
// and joined before any member goes. (Found by the soak: closing the window during a training
// lesson run, or any run, could let the job write into a destroyed view.)
Shell::~Shell() { jobs_.stop(); }

bool Shell::init(const Options& options, std::string& error) {
    // Without its data folder the app has no shaders to draw with and no built-in lessons: one
    // sentence saying where it looked beats an empty window.
    if (error = data_root_problem(); !error.empty()) return false;
    catalog_ = core::load_lessons(lesson_directories(options.lesson_dirs));

    backends_ = make_all_backends();
    backend_ptrs_ = raw_pointers(backends_);
    host_.backends = backend_ptrs_;
    host_.jobs = &jobs_;

    if (!options.lesson_id.empty()) {
        for (std::size_t i = 0; i < catalog_.lessons.size(); ++i)
            if (catalog_.lessons[i].id == options.lesson_id) lesson_index_ = static_cast<int>(i);
        // A lesson file that exists but was refused says which file and why, not "unknown lesson"
        // (issue 43: an oversized file once opened as "unknown lesson 'long-line'").
        for (const core::LessonError& e : catalog_.errors) {
            if (lesson_index_ >= 0 || std::filesystem::path(e.file).stem() != options.lesson_id) continue;
            error = "the lesson '" + options.lesson_id + "' cannot be opened: " + e.to_string();
            return false;
        }
        if (lesson_index_ < 0) {
            error = "unknown lesson '" + options.lesson_id + "'; known:";
            for (const auto& l : catalog_.lessons) error += " " + l.id;
            if (catalog_.lessons.empty()) error += " none";
            return false;
        }
    } else {
        for (std::size_t i = 0; i < catalog_.lessons.size() && lesson_index_ < 0; ++i)
            if (!catalog_.lessons[i].coming) lesson_index_ = static_cast<int>(i);
    }
    if (lesson_index_ >= 0) select_lesson(lesson_index_);
    return true;
}

void Shell::set_measurement_priority() {
    jobs_.set_worker_nice(cpu::kMeasurementNice);
    cpu::ThreadPool::shared().set_worker_nice(cpu::kMeasurementNice);
}

const core::Lesson* Shell::lesson() const {
    if (lesson_index_ < 0 || lesson_index_ >= static_cast<int>(catalog_.lessons.size())) return nullptr;
    return &catalog_.lessons[static_cast<std::size_t>(lesson_index_)];
}

const std::string& Shell::lesson_id() const {
    static const std::string kNone;
    const core::Lesson* l = lesson();
    return l ? l->id : kNone;
}

// [SECTION] steps

LessonView* Shell::view_for(const std::string& workload) {
    auto it = views_.find(workload);
    if (it != views_.end()) return it->second.get();
    std::unique_ptr<LessonView> v;
    if (workload == "activation") v = std::make_unique<ActivationView>(host_);
    else if (workload == "latency") v = std::make_unique<LatencyView>(host_);
    else if (workload == "simd-mimd") v = std::make_unique<SimdMimdView>(host_);
    else if (workload == "conv2d") v = std::make_unique<Conv2dView>(host_);
    else if (workload == "train") v = std::make_unique<TrainView>(host_);
    else if (workload == "puzzles") v = std::make_unique<PuzzleView>(host_);
    else if (workload == "tensor") v = std::make_unique<TensorView>(host_);
    if (!v) return nullptr;
    return views_.emplace(workload, std::move(v)).first->second.get();
}

void Shell::select_lesson(int index) {
    if (index < 0 || index >= static_cast<int>(catalog_.lessons.size())) return;
    const core::Lesson& l = catalog_.lessons[static_cast<std::size_t>(index)];
    if (l.coming) {
        host_.info = "'" + l.title + "' is coming in a later version";
        return;
    }
    LessonView* v = view_for(l.workload);
    if (!v) {
        host_.info = "'" + l.title + "' needs the '" + l.workload + "' workload, which this version cannot show";
        return;
    }
    stop_measuring_every_step("you opened another lesson");
    stop_run_of_left_step();
    lesson_index_ = index;
    view_ = v;
    set_shown_result_machine("");  // the step entered says again where its result comes from
    enter_step(0);
}

void Shell::stop_run_of_left_step() {
    // A run belongs to the step that started it: leaving the step stops it (the workloads check
    // between samples and batches), so the new step's own run starts at once and no result of the
    // old step appears under the new heading.
    if (!jobs_.busy() || jobs_.cancelling()) return;
    jobs_.cancel();
    cancelled_by_leaving_ = true;
}

void Shell::enter_step(int index) {
    const core::Lesson* l = lesson();
    if (!l || l->steps.empty() || !view_) return;
    step_index_ = std::clamp(index, 0, static_cast<int>(l->steps.size()) - 1);
    text_page_ = 0;
    core::LessonStep step = l->steps[static_cast<std::size_t>(step_index_)];
    step.params = core::step_settings(*l, step_index_);  // the same settings whichever step came before
    host_.step_input_problem.clear();
    host_.measuring_every_step = every_step_.active;
    quiet_retry_.stop();  // a new step: the last one's busy run is not repeated under it
    automatic_run_ = false;
    view_->enter_step(step);
    if (!view_->still_wants_running_job()) stop_run_of_left_step();
}

void Shell::next_step() {
    stop_measuring_every_step("you moved to another step");
    const core::Lesson* l = lesson();
    if (l && step_index_ + 1 < static_cast<int>(l->steps.size())) enter_step(step_index_ + 1);
}

void Shell::prev_step() {
    stop_measuring_every_step("you moved to another step");
    if (step_index_ > 0) enter_step(step_index_ - 1);
}

// [SECTION] runs

void Shell::request_stop() {
    stop_measuring_every_step("the steps measured so far keep their results");
    if (!jobs_.busy()) {
        presenter_message_ = "nothing is running";
        presenter_message_age_ = 0.0f;
        return;
    }
    jobs_.cancel();
}

void Shell::request_run() {
    if (view_) view_->request_run();
}

void Shell::run_blocking(bool quick) {
    if (view_) view_->run_blocking(quick);
}

void Shell::show_overview_panel() {
    if (view_) view_->show_overview_panel();
}

void Shell::update(float dt) {
    jobs_.poll();
    if (const int64_t ns = jobs_.take_cancel_latency_ns(); ns >= 0 && cancelled_by_leaving_) {
        // On stdout for the tests and the soak ("within 0.5 s", tests/gui_tests.cmake).
        std::printf("gpulab: left the step: its run (%s, %s) stopped %.0f ms later\n", jobs_.label().c_str(),
                    jobs_.cancel_stage().c_str(), static_cast<double>(ns) * 1e-6);
        std::fflush(stdout);
    }
    if (!jobs_.busy()) cancelled_by_leaving_ = false;
    if (std::optional<ExportResult> done = background_export_.take_result()) show_export_result(std::move(*done));
    // "already running" answered a key pressed during the last run; once it is over the line is stale.
    if (!jobs_.busy() && host_.info == ViewHost::kBusyMessage) host_.info.clear();
    if (view_) view_->update(dt);
    watch_for_quiet(jobs_.busy());
    continue_measuring_every_step();
}

std::string Shell::view_script_action(const std::string& name) {
    // "tab=<name>": the side panel's tab (Lesson, Controls, Lessons, Devices) is chosen, so a
    // screenshot of a script can show any of them.
    if (name.rfind("tab=", 0) == 0) {
        select_side_tab_ = name.substr(4);
        return "tab " + select_side_tab_ + " chosen";
    }
    if (!view_) return "no lesson is open";
    std::string said;
    view_->script_action(name, said);
    return said;
}

void Shell::drop_files(const std::vector<std::string>& paths) {
    if (view_) view_->drop_files(paths);
}

// [SECTION] export

bool Shell::take_export_request() {
    bool r = export_requested_;
    export_requested_ = false;
    return r;
}

bool Shell::take_fullscreen_toggle() {
    bool r = fullscreen_toggle_;
    fullscreen_toggle_ = false;
    return r;
}

bool Shell::set_export_dir(const std::string& dir) {
    if (dir.size() >= sizeof export_dir_buf_) return false;
    std::strncpy(export_dir_buf_, dir.c_str(), sizeof export_dir_buf_ - 1);
    return true;
}

ExportResult Shell::export_now(std::vector<uint8_t> window_rgba, int width, int height) {
    ViewExport in;
    in.out_dir = export_dir_buf_;
    in.lesson_id = lesson_id().empty() ? "gpulab" : lesson_id();
    in.lesson_title = lesson() ? lesson()->title : "gpulab";
    // Moved, not copied: the pixels may go on to the background writer.
    in.window_rgba = std::make_shared<const std::vector<uint8_t>>(std::move(window_rgba));
    in.window_width = width;
    in.window_height = height;
    in.ui_scale = user_scale() * content_scale_;
    if (view_) {
        last_export_ = view_->export_files(in);
    } else {
        last_export_ = {};
        last_export_.message = "nothing to export yet: choose a lesson and run a measurement first";
    }
    exported_once_ = true;
    return last_export_;
}

void Shell::start_export(std::vector<uint8_t> window_rgba, int width, int height) {
    if (background_export_.busy()) {
        // Refused rather than queued: the second press would write the same files again, and the
        // first export's result, still to come, stays the one shown.
        export_note_ = "Not exported again: the last export is still being written. Press F12 once it says where "
                       "its files are.";
        if (presenter_.presenting) {
            presenter_message_ = export_note_;
            presenter_message_age_ = 0.0f;
        }
        finished_export_ = ExportResult{false, export_note_, {}};
        return;
    }
    std::vector<PendingFile> files;
    ExportResult planned;
    {
        DeferredExportWrites queue;  // the view's files are queued here, not written
        planned = export_now(std::move(window_rgba), width, height);
        files = queue.take();
    }
    if (files.empty()) {
        // Nothing to write (no measurement yet, the folder could not be made): said at once.
        show_export_result(std::move(planned));
        return;
    }
    // A failed `planned` (a panel that could not be rendered) still has its earlier files written:
    // its message says they are kept, as when the files were written at once.
    std::size_t pictures = 0;
    for (const PendingFile& f : files) pictures += f.rgba ? 1 : 0;
    const std::size_t tables = files.size() - pictures;
    std::string progress = "Exporting " + std::to_string(pictures) + (pictures == 1 ? " picture" : " pictures");
    if (tables) progress += " and " + std::to_string(tables) + (tables == 1 ? " CSV file" : " CSV files");
    last_export_ = {true, progress + "...", {}};
    exported_once_ = true;
    background_export_.start(std::move(files), std::move(planned));
}

void Shell::show_export_result(ExportResult result) {
    export_note_.clear();
    last_export_ = result;
    exported_once_ = true;
    if (presenter_.presenting) {
        // Presenter mode hides Controls; the message line at the bottom says how it went.
        presenter_message_ = result.message;
        presenter_message_age_ = 0.0f;
    }
    finished_export_ = std::move(result);
}

std::optional<ExportResult> Shell::take_finished_export() {
    std::optional<ExportResult> r = std::move(finished_export_);
    finished_export_.reset();
    return r;
}

std::optional<ExportResult> Shell::finish_export() {
    if (std::optional<ExportResult> done = background_export_.wait()) show_export_result(std::move(*done));
    return take_finished_export();
}

// [SECTION] layout

void Shell::draw_canvas() {
    if (view_) view_->draw_canvas();
    else ImGui::TextColored({0.58f, 0.58f, 0.60f, 1.0f}, "Choose a lesson in the Lessons menu.");
}

void Shell::draw_timing() {
    if (view_) view_->draw_timing();
}

void Shell::draw_side_tabs(const FrameContext& ctx, bool with_lesson_text) {
    if (!ImGui::BeginTabBar("##side_tabs")) return;
    // A script's choice (view_script_action "tab=..."), taken once.
    auto flags = [&](const char* tab) {
        if (select_side_tab_ != tab) return ImGuiTabItemFlags_None;
        select_side_tab_.clear();
        return ImGuiTabItemFlags_SetSelected;
    };
    if (with_lesson_text && ImGui::BeginTabItem("Lesson", nullptr, flags("Lesson"))) {
        draw_lesson_text();
        ImGui::EndTabItem();
    }
    if (ImGui::BeginTabItem("Controls", nullptr, flags("Controls"))) {
        draw_controls(ctx);
        ImGui::EndTabItem();
    }
    if (ImGui::BeginTabItem("Lessons", nullptr, flags("Lessons"))) {
        draw_lesson_list();
        ImGui::EndTabItem();
    }
    if (ImGui::BeginTabItem("Devices", nullptr, flags("Devices"))) {
        draw_devices();
        ImGui::EndTabItem();
    }
    ImGui::EndTabBar();
}

void Shell::frame(const FrameContext& ctx) {
    save_settings_if_changed();
    if (view_) view_->prepare_frame();
    if (draw_presenter_frame(ctx)) return;
    const ImGuiWindowFlags fixed = ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoCollapse |
                                   ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoBringToFrontOnFocus;
    draw_menu_bar(ctx);
    const float top = ImGui::GetFrameHeight();
    const float status_h = ImGui::GetFrameHeight() + ImGui::GetStyle().WindowPadding.y;
    const float W = ctx.size.x, H = ctx.size.y - top - status_h;
    const float s = ImGui::GetFontSize() / kBaseFontPixels;
    auto place = [&](float x, float y, float w, float h) {
        ImGui::SetNextWindowPos({x, top + y}, ImGuiCond_Always);
        ImGui::SetNextWindowSize({w, h}, ImGuiCond_Always);
    };
    if (W / s < kNarrowLogicalWidth) {
        const float canvas_h = std::floor(H * 0.55f);
        // Large UI scale on a small screen: three columns would squeeze the canvas until its
        // labels overlap, so the text panels share one tabbed column beside canvas and timing.
        const float side_w = std::floor(W * 0.36f);
        place(0, 0, side_w, H);
        if (ImGui::Begin("##side", nullptr, fixed | ImGuiWindowFlags_NoTitleBar)) draw_side_tabs(ctx, true);
        ImGui::End();
        place(side_w, 0, W - side_w, canvas_h);
        if (ImGui::Begin("Canvas", nullptr, fixed)) draw_canvas();
        ImGui::End();
        place(side_w, canvas_h, W - side_w, H - canvas_h);
        if (ImGui::Begin(timing_window_name().c_str(), nullptr, fixed)) draw_timing();
        ImGui::End();
    } else {
        // The picture is the lesson: the canvas takes the whole left part, about three fifths of the
        // height, with the plots and tables under it. The step text and the controls share one
        // column on the right; the lesson list and the devices are tabs beside the controls (and the
        // Lessons menu), since nobody reads them while a step is being taught.
        const float right_w = std::floor(std::max(380.0f * s, W * 0.27f));
        const float main_w = W - right_w;
        // The canvas takes what the Timing panel leaves (its content's height in the last frame),
        // between three fifths and four fifths of the height: a panel of three lines does not keep a
        // quarter of the window while the picture scrolls above it (issue 41).
        const float main_canvas_h = std::floor(std::clamp(H - timing_content_h_, H * 0.62f, H * 0.80f));
        // The step text gets what the controls leave (their height in the last frame), between about
        // two fifths and seven tenths of the column: on a 768-pixel laptop every line of text counts, but
        // the text turns parts while a control cut off by the fold cannot be reached (a busy warning
        // under seven sliders).
        const float text_h = std::floor(std::clamp(H - side_content_h_, H * 0.42f, H * 0.72f));
        place(0, 0, main_w, main_canvas_h);
        if (ImGui::Begin("Canvas", nullptr, fixed)) draw_canvas();
        ImGui::End();
        place(0, main_canvas_h, main_w, H - main_canvas_h);
        if (ImGui::Begin(timing_window_name().c_str(), nullptr, fixed)) {
            draw_timing();
            timing_content_h_ = ImGui::GetCursorPosY() + ImGui::GetStyle().WindowPadding.y;
        }
        ImGui::End();
        place(main_w, 0, right_w, text_h);
        if (ImGui::Begin("Lesson###LessonText", nullptr, fixed)) draw_lesson_text();
        ImGui::End();
        place(main_w, text_h, right_w, H - text_h);
        if (ImGui::Begin("##side_panels", nullptr, fixed | ImGuiWindowFlags_NoTitleBar)) {
            draw_side_tabs(ctx, false);
            side_content_h_ = ImGui::GetCursorPosY() + ImGui::GetStyle().WindowPadding.y;
        }
        ImGui::End();
    }

    ImGui::SetNextWindowPos({0, ctx.size.y - status_h}, ImGuiCond_Always);
    ImGui::SetNextWindowSize({W, status_h}, ImGuiCond_Always);
    if (ImGui::Begin("##status", nullptr, fixed | ImGuiWindowFlags_NoDecoration)) draw_status_bar(ctx);
    ImGui::End();
    draw_presenter_overlays(ctx);
}

}  // namespace gpulab::app
