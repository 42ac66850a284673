// The SIMD-vs-MIMD view's state changes: steps, the measurement job (SIMD on one core, the MIMD
// timeline, then the divergence kernel per pattern, all on the worker), the predict-prompt answer,
// the CSV and the export. See simd_mimd_view.h; the panels are drawn in app/views/simd_mimd/simd_*.cpp.
// Verified by the gui.simd_* tests (tests/simd_gui_tests.cmake) and the screenshots.
#include "simd_mimd_view.h"
#include "simd_mimd_archive.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "views/stored_results.h"
#include "runtime/cancel.h"
#include "views/compare_view.h"
#include "measure/format.h"
#include "gpu_backends.h"
#include "gpu_model/gpu_model.h"
#include "measure/machine_info.h"
#include "sim/sim_kernels.h"
#include "widgets/ui_helpers.h"

namespace gpulab::app {

namespace {

constexpr int kTraceWarps = 4;      // warps the kernel records and the view can show
constexpr int kTheoryWarps = 1024;  // warps averaged for the theoretical factor (Random varies)
constexpr int64_t kMinElements = int64_t{1} << 10;
constexpr int64_t kMaxElements = int64_t{1} << 28;

SimdMimdView::Panel panel_from(const std::string& name, SimdMimdView::Panel fallback, bool& focus_mimd) {
    if (name == "flynn") return SimdMimdView::Panel::Flynn;
    if (name == "cpu-simd" || name == "cpu-mimd") {
        focus_mimd = name == "cpu-mimd";
        return SimdMimdView::Panel::Cpu;
    }
    if (name == "warp") return SimdMimdView::Panel::Warp;
    return fallback;
}

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
    return s;
}

int mimd_threads() { return std::clamp(core::host_machine().hardware_threads, 2, 8); }

// The whole job, on the worker: SIMD 0..45 %, MIMD 45..75 %, the GPU patterns the rest.
std::shared_ptr<const SimdMimdMeasurement> measure(core::Activation activation, int64_t elements, bool quick,
                                                   const core::ProgressFn& progress, bool& cancelled) {
    auto m = std::make_shared<SimdMimdMeasurement>();
    m->activation = activation;
    m->elements = elements;
    m->started_unix_s = static_cast<int64_t>(std::time(nullptr));
    cancelled = false;
    auto step = [&](float f, const std::string& stage) {
        // A stop can also come from inside a loop with no progress callback (core/runtime/cancel.h).
        if ((progress && !progress(f, stage)) || (progress && core::cancel_requested())) cancelled = true;
        return !cancelled;
    };

    if (!step(0.0f, "SIMD: scalar vs vector on one core")) return m;
    core::MeasureConfig config;
    config.measure_limits = false;
    if (quick) {
        config.warmup = 1;
        config.min_samples = 3;
        config.max_samples = 10;
        config.time_budget_ns = 150'000'000;
    } else {
        // About 2 s for a step's run at 2^24 floats on a 2-core laptop (issue 25): 10 interleaved
        // pairs at least, more while 0.8 s lasts.
        config.min_samples = 10;
        config.max_samples = 60;
        config.time_budget_ns = 800'000'000;
    }
    m->simd = core::measure_simd_vs_scalar(activation, elements, config);

    const int threads = mimd_threads();
    if (!step(0.45f, "MIMD: " + std::to_string(threads) + " threads, different tasks")) return m;
    m->mimd = core::run_mimd_demo(threads, quick ? 1 : 2);

    for (std::size_t i = 0; i < core::kAllPatterns.size(); ++i) {
        PatternCost& c = m->costs[i];
        c.pattern = core::kAllPatterns[i];
        c.theoretical = core::theoretical_factor(c.pattern, kTheoryWarps);
    }
    // The uniform run first: every factor is relative to it, and when it fails (no GPU) the
    // others would fail for the same reason, so its reason stands for all of them.
    // Sized from the device so that quick runs give the same factors as full ones
    // (core::divergence_elements): fill every SM, then one uniform run to size the work per path.
    const gpu::GpuProbe& g = gpu::probe();
    const int64_t gpu_elements =
        core::divergence_elements(g.device_ok ? g.sm_count : 0,
                                  g.device_ok ? core::max_threads_per_sm(g.cc_major, g.cc_minor) : 0,
                                  quick ? int64_t{1} << 20 : int64_t{1} << 22);
    int iterations = quick ? 32 : 128;
    const int samples = quick ? 3 : 10;
    if (g.device_ok) {
        const gpu::DivergenceRun first = gpu::run_divergence(simt::Pattern::Uniform, gpu_elements, iterations, 1, 0);
        if (first.ok) iterations = core::divergence_iterations(iterations, first.kernel.median_ns);
    }
    for (std::size_t i = 0; i < core::kAllPatterns.size(); ++i) {
        PatternCost& c = m->costs[i];
        const float f = 0.75f + 0.25f * static_cast<float>(i) / static_cast<float>(core::kAllPatterns.size());
        if (!step(f, "GPU divergence kernel: " + std::string(core::pattern_name(c.pattern)))) return m;
        if (i > 0 && !m->costs[0].measured) {
            c.why = m->costs[0].why;
            continue;
        }
        const gpu::DivergenceRun run = gpu::run_divergence(c.pattern, gpu_elements, iterations, samples, kTraceWarps);
        if (!run.ok || run.kernel.samples == 0) {
            c.why = run.error.empty() ? "the kernel produced no timings" : run.error;
            continue;
        }
        c.measured = true;
        c.kernel_ns = run.kernel.median_ns;
        for (const gpu::RecordedWarp& w : run.warps) {
            WarpReplay r;
            r.warp = w.warp;
            for (const gpu::RecordedPath& p : w.paths) {
                r.steps.push_back({p.path, p.active_mask});
                r.start_clock.push_back(p.start_clock);
                r.end_clock.push_back(p.end_clock);
            }
            m->recorded[i].push_back(std::move(r));
        }
    }
    const int64_t uniform_ns = m->costs[0].measured ? m->costs[0].kernel_ns : 0;
    for (PatternCost& c : m->costs) {
        if (c.measured && uniform_ns > 0) c.measured_factor = static_cast<double>(c.kernel_ns) / uniform_ns;
    }
    m->gpu_ran = m->costs[0].measured;
    if (!m->gpu_ran) {
        const gpu::GpuProbe& g = gpu::probe();
        m->gpu_error = !m->costs[0].why.empty() ? m->costs[0].why : g.reason;
        const std::string plain = core::plain_gpu_reason(m->gpu_error);
        m->gpu_reason = plain.empty() ? m->gpu_error : plain;
        m->sim_refusal = sim::divergence_kernel_refusal();
    }
    step(1.0f, "done");
    return m;
}

}  // namespace

SimdMimdView::SimdMimdView(ViewHost& host) : host_(host) {
    back_with_stored_results<const SimdMimdMeasurement>(cache_, "simd-mimd", 1,
                                                        [](const SimdMimdMeasurement&) { return sizeof(SimdMimdMeasurement); });
}

// [SECTION] steps

void SimdMimdView::enter_step(const core::LessonStep& step) {
    const auto& p = step.params;
    if (auto a = core::parse_activation(
            core::param_string(p, "activation", std::string(core::activation_name(activation_)))))
        activation_ = *a;
    elements_ = std::clamp<int64_t>(core::param_int(p, "elements", elements_), kMinElements, kMaxElements);
    if (auto pat = core::parse_pattern(core::param_string(p, "pattern", std::string(core::pattern_name(pattern_)))))
        pattern_ = *pat;
    panel_ = panel_from(core::param_string(p, "panel", ""), panel_, focus_mimd_);
    select_panel_ = true;
    predict_ = step.predict;
    pick_ = -1;
    reveal_now_ = false;
    anim_time_ = 0.0f;
    // Every tab shows measured numbers (even Flynn's grid draws the vector width that ran and the
    // MIMD task names), so a step measures whenever the result on screen does not match, unless
    // this session has measured these settings already: then that result shows at once.
    run_on_step_ = false;
    if (const auto hit = cache_.find(config_key(activation_, elements_))) {
        result_ = hit->result;
        host_.show_cached(hit->measured_unix_s, hit->origin);
        return;
    }
    if (!result_matches_config()) result_.reset();  // never another step's numbers under this heading
    if (step.action == "run" || !result_) run_on_step_ = true;
}

std::string SimdMimdView::config_key(core::Activation activation, int64_t elements) {
    return std::string(core::activation_name(activation)) + " x " + std::to_string(elements);
}

// [SECTION] runs

bool SimdMimdView::result_matches_config() const {
    return result_ && result_->activation == activation_ && result_->elements == elements_;
}

bool SimdMimdView::start_run() {
    const core::Activation activation = activation_;
    const int64_t elements = elements_;
    return host_.submit("SIMD vs MIMD", [this, activation, elements](const core::ProgressFn& progress) {
        bool cancelled = false;
        auto m = measure(activation, elements, false, progress, cancelled);
        return std::function<void()>([this, m, cancelled] {
            if (cancelled)
                host_.info = result_ ? "measurement cancelled; the panels show the previous result"
                                     : "measurement cancelled";
            else
                finish(m);
        });
    });
}

void SimdMimdView::show_overview_panel() {
    // The exported window shows the warp view: the picture the lesson builds up to.
    panel_ = Panel::Warp;
    select_panel_ = true;
}

void SimdMimdView::request_run() {
    if (host_.refuse_if_busy()) return;
    start_run();
}

void SimdMimdView::run_blocking(bool quick) {
    run_on_step_ = false;
    bool cancelled = false;
    finish(measure(activation_, elements_, quick, {}, cancelled));
}

void SimdMimdView::finish(std::shared_ptr<const SimdMimdMeasurement> m) {
    // A failed half is shown with its reason in its panel; only a result with neither half is refused.
    if (!m->simd.ok && !m->mimd.ok) {
        host_.error = "measurement failed: " + m->simd.error + "; " + m->mimd.error;
        return;
    }
    result_ = std::move(m);
    cache_.put(config_key(result_->activation, result_->elements), result_, sizeof(SimdMimdMeasurement), std::time(nullptr));
    host_.error.clear();
}

void SimdMimdView::update(float dt) {
    anim_time_ += dt * replay_speed_;
    if (host_.jobs->busy() || !run_on_step_) return;
    run_on_step_ = false;
    start_run();
}

// [SECTION] predict

double choice_factor(const std::string& choice) {
    const std::string c = lower(choice);
    if (c.find("same") != std::string::npos || c.find("no slower") != std::string::npos) return 1.0;
    for (std::size_t i = 0; i < c.size(); ++i) {
        if (!std::isdigit(static_cast<unsigned char>(c[i]))) continue;
        char* end = nullptr;
        const double v = std::strtod(c.c_str() + i, &end);
        if (v > 0) return v;
        break;
    }
    return 0.0;
}

DivergenceAnswer answer_divergence(const std::string& reveal, const std::vector<std::string>& choices,
                                   const SimdMimdMeasurement& m, const core::ImportedSimd* recorded) {
    DivergenceAnswer a;
    const std::string prefix = "divergence:";
    if (reveal.rfind(prefix, 0) != 0) {
        a.text = "this prompt's answer ('" + reveal + "') is not one the SIMD-vs-MIMD view knows";
        return a;
    }
    const std::optional<simt::Pattern> p = core::parse_pattern(reveal.substr(prefix.size()));
    if (!p) {
        a.text = "'" + reveal.substr(prefix.size()) + "' is not a branch pattern";
        return a;
    }
    const PatternCost& c = m.costs[static_cast<std::size_t>(*p)];
    const std::string label(core::pattern_label(*p));
    a.ok = true;
    a.measured = c.measured && c.measured_factor > 0;
    a.factor = a.measured ? c.measured_factor : c.theoretical;
    const core::ImportedPattern* theirs =
        recorded && !recorded->recorded_source.empty() ? recorded->find(core::pattern_name(*p)) : nullptr;
    if (!a.measured && theirs && theirs->measured && theirs->measured_factor > 0) {
        a.factor = theirs->measured_factor;
        a.recorded_source = recorded->recorded_source;
    }
    double best = 1e300;
    for (std::size_t k = 0; k < choices.size(); ++k) {
        const double f = choice_factor(choices[k]);
        if (f <= 0) continue;
        const double d = std::fabs(std::log(f) - std::log(std::max(a.factor, 1e-9)));
        if (d < best) {
            best = d;
            a.best_choice = static_cast<int>(k);
        }
    }
    if (a.measured) {
        a.text = "Measured on the GPU: " + label + " took " + core::format_duration(c.kernel_ns) + " against " +
                 core::format_duration(m.costs[0].kernel_ns) + " for the uniform kernel, " +
                 core::format_ratio(a.factor) + " slower (theory: " + core::format_ratio(c.theoretical) + ").";
    } else if (!a.recorded_source.empty()) {
        a.text = "Measured on another computer's GPU (" + a.recorded_source + "; not this computer): " + label + " ran " +
                 core::format_ratio(a.factor) + " slower than the uniform kernel (theory: " +
                 core::format_ratio(c.theoretical) + ").";
    } else {
        a.text = "Theoretical, not measured: a warp of " + label + " runs " + core::format_fixed(c.theoretical, 1) +
                 " paths one after another, so about " + core::format_ratio(a.factor) +
                 " the uniform time. No GPU measurement here: " + (c.why.empty() ? m.gpu_reason : c.why);
    }
    return a;
}

std::optional<simt::Pattern> SimdMimdView::hidden_pattern() const {
    if (!predict_ || pick_ >= 0 || reveal_now_) return std::nullopt;
    const std::string prefix = "divergence:";
    if (predict_->reveal.rfind(prefix, 0) != 0) return std::nullopt;
    return core::parse_pattern(predict_->reveal.substr(prefix.size()));
}

// [SECTION] replays

std::vector<WarpReplay> warp_replays(const SimdMimdMeasurement* m, simt::Pattern pattern, int warps) {
    std::vector<WarpReplay> out;
    if (m && m->gpu_ran) {
        const auto& rec = m->recorded[static_cast<std::size_t>(pattern)];
        for (int w = 0; w < warps && w < static_cast<int>(rec.size()); ++w)
            out.push_back(rec[static_cast<std::size_t>(w)]);
        if (!out.empty()) return out;
    }
    for (int w = 0; w < warps; ++w) {
        const core::WarpTrace t = core::emulate_warp(pattern, w);
        out.push_back({t.warp, t.steps, {}, {}});
    }
    return out;
}

// [SECTION] CSV and caption

std::vector<std::string> simd_caption_lines(const SimdMimdMeasurement& m, std::string_view lesson_title) {
    std::vector<std::string> lines = machine_caption_lines(lesson_title, m.started_unix_s);
    if (m.simd.ok)
        lines.push_back("SIMD: " + std::string(core::activation_label(m.activation)) + " over " +
                        core::format_count(m.elements) + " floats on one thread, " + m.simd.isa + " (" +
                        std::to_string(m.simd.lanes) + " floats per instruction), medians of " +
                        std::to_string(m.simd.scalar.samples) + " interleaved runs");
    if (m.mimd.ok)
        lines.push_back("MIMD: " + std::to_string(m.mimd.threads) + " threads, each a different task, " +
                        std::to_string(m.mimd.spans.size()) + " timed slices");
    if (m.gpu_ran)
        lines.push_back("Warp view: masks and clock64() stamps recorded by the divergence kernel");
    else if (!gpu::probe().device_ok)
        lines.push_back("Warp view: emulated on the CPU (no GPU, see above); GPU timings not measured");
    else
        lines.push_back("Warp view: emulated on the CPU; the kernel did not run: " + m.gpu_reason);
    return lines;
}

std::string simd_csv(const SimdMimdMeasurement& m, const std::vector<std::string>& caption,
                     const core::ImportedSimd* recorded) {
    std::ostringstream o;
    for (const auto& line : caption) o << "# " << line << "\n";
    o << "kind,name,value,detail\n";
    const core::SimdComparison& s = m.simd;
    if (s.ok) {
        o << "simd,isa," << core::csv_field(s.isa) << "," << s.lanes << " floats per instruction\n";
        o << "simd,activation," << core::activation_name(m.activation) << ",\n";
        o << "simd,elements," << s.elements << ",\n";
        o << "simd,scalar_median_ns," << s.scalar.median_ns << "," << s.scalar.samples << " samples\n";
        o << "simd,simd_median_ns," << s.simd.median_ns << "," << s.simd.samples << " samples\n";
        o << "simd,speedup," << core::format_fixed(s.speedup, 3) << ",scalar median / simd median\n";
        o << "simd,results_equal," << (s.results_equal ? "true" : "false") << ",\n";
    } else {
        o << "simd,error," << core::csv_field(s.error) << ",\n";
    }
    const core::MimdTimeline& t = m.mimd;
    if (t.ok) {
        o << "mimd,threads," << t.threads << ",\n";
        o << "mimd,wall_ns," << t.wall_ns << ",all threads at once\n";
        o << "mimd,sequential_ns," << t.sequential_ns << ",the same tasks one after another\n";
        o << "\nkind,thread,cpu,task,start_ns,end_ns\n";
        for (const core::TimelineSpan& sp : t.spans)
            o << "span," << sp.thread << "," << sp.cpu << "," << core::csv_field(sp.task) << "," << sp.start_ns << ","
              << sp.end_ns << "\n";
    } else {
        o << "mimd,error," << core::csv_field(t.error) << ",\n";
    }
    o << "\nkind,pattern,theoretical_factor,measured_factor,kernel_median_ns,note\n";
    for (const PatternCost& c : m.costs) {
        o << "pattern," << core::pattern_name(c.pattern) << "," << core::format_fixed(c.theoretical, 3) << ",";
        if (c.measured)
            o << core::format_fixed(c.measured_factor, 3) << "," << c.kernel_ns << ",measured\n";
        else
            o << "not measured,," << core::csv_field("not measured: " + c.why) << "\n";
    }
    std::string out = with_source_column(o.str(), shown_result_source());
    // A recording's measured patterns after this machine's, in the pattern table (the last one).
    if (recorded && !recorded->recorded_source.empty())
        for (const core::ImportedPattern& p : recorded->patterns)
            if (p.measured)
                out += "pattern," + core::csv_field(p.pattern) + "," + core::format_fixed(p.theoretical, 3) + "," +
                       core::format_fixed(p.measured_factor, 3) + ",,measured," + core::csv_field(recorded->recorded_source) +
                       "\n";
    return out;
}

// [SECTION] export

ExportResult SimdMimdView::export_files(const ViewExport& in) {
    ExportResult result;
    if (!result_) {
        result.message = "nothing to export yet: run the measurement first (R)";
        return result;
    }
    ExportWriter out(in.out_dir, in.lesson_id);
    if (!out.ok()) return out.failed();
    const SimdMimdMeasurement& m = *result_;
    std::vector<std::string> caption = simd_caption_lines(m, in.lesson_title);
    std::string error;

    if (!out.text("-simd.csv", simd_csv(m, caption, comparison()))) return out.failed();
    for (std::string& line : comparison_caption()) caption.push_back(std::move(line));

    const std::filesystem::path png = out.path("-simd.png");
    const simt::Pattern pattern = pattern_;
    const bool ok = render_panel_png(in.ui_scale, 1200, png.string(), error, [&](const Fonts& fonts, float scale) {
        draw_export_heading(fonts, in.lesson_title + ": one instruction on many data, many instruction streams, warps of 32 threads");
        draw_caption_block(caption);
        const float w = ImGui::GetContentRegionAvail().x;
        ImGui::Spacing();
        draw_export_heading(fonts, "SIMD on one core: the same loop, scalar and vectorised");
        if (m.simd.ok)
            draw_simd_bars(m.simd, w);
        else
            ImGui::TextColored(kErrorColour, "not measured: %s", m.simd.error.c_str());
        ImGui::Spacing();
        draw_export_heading(fonts, "MIMD: " + std::to_string(m.mimd.threads) + " threads, each its own instruction stream");
        if (m.mimd.ok)
            draw_mimd_timeline(m.mimd, {w, (60.0f + 34.0f * static_cast<float>(m.mimd.threads)) * scale}, -1.0f);
        else
            ImGui::TextColored(kErrorColour, "not measured: %s", m.mimd.error.c_str());
        ImGui::Spacing();
        draw_export_heading(fonts, "One warp, " + std::string(core::pattern_label(pattern)) +
                (m.gpu_ran ? ": recorded on the GPU" : ": emulated on the CPU, no GPU measurement"));
        const std::vector<WarpReplay> warps = warp_replays(&m, pattern, kTraceWarps);
        int steps = 1;
        for (const auto& r : warps) steps = std::max(steps, static_cast<int>(r.steps.size()));
        draw_warp_grid(warps, 1e9f, {w, std::min(40.0f + 18.0f * static_cast<float>(steps), 460.0f) * scale});
        ImGui::Spacing();
        draw_export_heading(fonts, "Divergence cost per pattern");
        draw_cost_table(m, pattern);
        if (const core::ImportedSimd* other = comparison()) {
            ImGui::Spacing();
            draw_export_heading(fonts, "This machine vs the " + other_name(*other));
            draw_comparison(w, false);
        }
    });
    if (!out.picture(png, ok, error)) return out.failed();
    result = out.finish(in.window_rgba, in.window_width, in.window_height);
    if (result.ok && comparison()) result.message += compare_export_note(*comparison(), comparison_mismatch());
    return result;
}

std::string SimdMimdView::export_description() const {
    return "Write <lesson>-simd.png (scalar vs vector bars, the MIMD timeline, the warp view and the divergence "
           "costs, with a caption naming this machine), <lesson>-window.png and <lesson>-simd.csv (the ISA, "
           "medians and speed-up, every timeline span, and per pattern the theoretical and measured factor).";
}

// The two figures the lesson rests on: the vector instructions' gain on one thread, and whether the
// different tasks finished sooner at once than one after another.
std::string SimdMimdView::result_headline() const {
    if (!result_) return {};
    std::string line;
    if (result_->simd.ok)
        line = result_->simd.isa + " " + core::format_fixed(result_->simd.speedup, 1) + "x the scalar loop";
    const core::MimdTimeline& m = result_->mimd;
    if (m.ok && m.wall_ns > 0) {
        if (!line.empty()) line += ", ";
        line += "at once " + core::format_duration(m.wall_ns) + " against one after another " +
                core::format_duration(m.sequential_ns);
    }
    return line;
}

std::string SimdMimdView::measurement_csv(const std::string& lesson_title) const {
    return result_ ? simd_csv(*result_, simd_caption_lines(*result_, lesson_title), comparison()) : std::string();
}

}  // namespace gpulab::app
