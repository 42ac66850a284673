// The elementwise-activations view's state changes: steps, runs on the worker (single or live),
// picture files, export (with another machine's bars when one was imported) and the status-bar
// display path. See activation_view.h; the drawing lives
// in app/views/activation/activation_*.cpp.
#include "activation_view.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>

#include "views/compare_view.h"
#include "views/recorded_gpu.h"
#include "views/stored_results.h"
#include "measure/format.h"
#include "gpu_model/gpu_model.h"
#include "io/image_io.h"
#include "widgets/diverging_map.h"
#include "widgets/ui_helpers.h"

namespace gpulab::app {

ActivationView::ActivationView(ViewHost& host) : host_(host) {
    // Format 2: runs too large for one entry ("Make it big") are stored without their pictures.
    back_with_stored_results<core::ActivationRun>(cache_, "activation", 2, core::activation_run_bytes,
                                                  core::activation_run_without_pictures, core::remake_activation_pictures);
}

ActivationView::~ActivationView() = default;

// [SECTION] steps

void ActivationView::enter_step(const core::LessonStep& step) {
    params_ = core::activation_params_from(step.params, params_);
    if (params_.elements > 0)
        log2_elements_ =
            std::clamp(static_cast<int>(std::lround(std::log2(static_cast<double>(params_.elements)))), 10, 26);
    if (!params_.image_path.empty()) {
        std::strncpy(path_buf_, params_.image_path.c_str(), sizeof path_buf_ - 1);
        if (try_load_image(params_.image_path))
            use_file_ = true;
        else  // the export stops with this step, the file and why (ViewHost::step_input_problem)
            host_.step_input_problem = "the step's picture cannot be used: " + host_.error;
        params_.image_path.clear();
    }
    const std::string anim = core::param_string(step.params, "animation", "both");
    anim_mode_ = anim == "gpu" ? 1 : 0;
    if (step.action == "animate") anim_time_ = 0.0f;
    if (step.action != "run") return;
    // These settings measured earlier in this session: shown at once, labelled; R measures again.
    // (In live mode runs follow each other anyway.) Measured in an earlier run of gpulab: read from
    // the store on a thread of its own (update() shows it, or measures when none is stored).
    const std::string key = core::activation_config_key(current_params());
    stored_load_.forget();
    const auto hit = live_ ? std::nullopt : cache_.find_in_memory(key);
    run_on_step_ = false;
    if (hit) {
        show_cached_run(*hit);
        return;
    }
    if (live_ || !stored_load_.start(cache_, key)) run_on_step_ = true;
    // Never the previous step's pictures and numbers under this step's heading while it measures.
    if (last_run_ && core::activation_config_key(last_run_->params) != key) last_run_.reset();
}

void ActivationView::show_cached_run(const core::ResultCache<core::ActivationRun>::Hit& hit) {
    last_run_ = last_full_run_ = hit.result;
    device_output_tag_.forget();  // the GPU's buffers hold later runs' outputs now
    textures_dirty_ = true;
    host_.show_cached(hit.measured_unix_s, hit.origin);
    match_recording();
}

// [SECTION] runs

core::ActivationParams ActivationView::current_params() const {
    core::ActivationParams p = params_;
    p.elements = int64_t{1} << log2_elements_;
    p.image_path = use_file_ ? loaded_image_ : std::string();
    return p;
}

core::MeasureConfig ActivationView::measure_config(bool live, bool quick) const {
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
    } else {
        // A step's run in class: about 2 s on a 2-core laptop at the lesson's largest default size
        // (issue 25). Seven samples give a median and a spread; more come while 0.3 s per backend lasts.
        c.min_samples = 7;
        c.time_budget_ns = 300'000'000;
    }
    return c;
}

void ActivationView::request_run() {
    if (host_.refuse_if_busy()) return;
    start_run(false);
}

bool ActivationView::start_run(bool live) {
    stored_load_.forget();  // measured now: a stored result still being read is not shown over it
    if (use_file_ && loaded_image_.empty()) {
        host_.error = "no image loaded: enter a path and press Load, or drop a PNG/JPG on the window";
        return false;
    }
    const core::ActivationParams params = current_params();
    const core::MeasureConfig config = measure_config(live, false);
    std::vector<core::Backend*> backends = host_.backends;
    // Live runs feed the rolling time plot: a simulated kernel has no time there and would slow every
    // round; its checked row is carried over from the last full run (finish_run).
    if (live)
        std::erase_if(backends, [](const core::Backend* b) { return !core::kind_is_timed(b->kind()); });
    return host_.submit(
        live ? "live run" : "activations",
        [this, params, config, backends, live](const core::ProgressFn& progress) {
            auto run = std::make_shared<core::ActivationRun>(core::run_activation(params, backends, config, progress));
            return std::function<void()>([this, run, live] { finish_run(run, live); });
        },
        live);
}

void ActivationView::run_blocking(bool quick) {
    run_on_step_ = false;  // this run replaces the one the first step asked for
    live_ = false;
    const core::ActivationParams params = current_params();
    auto run = std::make_shared<core::ActivationRun>(
        core::run_activation(params, host_.backends, measure_config(false, quick), {}));
    finish_run(run, false);
}

void ActivationView::finish_run(std::shared_ptr<core::ActivationRun> run, bool live) {
    if (!run->ok) {
        // The previous result stays on screen; the reason is shown in red.
        if (run->error == "cancelled") {
            host_.info = "measurement cancelled";
            live_ = false;
        } else {
            host_.error = run->error;
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
        // Simulated backends sit last in the list and are left out of live runs: keep their rows and
        // output while the live run computes the same thing (same op, input and size).
        const core::ActivationRun& full = *last_full_run_;
        const bool same = full.op.label() == run->op.label() && full.input.size() == run->input.size() &&
                          full.params.image_path == run->params.image_path && full.params.seed == run->params.seed;
        for (const auto& prev : full.reports)
            if (same && !core::kind_is_timed(prev.kind) && run->reports.size() < host_.backends.size())
                run->reports.push_back(prev);
        if (same && run->simulated_backend.empty()) {
            run->simulated_backend = last_full_run_->simulated_backend;
            run->simulated_output = last_full_run_->simulated_output;
        }
    }
    if (!live) {
        last_full_run_ = run;
        cache_.put(core::activation_config_key(run->params), run, core::activation_run_bytes(*run), run->started_unix_s);
    }
    last_run_ = std::move(run);
    if (!live) match_recording();
    std::vector<uint64_t> generations;
    for (const core::Backend* b : host_.backends) generations.push_back(b->output_generation());
    device_output_tag_.remember(std::move(generations), host_.jobs->busy());
    history_.add_run(*last_run_);
    textures_dirty_ = true;
    if (!live) host_.info.clear();
}

void ActivationView::prepare_frame() {
    if (textures_ramp_ != diverging_ramp()) textures_dirty_ = true;  // the View menu's palette changed
    if (textures_dirty_) update_textures();
    for (TensorTexture* t : {input_tex_.get(), output_tex_.get()})
        if (t) t->poll_timing();
}

void ActivationView::update(float dt) {
    anim_time_ += dt * anim_speed_;
    // Copy a finished run's output into the textures before the next run starts: a GPU backend's
    // device_output() is only valid until its next run(), which the worker may begin right below.
    if (textures_dirty_) update_textures();
    // A stored result read for this step: shown, or (none stored) the step measures.
    if (const auto read = stored_load_.poll(cache_)) {
        if (*read) show_cached_run(**read);
        else run_on_step_ = true;
    }
    if (host_.jobs->busy()) return;
    if (run_on_step_) {
        run_on_step_ = false;
        start_run(false);
    } else if (live_) {
        // Live mode starts with a full run so the limits exist, then continues with short runs.
        start_run(last_full_run_ != nullptr);
    }
}

// [SECTION] input images

bool ActivationView::try_load_image(const std::string& path) {
    try {
        core::Tensor t = core::load_image_as_feature_map(path);
        loaded_image_ = path;
        loaded_image_shape_ = t.shape_string();
        host_.info = "loaded " + path + " " + loaded_image_shape_;
        host_.error.clear();
        return true;
    } catch (const std::exception& e) {
        // The previous input stays in use.
        host_.error = e.what();
        return false;
    }
}

void ActivationView::drop_files(const std::vector<std::string>& paths) {
    if (paths.empty()) return;
    std::strncpy(path_buf_, paths.front().c_str(), sizeof path_buf_ - 1);
    if (try_load_image(paths.front())) {
        use_file_ = true;
        if (!host_.jobs->busy()) start_run(false);
    }
}

// [SECTION] export

ExportResult ActivationView::export_files(const ViewExport& v) {
    ExportInput in;
    in.out_dir = v.out_dir;
    in.lesson_id = v.lesson_id;
    in.lesson_title = v.lesson_title;
    in.run = last_run_.get();
    in.history = &history_;
    in.window_rgba = v.window_rgba;
    in.window_width = v.window_width;
    in.window_height = v.window_height;
    in.ui_scale = v.ui_scale;
    in.other = comparison();
    ExportResult result = write_export(in);
    if (result.ok) {
        // One warp's loads from the real kernel's cuda-sim trace (activation_coalescing.cpp).
        const std::string png = (std::filesystem::path(v.out_dir) / (v.lesson_id + "-coalescing.png")).string();
        std::string error;
        if (render_panel_png(v.ui_scale, 1100, png, error, [&](const Fonts& fonts, float) {
                draw_export_heading(fonts, v.lesson_title + ": one warp's loads, traced");
                draw_coalescing(ImGui::GetContentRegionAvail().x);
            })) {
            result.files.push_back(png);
            const std::string counted = "exported " + std::to_string(result.files.size() - 1) + " files";
            if (result.message.rfind(counted, 0) == 0)
                result.message.replace(0, counted.size(), "exported " + std::to_string(result.files.size()) + " files");
        } else {
            result.ok = false;
            result.message = error;
            return result;
        }
    }
    if (!result.ok || !comparison() || !last_run_) return result;
    result.message += compare_export_note(*comparison(), comparison_mismatch(*last_run_, *comparison()));
    return result;
}

void ActivationView::match_recording() {
    recorded_.reset();
    if (!last_run_) return;
    const core::ActivationRun& run = *last_run_;
    recorded_ = recorded_match<core::ImportedRun>("activation", core::activation_comparison, [&](const core::ImportedRun& r) {
        return comparison_mismatch(run, r).empty();
    });
    if (recorded_) {
        // Its GPU rows only: the recording computer's CPU is not the one a student compares with.
        std::erase_if(recorded_->backends, [](const core::ImportedBackend& b) { return !core::recorded_gpu_backend(b.backend); });
        if (!recorded_->backends.empty()) return;
        recorded_.reset();
    }
    recorded_ = estimate_for(run);
}

std::unique_ptr<core::ImportedRun> ActivationView::estimate_for(const core::ActivationRun& run) {
    // Only where our kernel did not run here: a measurement needs no estimate beside it.
    const core::BackendReport* kernel = nullptr;
    const core::BackendReport* simulated = nullptr;
    for (const auto& r : run.reports) {
        if (r.backend == "cuda-kernel") kernel = &r;
        if (r.kind == core::BackendKind::Simulated && r.ran) simulated = &r;
    }
    if (kernel && kernel->ran) return nullptr;
    // The data's bytes as the simulator counted them (every byte read and written once), else as the
    // op declares them: an elementwise kernel reads its input and writes its output.
    core::KernelWork work;
    const int64_t bytes = static_cast<int64_t>(run.input.bytes());
    work.data_bytes = simulated && simulated->unique_bytes > 0 ? simulated->unique_bytes : 2 * bytes;
    work.upload_bytes = work.download_bytes = bytes;
    const core::PublishedGpu& gpu = estimated_gpu();
    const core::GpuEstimate e = core::estimate_gpu_time(work, gpu);
    auto out = std::make_unique<core::ImportedRun>();
    core::mark_as_estimate(*out, gpu);
    out->op = run.op.label();
    out->elements = core::format_pow2(run.input.size());
    core::ImportedBackend b;
    b.backend = "cuda-kernel";
    b.ran = true;
    b.median_ns = b.min_ns = b.max_ns = e.total_ns();
    b.gbps = e.kernel_ns > 0 ? static_cast<double>(work.data_bytes) / static_cast<double>(e.kernel_ns) : 0.0;
    out->backends.push_back(b);
    return out;
}

// [SECTION] comparison with another machine

bool ActivationView::load_comparison(const std::string& path, std::string& error) {
    try {
        other_ = std::make_unique<core::ImportedRun>(core::load_compare_summary(path));
        host_.info = "comparing with " + other_machine_text(*other_);
        other_error_.clear();
        return true;
    } catch (const std::exception& e) {
        // The comparison already on screen, if any, stays.
        error = e.what();
        other_error_ = error;
        host_.error = error;
        return false;
    }
}

std::string ActivationView::export_description() const {
    return "Write <lesson>-timing.png, <lesson>-coalescing.png (one warp's loads traced on cuda-sim), "
           "<lesson>-window.png, <lesson>-samples.csv and <lesson>-summary.csv.";
}

std::string ActivationView::measurement_csv(const std::string& lesson_title) const {
    return last_run_ ? summary_csv(*last_run_, caption_lines(*last_run_, lesson_title), comparison()) : std::string();
}

// [SECTION] status bar

void ActivationView::draw_status() {
    if (output_tex_) {
        // Both display paths are timed; the bar names the one in use, its cost and, when CUDA
        // cannot write into GL textures here, why not.
        const DisplayStatus& ds = output_tex_->status();
        const bool interop = ds.path == DisplayPath::Interop;
        ImGui::TextColored(interop ? kOkColour : kAccentColour, "%s",
                           interop                              ? "display: CUDA-GL interop"
                           : ds.path == DisplayPath::HostUpload ? "display: host upload"
                                                                : "display: none");
        hover_tip(("Path of the last picture update: " + ds.reason +
                   "\n\nInterop copies the GPU's output straight into a GL texture; host upload writes the "
                   "floats into a pixel buffer that the GPU then copies into the texture.")
                      .c_str());
        ImGui::SameLine();
        std::string cost;
        if (interop) {
            cost = ds.upload_ns >= 0 ? "device copy " + core::format_duration(ds.upload_ns) : "device copy: -";
        } else if (ds.path == DisplayPath::HostUpload) {
            cost = "upload " + (ds.upload_ns >= 0 ? core::format_duration(ds.upload_ns) + " GPU" : std::string("..."));
            if (ds.host_copy_ns >= 0) cost += " + " + core::format_duration(ds.host_copy_ns) + " host copy";
            if (ds.downsample > 1) cost += ", shown at 1/" + std::to_string(ds.downsample) + " size";
        }
        if (!cost.empty()) ImGui::Text("%s", cost.c_str());
        hover_tip(
            "Measured on the last display update: GPU time from GL timestamp queries (interop: CUDA "
            "events), host copy from the CPU clock.");
        if (!ds.interop_ok && !ds.interop_reason.empty()) {
            std::string why = ds.interop_reason;
            const std::string prefix = "host upload: ";
            if (why.rfind(prefix, 0) == 0) why.erase(0, prefix.size());
            ImGui::SameLine(0, ImGui::GetFontSize() * 1.5f);
            // Without a GPU the reason is the machine's (said in plain words); the full text is the tip.
            const std::string plain = core::plain_gpu_reason(why);
            if (plain.empty()) {
                text_fitted(kMutedColour, "interop not possible: " + why);
            } else {
                text_fitted(kMutedColour, "interop not possible: " + plain);
                hover_tip(ds.interop_reason.c_str());
            }
        }
    } else {
        ImGui::TextColored(kMutedColour, "display: nothing shown yet");
    }
}

}  // namespace gpulab::app
