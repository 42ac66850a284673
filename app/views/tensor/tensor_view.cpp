// The tensor-core view's state changes: steps, the job (lane data, kernel check, dot-product sweep,
// all on the worker), the predict answer, the CSV and the export. See tensor_view.h; the panels are
// drawn in the other files of app/views/tensor/.
// Verified by tests/tensor_gui_tests.cmake and the screenshots.
#include "tensor_view.h"
#include "tensor_archive.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <sstream>

#include "views/stored_results.h"
#include "libraries/cublas_gemm_precision.h"
#include "mma_gemm_rows.h"
#include "measure/format.h"
#include "ops/mixed_matmul.h"
#include "ops/pseudo_random.h"
#include "runtime/cancel.h"
#include "views/run_row.h"
#include "views/timing_plot.h"
#include "widgets/ui_helpers.h"

namespace gpulab::app {

const char* const kModelNote =
    "The CPU model is IEEE rounding (round to nearest even, one rounding per multiply-add), not a bit-exact "
    "model of a tensor core: NVIDIA does not document their internal rounding.";

namespace {

constexpr int kMinKExp = 8, kMaxKExp = 20;

TensorView::Panel panel_from(const std::string& name, TensorView::Panel fallback) {
    if (name == "fragments") return TensorView::Panel::Fragments;
    if (name == "formats") return TensorView::Panel::Formats;
    if (name == "dot") return TensorView::Panel::Dot;
    if (name == "gradients") return TensorView::Panel::Gradients;
    if (name == "master") return TensorView::Panel::Master;
    if (name == "training") return TensorView::Panel::Training;
    if (name == "speed") return TensorView::Panel::Speed;
    if (name == "ladder") return TensorView::Panel::Ladder;
    return fallback;
}

// A number as the student would write it: "0.1", "65,504", "1e-06", "inf", "NaN".
std::string number_text(double v) {
    if (std::isnan(v)) return "NaN";
    if (std::isinf(v)) return v < 0 ? "-infinity" : "infinity";
    // The shortest text that reads back as the same double: 0.1, not 0.10000000000000001; whole
    // numbers written out (70000, not 7e+04).
    char buf[64];
    if (v == std::floor(v) && std::fabs(v) < 1e15) {
        std::snprintf(buf, sizeof buf, "%.0f", v);
        return buf;
    }
    for (int digits = 1; digits <= 17; ++digits) {
        std::snprintf(buf, sizeof buf, "%.*g", digits, v);
        if (std::strtod(buf, nullptr) == v) break;
    }
    return buf;
}

KernelCheck check_kernel(kern::MmaInput in) {
    KernelCheck c;
    c.input = in;
    c.m = c.n = c.k = kCheckSide;
    const auto count = static_cast<std::size_t>(kCheckSide * kCheckSide);
    const std::vector<float> a = core::uniform_signed_floats(static_cast<int64_t>(count), 2024),
                             b = core::uniform_signed_floats(static_cast<int64_t>(count), 2025);
    std::vector<float> ours(count), ref(count);
    const sim::Result r = sim::run_mma_gemm(in, a.data(), b.data(), nullptr, ours.data(), c.m, c.n, c.k);
    if (!r.ok) {
        c.error = r.error;
        return c;
    }
    core::matmul_reduced(a.data(), b.data(), ref.data(), c.m, c.n, c.k,
                         {in == kern::MmaInput::Fp16 ? core::FpFormat::Fp16 : core::FpFormat::Bf16, core::FpFormat::Fp32});
    c.outputs_differing = 0;
    for (std::size_t i = 0; i < count; ++i) c.outputs_differing += std::memcmp(&ours[i], &ref[i], sizeof(float)) != 0;
    const kern::MmaGemmShape shape = kern::mma_gemm_padded(c.m, c.n, c.k);
    c.warps = shape.tiles();
    c.instructions = shape.tiles() * (shape.k / kern::kMmaK);
    c.sim_ns = r.stats.wall_ns;
    c.ok = true;
    return c;
}

}  // namespace

std::string number_text_of(double v) { return number_text(v); }

std::shared_ptr<const TensorMeasurement> measure_tensor(
    const core::DotSweepConfig& sweep, const std::function<bool(float, const std::string&)>& keep_going) {
    auto m = std::make_shared<TensorMeasurement>();
    m->started_unix_s = static_cast<int64_t>(std::time(nullptr));
    const auto go = [&](float f, const std::string& stage) {
        return (!keep_going || keep_going(f, stage)) && !core::cancel_requested();
    };
    if (!go(0.0f, "the simulated mma.sync: which lane holds what")) return nullptr;
    m->lanes[0] = sim::mma_lane_data(kern::MmaInput::Fp16);
    m->lanes[1] = sim::mma_lane_data(kern::MmaInput::Bf16);
    if (!go(0.1f, "the simulated tensor-core kernel against cpu-scalar")) return nullptr;
    m->checks[0] = check_kernel(kern::MmaInput::Fp16);
    m->checks[1] = check_kernel(kern::MmaInput::Bf16);
    if (!go(0.2f, "dot products in four formats")) return nullptr;
    m->sweep = core::run_dot_sweep(sweep, [&](float f) { return go(0.2f + 0.6f * f, "dot products in four formats"); });
    if (!m->sweep.ok && m->sweep.error == "cancelled") return nullptr;
    // One batch of the training lesson's CNN: its first 704 Fashion-MNIST pictures are read, ten
    // batches of SGD taken, and the eleventh batch's gradients kept for the gradients panel.
    if (!go(0.8f, "one batch of the training lesson's CNN: its gradients")) return nullptr;
    constexpr std::int64_t kBatch = 64;
    constexpr int kStepsBefore = 10;
    train::Dataset data;
    std::string no_data;
    try {
        data = train::load_dataset(train::kFashionMnistDir, kBatch * (kStepsBefore + 1));
    } catch (const std::exception&) {
        no_data = "Fashion-MNIST is not installed here: Debian's dataset-fashion-mnist package has it";
    }
    m->gradients = train::measure_batch_gradients(&data, no_data, kBatch, kStepsBefore, 1,
                                                  [&] { return go(0.9f, "one batch of the training lesson's CNN: its gradients"); });
    if (m->gradients.error == "cancelled") return nullptr;
    // FP32 against BF16 products of 512 x 512 matrices, ours and oneDNN's: a fraction of a second.
    if (!go(0.95f, "matrix products in FP32 and BF16 on this CPU")) return nullptr;
    core::MeasureConfig speed;
    speed.warmup = 1;
    speed.min_samples = 5;
    speed.max_samples = 20;
    speed.time_budget_ns = 60'000'000;
    m->speed = core::measure_gemm_speed(kSpeedSide, speed);
    if (core::cancel_requested()) return nullptr;
    // The same product through cuBLAS in FP32, TF32, FP16 and BF16; without a GPU four rows that
    // say why they did not run. On the worker like the rest of this job: its first call may wait for
    // the CUDA start-up (gpu::probe), which a frame must never do.
    if (!go(0.97f, "the same matrix products with cuBLAS on the GPU")) return nullptr;
    for (core::GemmSpeedRow& r : gpu::measure_cublas_gemm(kSpeedSide, kSpeedSide, kSpeedSide, speed))
        m->speed.rows.push_back(std::move(r));
    for (core::GemmSpeedRow& r : gpu::measure_mma_gemm_rows(kSpeedSide, kSpeedSide, kSpeedSide, speed))
        m->speed.rows.push_back(std::move(r));
    return m;
}

TensorView::TensorView(ViewHost& host) : host_(host) {
    // Payload format 4: the batch's gradients (2), the matrix products' speed (3), our AMX and mma.sync rows (4).
    back_with_stored_results<const TensorMeasurement>(cache_, "tensor", 6, tensor_measurement_bytes);
    // The training panel's race (format 1: lanes of FP32, BF16 mixed and BF16 weights).
    back_with_stored_results<const train::PrecisionRace>(race_cache_, "tensor-training", 1, precision_race_bytes);
    // The FP32 ladder (format 1: the rungs of issue 45 and the FMA peak).
    back_with_stored_results<const core::GemmLadder>(ladder_cache_, "tensor-ladder", 1, gemm_ladder_bytes);
}

// [SECTION] steps

void TensorView::enter_step(const core::LessonStep& step) {
    const auto& p = step.params;
    panel_ = panel_from(core::param_string(p, "panel", ""), panel_);
    select_panel_ = true;
    lane_ = static_cast<int>(std::clamp<int64_t>(core::param_int(p, "lane", lane_), 0, 31));
    const std::string input = core::param_string(p, "input", input_ == kern::MmaInput::Fp16 ? "fp16" : "bf16");
    input_ = input == "bf16" ? kern::MmaInput::Bf16 : kern::MmaInput::Fp16;
    const double value = core::param_float(p, "value", value_);
    if (value != value_ || std::isnan(value) != std::isnan(value_)) {
        value_ = value;
        std::snprintf(value_text_, sizeof value_text_, "%s", number_text(value_).c_str());
        value_error_.clear();
    }
    const int64_t max_k = core::param_int(p, "max_k", int64_t{1} << max_k_exp_);
    max_k_exp_ = std::clamp(static_cast<int>(std::lround(std::log2(static_cast<double>(std::max<int64_t>(max_k, 1))))),
                            kMinKExp, kMaxKExp);
    trials_ = static_cast<int>(std::clamp<int64_t>(core::param_int(p, "trials", trials_), 1, 64));
    loss_scale_exp_ = static_cast<int>(std::clamp<int64_t>(core::param_int(p, "loss_scale", loss_scale_exp_), 0, 24));
    weight_step_ = std::clamp(core::param_float(p, "weight_step", weight_step_), 1e-7, 0.1);
    train_batches_ = std::clamp<int64_t>(core::param_int(p, "train_batches", train_batches_), 10, 2000);
    predict_ = step.predict;
    pick_ = -1;
    reveal_now_ = false;
    run_on_step_ = false;
    race_on_step_ = false;
    ladder_on_step_ = false;
    if (panel_ == Panel::Ladder) {
        if (const auto hit = ladder_cache_.find(ladder_key(ladder_size(false)))) {
            ladder_ = hit->result;
            host_.show_cached(hit->measured_unix_s, hit->origin);
            return;
        }
        if (ladder_ && ladder_->size != ladder_size(false)) ladder_.reset();
        if (step.action == "run" || !ladder_) ladder_on_step_ = true;
        return;
    }
    if (panel_ == Panel::Training) {
        // Its own run: the lesson's main measurement is not needed for this panel and stays as it is.
        if (const auto hit = race_cache_.find(race_key(race_config(false)))) {
            race_ = hit->result;
            host_.show_cached(hit->measured_unix_s, hit->origin);
            return;
        }
        if (race_ && race_key(race_->config) != race_key(race_config(false))) race_.reset();
        if (step.action == "run" || !race_) race_on_step_ = true;
        return;
    }
    if (const auto hit = cache_.find(config_key(sweep_config()))) {
        result_ = hit->result;
        host_.show_cached(hit->measured_unix_s, hit->origin);
        return;
    }
    if (!result_matches_config()) result_.reset();  // never another setting's numbers under this heading
    if (step.action == "run" || !result_) run_on_step_ = true;
}

core::DotSweepConfig TensorView::sweep_config() const {
    core::DotSweepConfig c;
    c.max_k = int64_t{1} << max_k_exp_;
    c.trials = trials_;
    return c;
}

std::string TensorView::config_key(const core::DotSweepConfig& c) {
    return "K " + std::to_string(c.min_k) + ".." + std::to_string(c.max_k) + " x " + std::to_string(c.trials) +
           " trials, seed " + std::to_string(c.seed);
}

// [SECTION] runs

bool TensorView::result_matches_config() const {
    if (!result_) return false;
    const core::DotSweepConfig& have = result_->sweep.config;
    const core::DotSweepConfig want = sweep_config();
    return have.max_k == want.max_k && have.trials == want.trials && have.min_k == want.min_k && have.seed == want.seed;
}

bool TensorView::start_run() {
    const core::DotSweepConfig c = sweep_config();
    return host_.submit("tensor cores", [this, c](const core::ProgressFn& progress) {
        auto m = measure_tensor(c, [&](float f, const std::string& stage) { return !progress || progress(f, stage); });
        return std::function<void()>([this, m] {
            if (!m)
                host_.info = result_ ? "run cancelled; the panels show the previous result" : "run cancelled";
            else
                finish(m);
        });
    });
}

void TensorView::request_run() {
    if (host_.refuse_if_busy()) return;
    if (panel_ == Panel::Training) start_race();
    else if (panel_ == Panel::Ladder) start_ladder();
    else start_run();
}

void TensorView::run_blocking(bool quick) {
    // Headless: the same computation as in the window (it takes well under a second), so an
    // exported step shows the very numbers the class sees. The training panel's race takes
    // seconds; quick exports train a third as many batches.
    run_on_step_ = false;
    race_on_step_ = false;
    ladder_on_step_ = false;
    if (panel_ == Panel::Training) {
        if (auto r = measure_race(race_config(quick), {})) finish_race(r);
        return;
    }
    if (panel_ == Panel::Ladder) {
        if (auto l = measure_ladder(ladder_size(quick))) finish_ladder(l);
        return;
    }
    if (auto m = measure_tensor(sweep_config(), {})) finish(m);
}

void TensorView::show_overview_panel() {
    panel_ = Panel::Fragments;
    select_panel_ = true;
}

void TensorView::finish(std::shared_ptr<const TensorMeasurement> m) {
    if (!m->sweep.ok) host_.error = "the dot-product sweep failed: " + m->sweep.error;
    else host_.error.clear();
    result_ = std::move(m);
    cache_.put(config_key(result_->sweep.config), result_, tensor_measurement_bytes(*result_), std::time(nullptr));
}

std::size_t tensor_measurement_bytes(const TensorMeasurement& m) {
    return sizeof(TensorMeasurement) + m.sweep.ks.size() * 64 + m.gradients.gradients.size() * sizeof(float);
}

const GradientCounts& TensorView::gradient_counts() {
    if (!counts_ || counts_of_ != result_ || counts_->scale_exp != loss_scale_exp_) {
        counts_ = count_gradients(result_->gradients, loss_scale_exp_);
        counts_of_ = result_;
    }
    return *counts_;
}

const train::GradientAnswer& TensorView::gradient_answer() {
    if (!answer_ || answer_of_ != result_ || answer_reveal_ != predict_->reveal || answer_choices_ != predict_->choices) {
        answer_ = train::answer_gradient_prompt(predict_->reveal, predict_->choices, result_->gradients);
        answer_of_ = result_;
        answer_reveal_ = predict_->reveal;
        answer_choices_ = predict_->choices;
    }
    return *answer_;
}

const train::WeightWalk& TensorView::weight_walk() {
    if (!walk_ || walk_->step != weight_step_) walk_ = train::walk_weight(1.0, weight_step_, 10000, 41);
    return *walk_;
}

void TensorView::update(float) {
    if (host_.jobs->busy()) return;
    if (race_on_step_) {
        race_on_step_ = false;
        start_race();
        return;
    }
    if (ladder_on_step_) {
        ladder_on_step_ = false;
        start_ladder();
        return;
    }
    if (!run_on_step_) return;
    run_on_step_ = false;
    start_run();
}

// [SECTION] predict

std::pair<bool, bool> TensorView::hidden_lines() const {
    if (!predict_ || pick_ >= 0 || reveal_now_) return {false, false};
    core::MostErrorReveal r;
    if (!core::parse_most_error_reveal(predict_->reveal, r)) return {false, false};
    return {r.narrow_accumulator, !r.narrow_accumulator};
}

int64_t TensorView::prompt_k() const {
    core::MostErrorReveal r;
    if (predict_ && core::parse_most_error_reveal(predict_->reveal, r)) return r.k;
    return 0;
}

// [SECTION] CSV and caption

std::vector<std::string> tensor_caption_lines(const TensorMeasurement& m, std::string_view lesson_title, double value) {
    std::vector<std::string> lines = machine_caption_lines(lesson_title, m.started_unix_s);
    lines.push_back("Lane data: read from the mma.sync m16n8k16 kernel run on cuda-sim, gpulab's SIMT simulator "
                    "(FP16 and BF16 inputs, FP32 accumulation); no GPU ran it here");
    const core::DotSweepConfig& c = m.sweep.config;
    // No brackets in a caption: CMake's list reading (the tests) and some CSV tools trip on "[0, 1)".
    lines.push_back("Dot products: x, y uniform with 0 <= x, y < 1, K = " + core::format_count(c.min_k) + " .. " +
                    core::format_count(c.max_k) + ", mean of " + std::to_string(c.trials) +
                    " vector pairs (seed " + std::to_string(c.seed) + "), error against an FP64 reference");
    lines.push_back("Typed number: " + number_text(value));
    if (m.gradients.ok)
        lines.push_back("Gradients: " + m.gradients.pictures + " through the training lesson's CNN (" +
                        m.gradients.model_spec + ") on " + m.gradients.engine + ", after " +
                        std::to_string(m.gradients.steps_before) + " SGD steps; cast with IEEE round to nearest even");
    lines.push_back(kModelNote);
    return lines;
}

std::string tensor_csv(const TensorMeasurement& m, const core::GemmSpeedRun& speed, kern::MmaInput input, double value,
                       const std::vector<std::string>& caption) {
    std::ostringstream o;
    for (const std::string& line : caption) o << "# " << line << "\n";
    const sim::MmaLaneData& d = m.lanes_for(input);
    o << "kind,input,lane,matrix,register_element,row,col\n";
    const auto rows = [&](const char* matrix, const auto& held) {
        for (int lane = 0; lane < 32; ++lane) {
            const auto& elements = held[static_cast<std::size_t>(lane)];
            for (std::size_t i = 0; i < elements.size(); ++i)
                o << "lane," << kern::mma_input_label(input) << "," << lane << "," << matrix << "," << i << ","
                  << int{elements[i].row} << "," << int{elements[i].col} << "\n";
        }
    };
    if (d.ok) {
        rows("A", d.a);
        rows("B", d.b);
        rows("C", d.c);
        rows("D", d.d);
    } else {
        o << "lane," << kern::mma_input_label(input) << ",,," << core::csv_field("not read: " + d.error) << ",,\n";
    }
    o << "\nkind,format,typed,bits_hex,sign,exponent_field,mantissa_field,class,stored,error,step_here\n";
    for (core::FpFormat f : core::kAllFormats) {
        const core::BitFields b = core::bit_fields(f, value);
        char bits[16];
        std::snprintf(bits, sizeof bits, "0x%0*X", (core::format_spec(f).total_bits() + 3) / 4, b.bits);
        o << "format," << core::format_label(f) << "," << number_text(value) << "," << bits << "," << b.sign << ","
          << b.exponent << "," << b.mantissa << "," << core::class_name(b.cls) << "," << number_text(b.value) << ","
          << number_text(b.value - value) << "," << number_text(core::step_at(f, value)) << "\n";
    }
    o << "\nkind,format,significant_bits,max_finite,min_normal,min_subnormal,step_at_1\n";
    for (core::FpFormat f : core::kAllFormats) {
        const core::FormatRange r = core::format_range(f);
        o << "range," << core::format_label(f) << "," << r.significant_bits << "," << number_text(r.max_finite) << ","
          << number_text(r.min_normal) << "," << number_text(r.min_subnormal) << "," << number_text(r.epsilon) << "\n";
    }
    o << "\nkind,inputs,accumulate,k,mean_relative_error\n";
    if (m.sweep.ok) {
        for (const core::DotSweepLine& l : m.sweep.lines)
            for (std::size_t i = 0; i < m.sweep.ks.size(); ++i)
                o << "sweep," << core::format_label(l.inputs) << "," << core::format_label(l.accumulate) << ","
                  << m.sweep.ks[i] << "," << number_text(l.error[i]) << "\n";
    } else {
        o << "sweep,,,," << core::csv_field("not run: " + m.sweep.error) << "\n";
    }
    o << "\nkind,format,loss_scale_power,nonzero,lost_to_zero,subnormal,kept_normal,overflow\n";
    if (m.gradients.ok) {
        for (const core::FpFormat f : {core::FpFormat::Fp16, core::FpFormat::Bf16})
            for (const int s : {0, 8, 16}) {
                const train::CastCounts c = train::cast_counts(m.gradients.gradients, f, std::ldexp(1.0, s));
                o << "gradients," << core::format_label(f) << "," << s << "," << static_cast<std::int64_t>(c.nonzero())
                  << "," << c.lost << "," << c.subnormal << "," << c.normal << "," << c.overflow << "\n";
            }
    } else {
        o << "gradients,,,,,,," << core::csv_field("not computed: " + m.gradients.error) << "\n";
    }
    // Every table's rows say where they were measured (issue 39): the speed table row by row (a
    // recording's GPU rows among them), the others all here.
    const std::string own = shown_result_source();
    std::string before = with_source_column(o.str(), own);
    std::ostringstream t;
    t << "\nkind,backend,inputs,size,ran,native,gflops_median,gflops_min,gflops_max,check,path,source\n";
    for (const core::GemmSpeedRow& r : speed.rows)
        t << "speed," << r.backend << "," << core::format_label(r.inputs) << "," << speed.size << ","
          << (r.ran ? "yes" : "no") << "," << (r.native ? "yes" : "no") << "," << r.gflops << "," << r.gflops_min << ","
          << r.gflops_max << "," << (r.ran ? (r.check_pass ? "pass" : "FAIL") : "") << "," << core::csv_field(r.path)
          << "," << core::csv_field(r.source.empty() ? own : r.source) << "\n";
    o.str("");
    o << "\nkind,input,m,n,k,outputs_differing_from_cpu_scalar,mma_sync_instructions,simulator_ns,note\n";
    for (const KernelCheck& c : m.checks) {
        o << "check," << kern::mma_input_label(c.input) << "," << c.m << "," << c.n << "," << c.k << ",";
        if (c.ok)
            o << c.outputs_differing << "," << c.instructions << "," << c.sim_ns
              << ",cuda-sim; the simulator's time on this CPU, never a GPU time\n";
        else
            o << ",,," << core::csv_field("not run: " + c.error) << "\n";
    }
    return before + t.str() + with_source_column(o.str(), own);
}

// [SECTION] script actions, comparison

bool TensorView::script_action(const std::string& name, std::string& said) {
    if (name.rfind("lane=", 0) == 0) {
        lane_ = std::clamp(std::atoi(name.c_str() + 5), 0, 31);
        said = "lane " + std::to_string(lane_) + " picked";
        return true;
    }
    if (name.rfind("value=", 0) == 0) {
        std::snprintf(value_text_, sizeof value_text_, "%s", name.c_str() + 6);
        char* end = nullptr;
        const double v = std::strtod(value_text_, &end);
        if (end == value_text_ || *end != '\0') {
            said = "'" + name.substr(6) + "' is not a number";
            return false;
        }
        value_ = v;
        value_error_.clear();
        said = "typed " + number_text(v);
        return true;
    }
    if (bool ok = false; answer_first_action(predict_, pick_, name, said, ok)) return ok;
    said = "unknown action '" + name + "' (lane=N, value=X, answer-first)";
    return false;
}

bool TensorView::load_comparison(const std::string&, std::string& error) {
    // Its lanes, formats and sums are the same everywhere; its speed rows are not, and the shipped
    // GPU recording stands beside them where no GPU ran (views/recorded_gpu.h).
    error = "the tensor-core lesson does not read another machine's file: the simulated kernel and the IEEE "
            "rounding model give the same numbers on every machine, and the speed step shows the recorded GPU "
            "run's rows where this computer has no GPU";
    host_.error = error;
    return false;
}

// [SECTION] export

ExportResult TensorView::export_files(const ViewExport& in) {
    if (!result_ && !race_) return {false, "nothing to export yet: run the measurement first (R)", {}};
    ExportWriter out(in.out_dir, in.lesson_id);
    if (!out.ok()) return out.failed();
    // The training panel's race alone when only it ran (its step entered first).
    const TensorMeasurement empty;
    const TensorMeasurement& m = result_ ? *result_ : empty;
    std::vector<std::string> caption = result_ ? tensor_caption_lines(m, in.lesson_title, value_)
                                               : machine_caption_lines(in.lesson_title, race_->started_unix_s);
    if (!result_) caption.push_back(kModelNote);
    if (!out.text("-tensor.csv", (result_ ? tensor_csv(m, shown_speed(), input_, value_, caption) + "\n" : std::string()) +
                                     (race_ ? precision_race_csv(*race_) : std::string())))
        return out.failed();
    const std::shared_ptr<const train::PrecisionRace> race = race_;
    const std::filesystem::path png = out.path("-tensor.png");
    std::string error;
    const int lane = lane_;
    const kern::MmaInput input = input_;
    const double value = value_;
    const auto [hide_narrow, hide_fp32] = hidden_lines();
    const int64_t mark = prompt_k() > 0 ? prompt_k() : int64_t{4096};
    const int loss_scale = loss_scale_exp_;
    const train::WeightWalk walk = weight_walk();
    const bool ok = render_panel_png(in.ui_scale, 1200, png.string(), error, [&](const Fonts& fonts, float scale) {
        draw_export_heading(fonts, in.lesson_title + ": one mma.sync instruction, four number formats, long dot products, "
                                   "training in low precision");
        draw_caption_block(caption);
        if (race) {
            ImGui::Spacing();
            draw_export_heading(fonts, "The training lesson's CNN trained in FP32, BF16 mixed precision and with BF16 weights");
            if (race->ok) {
                draw_precision_loss_plot(*race, {ImGui::GetContentRegionAvail().x, 320.0f * scale});
                draw_precision_table(*race, false);
                draw_precision_sentences(*race);
            } else {
                ImGui::TextColored(kErrorColour, "not run: %s", race->error.c_str());
            }
        }
        if (!result_) return;
        ImGui::Spacing();
        draw_export_heading(fonts, std::string("One mma.sync.m16n8k16 (") + kern::mma_input_label(input) +
                                       " inputs): each element numbered by the lane that held it, lane " +
                                       std::to_string(lane) + " lit");
        const sim::MmaLaneData& d = m.lanes_for(input);
        if (d.ok) {
            draw_fragment_tiles(d, lane, {ImGui::GetContentRegionAvail().x, 420.0f * scale}, fonts);
            ImGui::TextWrapped("%s", lane_holdings(d, lane).c_str());
        } else {
            ImGui::TextColored(kErrorColour, "lane data not read: %s", d.error.c_str());
        }
        draw_kernel_check(m.check_for(input));
        ImGui::Spacing();
        draw_export_heading(fonts, "The typed number " + number_text(value) + " in four formats");
        draw_format_rows(value, ImGui::GetContentRegionAvail().x, fonts);
        draw_format_ranges();
        ImGui::Spacing();
        draw_export_heading(fonts, "Dot products of length K: error against FP64");
        if (m.sweep.ok) {
            draw_dot_plot(m.sweep, {ImGui::GetContentRegionAvail().x, 360.0f * scale}, mark, hide_narrow, hide_fp32);
            draw_dot_table(m.sweep, mark, hide_narrow, hide_fp32);
        } else {
            ImGui::TextColored(kErrorColour, "not run: %s", m.sweep.error.c_str());
        }
        ImGui::Spacing();
        draw_export_heading(fonts, "One batch's gradients stored in FP16, loss scale 2^" + std::to_string(loss_scale) +
                                       ": lost, subnormal, kept, overflow");
        if (m.gradients.ok) {
            const GradientCounts counts = count_gradients(m.gradients, loss_scale);
            draw_gradient_histogram(counts, {ImGui::GetContentRegionAvail().x, 320.0f * scale});
            draw_gradient_table(m.gradients, counts);
        } else {
            ImGui::TextColored(kErrorColour, "not computed: %s", m.gradients.error.c_str());
        }
        ImGui::Spacing();
        draw_export_heading(fonts, "A weight of 1, minus the same small step 10,000 times, kept in four formats");
        draw_weight_walk(walk, {ImGui::GetContentRegionAvail().x, 280.0f * scale});
        draw_weight_walk_table(walk);
        ImGui::Spacing();
        draw_export_heading(fonts, "The same " + core::format_count(m.speed.size) + "^3 matrix product in FP32 and BF16 on "
                                   "this CPU, and with cuBLAS on the GPU");
        const core::GemmSpeedRun speed = shown_speed();
        draw_speed_bars(speed, ImGui::GetContentRegionAvail().x);
        draw_speed_gpu_note(speed);
        ImGui::TextWrapped("%s", kModelNote);
    });
    if (!out.picture(png, ok, error)) return out.failed();
    return out.finish(in.window_rgba, in.window_width, in.window_height);
}

std::string TensorView::export_description() const {
    return "Write <lesson>-tensor.png (the lanes of one mma.sync read from the simulated kernel, the typed number in "
           "four formats, the dot-product error against K, one batch's gradients in FP16, a weight kept in four "
           "formats), <lesson>-window.png and <lesson>-tensor.csv (every lane's elements, the number's bits in each "
           "format, the ranges, the sweep, the gradients' counts, the kernel check).";
}

std::string TensorView::measurement_csv(const std::string& lesson_title) const {
    std::string csv = result_ ? tensor_csv(*result_, shown_speed(), input_, value_,
                                           tensor_caption_lines(*result_, lesson_title, value_))
                              : std::string();
    // The training panel's race where it ran, after the main tables.
    if (race_ && panel_ == Panel::Training) csv += (csv.empty() ? "" : "\n") + precision_race_csv(*race_);
    if (ladder_ && panel_ == Panel::Ladder) csv += (csv.empty() ? "" : "\n") + gemm_ladder_csv(*ladder_);
    return csv;
}

}  // namespace gpulab::app
