// The shell's state changes and frame layout: see shell.h. Panels live in app/panels/.
#include "shell.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>

#include "gpu_backends.h"
#include "image_io.h"
#include "resources.h"

namespace gpulab::app {

Shell::Shell() = default;

Shell::~Shell() = default;

bool Shell::init(const Options& options, std::string& error) {
    std::vector<std::string> dirs;
    std::filesystem::path builtin = find_resource("lessons");
    if (!builtin.empty()) dirs.push_back(builtin.string());
    for (const auto& d : options.lesson_dirs) dirs.push_back(d);
    catalog_ = core::load_lessons(dirs);

    backends_ = core::make_cpu_backends();
    for (auto& b : gpu::make_backends()) backends_.push_back(std::move(b));
    for (auto& b : backends_) backend_ptrs_.push_back(b.get());

    if (!options.lesson_id.empty()) {
        for (std::size_t i = 0; i < catalog_.lessons.size(); ++i)
            if (catalog_.lessons[i].id == options.lesson_id) lesson_index_ = static_cast<int>(i);
        if (lesson_index_ < 0) {
            error = "unknown lesson '" + options.lesson_id + "'; known:";
            for (const auto& l : catalog_.lessons) error += " " + l.id;
            if (catalog_.lessons.empty()) error += " none (no lessons/ folder found; set GPULAB_DATA_DIR)";
            return false;
        }
    } else {
        for (std::size_t i = 0; i < catalog_.lessons.size() && lesson_index_ < 0; ++i)
            if (!catalog_.lessons[i].coming) lesson_index_ = static_cast<int>(i);
    }
    if (lesson_index_ >= 0) select_lesson(lesson_index_);
    return true;
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

void Shell::select_lesson(int index) {
    if (index < 0 || index >= static_cast<int>(catalog_.lessons.size())) return;
    if (catalog_.lessons[static_cast<std::size_t>(index)].coming) {
        info_ = "'" + catalog_.lessons[static_cast<std::size_t>(index)].title + "' is coming in a later version";
        return;
    }
    lesson_index_ = index;
    enter_step(0);
}

void Shell::enter_step(int index) {
    const core::Lesson* l = lesson();
    if (!l || l->steps.empty()) return;
    step_index_ = std::clamp(index, 0, static_cast<int>(l->steps.size()) - 1);
    const core::LessonStep& step = l->steps[static_cast<std::size_t>(step_index_)];
    params_ = core::activation_params_from(step.params, params_);
    if (params_.elements > 0)
        log2_elements_ = std::clamp(static_cast<int>(std::lround(std::log2(static_cast<double>(params_.elements)))), 10, 26);
    if (!params_.image_path.empty()) {
        std::strncpy(path_buf_, params_.image_path.c_str(), sizeof path_buf_ - 1);
        if (try_load_image(params_.image_path)) use_file_ = true;
        params_.image_path.clear();
    }
    const std::string anim = core::param_string(step.params, "animation", "both");
    anim_mode_ = anim == "gpu" ? 1 : 0;
    if (step.action == "animate") anim_time_ = 0.0f;
    if (step.action == "run") run_on_step_ = true;
}

void Shell::next_step() {
    const core::Lesson* l = lesson();
    if (l && step_index_ + 1 < static_cast<int>(l->steps.size())) enter_step(step_index_ + 1);
}

void Shell::prev_step() {
    if (step_index_ > 0) enter_step(step_index_ - 1);
}

// [SECTION] runs

core::ActivationParams Shell::current_params() const {
    core::ActivationParams p = params_;
    p.elements = int64_t{1} << log2_elements_;
    p.image_path = use_file_ ? loaded_image_ : std::string();
    return p;
}

core::MeasureConfig Shell::measure_config(bool live, bool quick) const {
    core::MeasureConfig c;
    if (live) {
        // Short runs keep the rolling plot moving; limits come from the last full run.
        c.warmup = 1;
        c.min_samples = 3;
        c.max_samples = 8;
        c.time_budget_ns = 150'000'000;
        c.measure_limits = false;
    } else if (quick) {
        c.warmup = 1;
        c.min_samples = 5;
        c.max_samples = 12;
        c.time_budget_ns = 300'000'000;
    }
    return c;
}

void Shell::request_run() {
    if (jobs_.busy()) {
        info_ = "a measurement is already running: wait for it or press Cancel";
        return;
    }
    start_run(false);
}

bool Shell::start_run(bool live) {
    if (use_file_ && loaded_image_.empty()) {
        error_ = "no image loaded: enter a path and press Load, or drop a PNG/JPG on the window";
        return false;
    }
    const core::ActivationParams params = current_params();
    const core::MeasureConfig config = measure_config(live, false);
    std::vector<core::Backend*> backends = backend_ptrs_;
    const bool ok = jobs_.submit(live ? "live run" : "measuring", [this, params, config, backends, live](
                                                                        const core::ProgressFn& progress) {
        auto run = std::make_shared<core::ActivationRun>(core::run_activation(params, backends, config, progress));
        return std::function<void()>([this, run, live] { finish_run(run, live); });
    });
    if (!ok) {
        info_ = "a measurement is already running: wait for it or press Cancel";
    } else if (!live) {
        // Messages about the last run ("cancelled", a failure) would now describe the wrong run.
        error_.clear();
        info_.clear();
    }
    return ok;
}

void Shell::run_blocking(bool quick) {
    run_on_step_ = false;  // this run replaces the one the first step asked for
    live_ = false;
    const core::ActivationParams params = current_params();
    auto run = std::make_shared<core::ActivationRun>(
        core::run_activation(params, backend_ptrs_, measure_config(false, quick), {}));
    finish_run(run, false);
}

void Shell::finish_run(std::shared_ptr<core::ActivationRun> run, bool live) {
    if (!run->ok) {
        // The previous result stays on screen; the reason is shown in red.
        if (run->error == "cancelled") {
            info_ = "measurement cancelled";
            live_ = false;
        } else {
            error_ = run->error;
            live_ = false;
        }
        return;
    }
    if (live && last_full_run_) {
        for (auto& r : run->reports) {
            for (const auto& prev : last_full_run_->reports) {
                if (prev.backend != r.backend || !prev.limit.ok) continue;
                r.limit = prev.limit;
                r.fraction_of_limit = r.limit.gbps > 0 ? r.gbps / r.limit.gbps : 0.0;
            }
        }
    }
    if (!live) last_full_run_ = run;
    last_run_ = std::move(run);
    history_.add_run(*last_run_);
    textures_dirty_ = true;
    if (!live) info_.clear();
}

void Shell::update(float dt) {
    anim_time_ += dt * anim_speed_;
    jobs_.poll();
    // Copy a finished run's output into the textures before the next run starts: a GPU backend's
    // device_output() is only valid until its next run(), which the worker may begin right below.
    if (textures_dirty_) update_textures();
    if (jobs_.busy()) return;
    if (run_on_step_) {
        run_on_step_ = false;
        start_run(false);
    } else if (live_) {
        // Live mode starts with a full run so the limits exist, then continues with short runs.
        start_run(last_full_run_ != nullptr);
    }
}

// [SECTION] input images

bool Shell::try_load_image(const std::string& path) {
    try {
        core::Tensor t = core::load_image_as_feature_map(path);
        loaded_image_ = path;
        loaded_image_shape_ = t.shape_string();
        info_ = "loaded " + path + " " + loaded_image_shape_;
        error_.clear();
        return true;
    } catch (const std::exception& e) {
        // The previous input stays in use.
        error_ = e.what();
        return false;
    }
}

void Shell::drop_files(const std::vector<std::string>& paths) {
    if (paths.empty()) return;
    std::strncpy(path_buf_, paths.front().c_str(), sizeof path_buf_ - 1);
    if (try_load_image(paths.front())) {
        use_file_ = true;
        if (!jobs_.busy()) start_run(false);
    }
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

void Shell::set_export_dir(const std::string& dir) {
    std::strncpy(export_dir_buf_, dir.c_str(), sizeof export_dir_buf_ - 1);
}

ExportResult Shell::export_now(std::vector<uint8_t> window_rgba, int width, int height) {
    ExportInput in;
    in.out_dir = export_dir_buf_;
    in.lesson_id = lesson_id().empty() ? "gpulab" : lesson_id();
    in.lesson_title = lesson() ? lesson()->title : "gpulab";
    in.run = last_run_.get();
    in.history = &history_;
    in.window_rgba = std::move(window_rgba);
    in.window_width = width;
    in.window_height = height;
    in.ui_scale = user_scale() * content_scale_;
    last_export_ = write_export(in);
    exported_once_ = true;
    return last_export_;
}

// [SECTION] layout

void Shell::frame(const FrameContext& ctx) {
    if (textures_dirty_) update_textures();
    for (TensorTexture* t : {input_tex_.get(), output_tex_.get()})
        if (t) t->poll_timing();
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
    const float canvas_h = std::floor(H * 0.46f);
    if (W / s < kNarrowLogicalWidth) {
        // Large UI scale on a small screen: three columns would squeeze the canvas until its
        // labels overlap, so the text panels share one tabbed column beside canvas and timing.
        const float side_w = std::floor(W * 0.36f);
        place(0, 0, side_w, H);
        if (ImGui::Begin("##side", nullptr, fixed | ImGuiWindowFlags_NoTitleBar)) {
            if (ImGui::BeginTabBar("##side_tabs")) {
                if (ImGui::BeginTabItem("Lesson")) {
                    draw_lesson_text();
                    ImGui::EndTabItem();
                }
                if (ImGui::BeginTabItem("Controls")) {
                    draw_controls(ctx);
                    ImGui::EndTabItem();
                }
                if (ImGui::BeginTabItem("Lessons")) {
                    draw_lesson_list();
                    ImGui::EndTabItem();
                }
                if (ImGui::BeginTabItem("Devices")) {
                    draw_devices();
                    ImGui::EndTabItem();
                }
                ImGui::EndTabBar();
            }
        }
        ImGui::End();
        place(side_w, 0, W - side_w, canvas_h);
        if (ImGui::Begin("Canvas", nullptr, fixed)) draw_canvas();
        ImGui::End();
        place(side_w, canvas_h, W - side_w, H - canvas_h);
        if (ImGui::Begin("Timing", nullptr, fixed)) draw_timing();
        ImGui::End();
    } else {
        const float left_w = std::max(260.0f * s, W * 0.17f);
        const float right_w = std::max(380.0f * s, W * 0.28f);
        const float centre_w = std::max(W - left_w - right_w, 200.0f);
        const float lessons_h = std::floor(H * 0.36f);
        const float text_h = std::floor(H * 0.50f);
        place(0, 0, left_w, lessons_h);
        if (ImGui::Begin("Lessons", nullptr, fixed)) draw_lesson_list();
        ImGui::End();
        place(0, lessons_h, left_w, H - lessons_h);
        if (ImGui::Begin("Devices", nullptr, fixed)) draw_devices();
        ImGui::End();
        place(left_w, 0, centre_w, canvas_h);
        if (ImGui::Begin("Canvas", nullptr, fixed)) draw_canvas();
        ImGui::End();
        place(left_w, canvas_h, centre_w, H - canvas_h);
        if (ImGui::Begin("Timing", nullptr, fixed)) draw_timing();
        ImGui::End();
        place(left_w + centre_w, 0, W - left_w - centre_w, text_h);
        if (ImGui::Begin("Lesson###LessonText", nullptr, fixed)) draw_lesson_text();
        ImGui::End();
        place(left_w + centre_w, text_h, W - left_w - centre_w, H - text_h);
        if (ImGui::Begin("Controls", nullptr, fixed)) draw_controls(ctx);
        ImGui::End();
    }

    ImGui::SetNextWindowPos({0, ctx.size.y - status_h}, ImGuiCond_Always);
    ImGui::SetNextWindowSize({W, status_h}, ImGuiCond_Always);
    if (ImGui::Begin("##status", nullptr, fixed | ImGuiWindowFlags_NoDecoration)) draw_status_bar(ctx);
    ImGui::End();
}

}  // namespace gpulab::app
