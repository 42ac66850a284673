// The latency view's state changes: steps, the measurement job (sweep, then the GPU fixed-cost
// probes, all on the worker), the predict-prompt answer and the export. See latency_view.h; the
// panels are drawn in app/views/latency/latency_*.cpp.
#include "latency_view.h"
#include "latency_archive.h"

#include <algorithm>
#include <ctime>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "views/stored_results.h"
#include "views/compare_view.h"
#include "measure/format.h"
#include "widgets/ui_helpers.h"

namespace gpulab::app {

namespace {

constexpr int kMinExp = 0, kMaxExp = 30;

LatencyView::Panel panel_from(const std::string& name, LatencyView::Panel fallback) {
    if (name == "sweep") return LatencyView::Panel::Sweep;
    if (name == "breakdown") return LatencyView::Panel::Breakdown;
    // The launch-cost tables sit on the one-task panel, beside the two numbers they explain.
    if (name == "one-task" || name == "launch") return LatencyView::Panel::OneTask;
    if (name == "analogy") return LatencyView::Panel::Analogy;
    return fallback;
}

bool contains(const std::string& text, const char* word) {
    std::string lower = text;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
    return lower.find(word) != std::string::npos;
}

}  // namespace

LatencyView::LatencyView(ViewHost& host) : host_(host) {
    back_with_stored_results<const LatencyMeasurement>(cache_, "latency", 1,
                                                       [](const LatencyMeasurement&) { return sizeof(LatencyMeasurement); });
}

// [SECTION] steps

void LatencyView::enter_step(const core::LessonStep& step) {
    const auto& p = step.params;
    if (auto a = core::parse_activation(
            core::param_string(p, "activation", std::string(core::activation_name(activation_)))))
        activation_ = *a;
    min_exp_ = static_cast<int>(std::clamp<int64_t>(core::param_int(p, "min_exp", min_exp_), kMinExp, kMaxExp));
    max_exp_ = static_cast<int>(std::clamp<int64_t>(core::param_int(p, "max_exp", max_exp_), min_exp_, kMaxExp));
    breakdown_exp_ =
        static_cast<int>(std::clamp<int64_t>(core::param_int(p, "breakdown_exp", breakdown_exp_), kMinExp, kMaxExp));
    transfers_ = core::param_bool(p, "transfers", transfers_);
    panel_ = panel_from(core::param_string(p, "panel", ""), panel_);
    select_panel_ = true;
    predict_ = step.predict;
    pick_ = -1;
    reveal_now_ = false;
    // Results stay while the sweep's parameters stay: a step asks for a sweep only when the one on
    // screen does not match. Panels that show measured numbers measure when nothing is measured.
    const bool needs_numbers = step.action == "sweep" || panel_ != Panel::Sweep;
    if (result_matches_config()) return;
    if (const auto hit = cache_.find(config_key(sweep_config(false)))) {  // swept earlier in this session
        result_ = hit->result;
        host_.show_cached(hit->measured_unix_s, hit->origin);
        return;
    }
    result_.reset();  // never another step's sweep under this heading
    if (needs_numbers) sweep_on_step_ = true;
}

std::string LatencyView::config_key(const core::SweepConfig& c) {
    return std::string(core::activation_name(c.activation)) + " 2^" + std::to_string(c.min_exp) + "..2^" +
           std::to_string(c.max_exp);
}

// [SECTION] runs

core::SweepConfig LatencyView::sweep_config(bool quick) const {
    core::SweepConfig c;
    c.activation = activation_;
    c.min_exp = min_exp_;
    c.max_exp = max_exp_;
    // 40 ms per backend and size keeps a 2^4..2^24 sweep near two seconds on two cores (issue 25)
    // while every point still gets at least 10 samples (3 above 2^20, where each call is long).
    c.time_per_point_ns = 40'000'000;
    if (quick) {
        c.min_exp = 4;
        c.max_exp = 16;
        c.time_per_point_ns = 10'000'000;
        c.min_samples_small = 5;
        c.min_samples_large = 3;
    }
    return c;
}

bool LatencyView::result_matches_config() const {
    if (!result_) return false;
    const core::SweepConfig& c = result_->config;
    return c.activation == activation_ && c.min_exp == min_exp_ && c.max_exp == max_exp_;
}

namespace {

// The whole job, on the worker: the sweep takes 95 % of the bar, the fixed-cost probes the rest.
std::shared_ptr<const LatencyMeasurement> measure(const core::SweepConfig& config,
                                                  const std::vector<core::Backend*>& backends, bool quick,
                                                  const core::ProgressFn& progress) {
    auto m = std::make_shared<LatencyMeasurement>();
    m->config = config;
    core::ProgressFn sweep_progress;
    if (progress) sweep_progress = [&](float f, std::string_view stage) { return progress(0.95f * f, stage); };
    m->sweep = core::run_latency_sweep(config, backends, sweep_progress);
    if (!m->sweep.ok || m->sweep.error == "cancelled") return m;
    if (progress && !progress(0.95f, "GPU fixed costs: launch, copies, cold start")) {
        m->sweep.ok = false;
        m->sweep.error = "cancelled";
        return m;
    }
    m->cold = gpu::cold_start();
    m->launch = gpu::measure_launch_costs(32, quick ? 10 : 50);
    m->copy = gpu::measure_copy_bandwidth(std::size_t{quick ? 16u : 64u} << 20, quick ? 3 : 10);
    return m;
}

}  // namespace

bool LatencyView::start_sweep() {
    const core::SweepConfig config = sweep_config(false);
    const std::vector<core::Backend*> backends = host_.backends;
    const bool started = host_.submit("size sweep", [this, config, backends](const core::ProgressFn& progress) {
        auto m = measure(config, backends, false, progress);
        return std::function<void()>([this, m] {
            running_config_.reset();
            finish(m);
        });
    });
    if (started) running_config_ = config;
    return started;
}

bool LatencyView::still_wants_running_job() const {
    // The predict step and the sweep step ask for the same sizes: stepping from one to the other
    // keeps the sweep that is already half done.
    if (!running_config_ || !host_.jobs->busy()) return false;
    const core::SweepConfig c = sweep_config(false);
    return sweep_on_step_ && c.activation == running_config_->activation && c.min_exp == running_config_->min_exp &&
           c.max_exp == running_config_->max_exp;
}

void LatencyView::show_overview_panel() {
    // The exported window shows the sweep, whichever panel the first step puts in front.
    panel_ = Panel::Sweep;
    select_panel_ = true;
}

void LatencyView::request_run() {
    if (host_.refuse_if_busy()) return;
    start_sweep();
}

void LatencyView::run_blocking(bool quick) {
    sweep_on_step_ = false;
    if (quick) {
        const core::SweepConfig q = sweep_config(true);
        min_exp_ = q.min_exp;
        max_exp_ = q.max_exp;
    }
    finish(measure(sweep_config(quick), host_.backends, quick, {}));
}

void LatencyView::finish(std::shared_ptr<const LatencyMeasurement> m) {
    if (!m->sweep.ok || m->sweep.plan.sizes.empty()) {
        // The previous result stays on screen.
        if (m->sweep.error == "cancelled")
            host_.info = result_ ? "sweep cancelled; the plots show the previous sweep" : "sweep cancelled";
        else
            host_.error = "sweep failed: " + (m->sweep.error.empty() ? m->sweep.plan.capped : m->sweep.error);
        return;
    }
    result_ = std::move(m);
    if (result_->sweep.error.empty())
        cache_.put(config_key(result_->config), result_, sizeof(LatencyMeasurement), std::time(nullptr));
    else
        host_.info = "sweep stopped early: " + result_->sweep.plan.capped;
}

void LatencyView::update(float dt) {
    anim_time_ += dt;
    if (host_.jobs->busy() || !sweep_on_step_) return;
    sweep_on_step_ = false;
    if (!result_matches_config()) start_sweep();
}

std::optional<std::size_t> LatencyView::size_index_near(int exp) const {
    if (!result_ || result_->sweep.plan.sizes.empty()) return std::nullopt;
    const auto& sizes = result_->sweep.plan.sizes;
    std::size_t best = 0;
    for (std::size_t i = 0; i < sizes.size(); ++i)
        if (std::abs(std::log2(static_cast<double>(sizes[i])) - exp) <
            std::abs(std::log2(static_cast<double>(sizes[best])) - exp))
            best = i;
    return best;
}

// [SECTION] predict

bool LatencyView::gpu_hidden() const {
    return predict_ && predict_->reveal.rfind("faster-at:", 0) == 0 && pick_ < 0 && !reveal_now_;
}

const core::SweepResult& LatencyView::shown_sweep() {
    if (!gpu_hidden()) return result_->sweep;
    if (hidden_copy_of_ != result_) {
        hidden_copy_ = without_gpu_runs(result_->sweep);
        hidden_copy_of_ = result_;
    }
    return hidden_copy_;
}

int classify_choice(const std::string& choice) {
    if (contains(choice, "same")) return 2;
    if (contains(choice, "gpu")) return 1;
    if (contains(choice, "cpu")) return 0;
    return -1;
}

PredictAnswer answer_prompt(const std::string& reveal, const core::SweepResult& sweep, const core::ImportedSweep* other) {
    PredictAnswer a;
    const std::string prefix = "faster-at:";
    if (reveal.rfind(prefix, 0) != 0) {
        a.text = "this prompt's answer ('" + reveal + "') is not one the latency view knows";
        return a;
    }
    char* end = nullptr;
    const double n = std::strtod(reveal.c_str() + prefix.size(), &end);
    if (!(n > 0) || (end && *end)) {
        a.text = "'" + reveal + "' does not name a size";
        return a;
    }
    if (sweep.plan.sizes.empty()) {
        a.text = "nothing measured yet";
        return a;
    }
    std::size_t i = 0;
    for (std::size_t k = 0; k < sweep.plan.sizes.size(); ++k)
        if (std::fabs(std::log2(static_cast<double>(sweep.plan.sizes[k])) - std::log2(n)) <
            std::fabs(std::log2(static_cast<double>(sweep.plan.sizes[i])) - std::log2(n)))
            i = k;
    const int64_t size = sweep.plan.sizes[i];
    const std::string at = " at " + core::format_pow2(size) + " = " + core::format_count(size) + " elements";
    // The fastest CPU backend against the first GPU backend that ran there, copies included.
    std::string cpu_name, gpu_name;
    int64_t cpu_ns = 0, gpu_ns = 0;
    for (std::size_t b = 0; b < sweep.backends.size(); ++b) {
        const core::SweepCell& c = sweep.cells[b][i];
        if (!c.ran) continue;
        if (sweep.kinds[b] == core::BackendKind::Cpu && (cpu_name.empty() || c.total.median_ns < cpu_ns)) {
            cpu_name = sweep.backends[b];
            cpu_ns = c.total.median_ns;
        } else if (sweep.kinds[b] == core::BackendKind::Gpu && gpu_name.empty()) {
            gpu_name = sweep.backends[b];
            gpu_ns = c.total.median_ns;
        }
    }
    if (cpu_name.empty()) {
        a.text = "no CPU backend ran" + at;
        return a;
    }
    a.ok = true;
    std::string gpu_words = gpu_name + " with copies ";
    if (gpu_name.empty() && other && !other->recorded_source.empty() && !other->series.empty()) {
        // No GPU here: the recording's (or the model's) time at the same size, said as such.
        const core::ImportedSweepSeries& s = other->series.front();
        for (std::size_t k = 0; k < s.elements.size() && k < s.median_ns.size(); ++k)
            if (s.elements[k] == size && s.median_ns[k] > 0) {
                gpu_name = s.backend;
                gpu_ns = s.median_ns[k];
                a.gpu_from = other_name(*other);
                gpu_words = other->estimate ? s.backend + " on an " + other->gpu + " estimated (a model), copies included, "
                                            : s.backend + " recorded on " + other->gpu + " (another computer), copies included, ";
            }
    }
    if (gpu_name.empty()) {
        a.text = "The CPU (" + cpu_name + ") takes " + core::format_duration(cpu_ns) + at +
                 ". The GPU side cannot be measured on this machine: " + gpu_missing_sentence(sweep) + ".";
        return a;
    }
    a.gpu_measured = a.gpu_from.empty();
    const double ratio = static_cast<double>(std::max(cpu_ns, gpu_ns)) /
                         static_cast<double>(std::max<int64_t>(std::min(cpu_ns, gpu_ns), 1));
    a.winner = ratio < 1.25 ? 2 : cpu_ns < gpu_ns ? 0 : 1;
    const std::string times = cpu_name + " " + core::format_duration(cpu_ns) + (a.gpu_measured ? "" : " here") + ", " +
                              gpu_words + core::format_duration(gpu_ns) + at;
    if (a.winner == 2)
        a.text = "About the same (within 25 %): " + times + ".";
    else
        a.text = std::string(a.winner == 0 ? "The CPU" : "The GPU") + " is faster, by " + core::format_ratio(ratio) +
                 ": " + times + ".";
    return a;
}

// [SECTION] export

ExportResult LatencyView::export_files(const ViewExport& in) {
    ExportResult result;
    if (!result_) {
        result.message = "nothing to export yet: run the sweep first (R)";
        return result;
    }
    ExportWriter out(in.out_dir, in.lesson_id);
    if (!out.ok()) return out.failed();
    const core::SweepResult& sweep = result_->sweep;
    std::string error;

    std::vector<std::string> caption = sweep_caption_lines(sweep, in.lesson_title);
    if (!out.text("-sweep.csv", sweep_csv_with_recording(sweep, caption))) return out.failed();

    const std::filesystem::path png = out.path("-sweep.png");
    const std::string mismatch = comparison_mismatch();
    if (const core::ImportedSweep* other = comparison()) {
        for (std::string& line : compare_caption_lines(
                 *other, other_name(*other) + "'s medians: thin lines with hollow dots, in each backend's colour", mismatch))
            caption.push_back(std::move(line));
        if (const std::string x = recorded_crossover_text(); !x.empty()) caption.push_back(x);
    }
    // The export shows the whole answer, prompt or not: it is read after class.
    const SweepPlotOptions opt{transfers_, -1, comparison(), ""};
    const std::optional<std::size_t> bi = size_index_near(breakdown_exp_);
    const gpu::LaunchCosts launch = result_->launch;
    const bool ok = render_panel_png(in.ui_scale, 1100, png.string(), error, [&](const Fonts& fonts, float scale) {
        draw_export_heading(fonts, in.lesson_title + ": time and throughput against size");
        draw_caption_block(caption);
        ImGui::Spacing();
        const float w = ImGui::GetContentRegionAvail().x;
        draw_sweep_time_plot(sweep, opt, {w, 420.0f * scale});
        ImGui::Spacing();
        draw_sweep_throughput_plot(sweep, opt, {w, 300.0f * scale});
        if (bi) {
            ImGui::Spacing();
            ImGui::Text("Where the time goes at %s elements (medians per phase):",
                        core::format_pow2(sweep.plan.sizes[*bi]).c_str());
            draw_phase_breakdown(sweep, *bi, launch, w);
        }
    });
    if (!out.picture(png, ok, error)) return out.failed();
    result = out.finish(in.window_rgba, in.window_width, in.window_height);
    if (result.ok && comparison()) result.message += compare_export_note(*comparison(), mismatch);
    return result;
}

std::string LatencyView::export_description() const {
    return "Write <lesson>-sweep.png (time and throughput against size, the phase breakdown, a caption naming "
           "this machine), <lesson>-window.png and <lesson>-sweep.csv (one row per size and backend, with the "
           "phase columns).";
}

std::string LatencyView::measurement_csv(const std::string& lesson_title) const {
    return result_ ? sweep_csv_with_recording(result_->sweep, sweep_caption_lines(result_->sweep, lesson_title)) : std::string();
}

}  // namespace gpulab::app
