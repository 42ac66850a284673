// Runs the elementwise-activation lesson's measurement: one input, every backend, the same op.
// Verified by tests/test_activation_workload.cpp (CPU backends agree, stats filled, sizes refused
// before allocation, cancel honoured).
#include "activation_workload.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>

#include "runtime/cancel.h"
#include "measure/clock.h"
#include "backends/cpu_scalar.h"
#include "measure/format.h"
#include "io/image_io.h"
#include "field_count.h"
#include "runtime/memory.h"

namespace gpulab::core {

namespace {

// ReLU and leaky ReLU are exact in every implementation (a compare and at most one multiply);
// the exp-based activations differ by a few ulp between libm, our polynomial exp and CUDA's
// expf/tanhf, so they get an absolute + relative tolerance far below anything visible.
Tolerance tolerance_for(const OpDesc& op) {
    switch (op.activation) {
        case Activation::Relu:
        case Activation::LeakyRelu: return {1e-12, 0.0};
        default: return {2e-6, 1e-5};
    }
}

bool report_progress(const ProgressFn& progress, float f, std::string_view stage) {
    return !progress || progress(std::clamp(f, 0.0f, 1.0f), stage);
}

}  // namespace

bool measure_samples(BackendReport& rep, const MeasureConfig& measure, const std::function<RunResult()>& run_once,
                     const ProgressFn& progress, float base, float share) {
    // A simulated kernel runs once: its time is not a speed, so repeats would only make the student
    // wait (a second or more per run at the lessons' default sizes).
    MeasureConfig config = measure;
    if (!kind_is_timed(rep.kind)) config.warmup = 0, config.min_samples = 1, config.max_samples = 1;
    // The stop request is asked before every run, not only at the progress report after it: a
    // scalar sample at 2^26 elements takes a second on a busy machine (issue 38).
    for (int i = 0; i < config.warmup; ++i) {
        if (cancel_requested()) return false;
        RunResult r = run_once();
        if (!r.ok) {
            if (cancel_requested()) return false;  // stopped inside the run (cuda-sim says "cancelled")
            rep.error = r.error;
            return true;
        }
    }
    const int64_t t_start = now_ns();
    while (static_cast<int>(rep.samples_ns.size()) < config.max_samples) {
        const int n = static_cast<int>(rep.samples_ns.size());
        if (n >= config.min_samples && now_ns() - t_start > config.time_budget_ns) break;
        if (cancel_requested()) return false;
        RunResult r = run_once();
        if (!r.ok) {
            if (cancel_requested()) return false;
            rep.error = r.error;
            return true;
        }
        rep.samples_ns.push_back(r.t.total_ns());
        rep.phases.push_back(r.t);
        rep.moved_bytes = r.moved_bytes;
        rep.unique_bytes = r.unique_bytes;
        const float within = std::max(static_cast<float>(n + 1) / static_cast<float>(std::max(config.min_samples, 1)),
                                      static_cast<float>(now_ns() - t_start) /
                                          static_cast<float>(std::max<int64_t>(config.time_budget_ns, 1)));
        if (!report_progress(progress, base + share * 0.9f * std::min(within, 1.0f),
                             "measuring " + rep.backend + " (" + std::to_string(n + 1) + " samples)"))
            return false;
    }
    rep.ran = true;
    rep.total = summarize(rep.samples_ns);
    auto phase = [&](int64_t PhaseTimes::*field) {
        std::vector<int64_t> v;
        v.reserve(rep.phases.size());
        for (const PhaseTimes& t : rep.phases) v.push_back(t.*field);
        return summarize(std::move(v));
    };
    rep.upload = phase(&PhaseTimes::upload_ns);
    rep.compute = phase(&PhaseTimes::compute_ns);
    rep.download = phase(&PhaseTimes::download_ns);
    return true;
}

std::vector<int64_t> feature_map_shape(int64_t elements) {
    if (elements <= 0) return {0, 0};
    // Largest divisor not above the square root: square for powers of four, 1:2 for other
    // powers of two, and still exact (if thin) for awkward counts such as primes.
    auto root = static_cast<int64_t>(std::sqrt(static_cast<double>(elements)));
    for (int64_t h = root; h >= 1; --h) {
        if (elements % h == 0) return {h, elements / h};
    }
    return {1, elements};
}

Tensor make_feature_map(int64_t elements, uint32_t seed) {
    std::vector<int64_t> shape = feature_map_shape(elements);
    const int64_t h = shape[0], w = shape[1];
    Tensor t = Tensor::zeros(shape, throw_if_cancelled);
    // Separable pieces keep generation cheap at 2^26 elements: per-row and per-column factors,
    // multiplied, plus two blobs (one positive, one negative) and a little hashed noise.
    const double phase = 0.37 * seed;
    std::vector<float> wave_x(w), wave_y(h), blob1_x(w), blob1_y(h), blob2_x(w), blob2_y(h);
    for (int64_t x = 0; x < w; ++x) {
        if (x % kCancelCheckElements == 0) throw_if_cancelled();  // one long row: three exp per element
        double u = static_cast<double>(x) / std::max<int64_t>(w, 1);
        wave_x[x] = static_cast<float>(std::sin(2 * M_PI * 3 * u + phase));
        blob1_x[x] = static_cast<float>(std::exp(-std::pow((u - 0.3) / 0.12, 2)));
        blob2_x[x] = static_cast<float>(std::exp(-std::pow((u - 0.72) / 0.15, 2)));
    }
    for (int64_t y = 0; y < h; ++y) {
        double v = static_cast<double>(y) / std::max<int64_t>(h, 1);
        wave_y[y] = static_cast<float>(std::cos(2 * M_PI * 2 * v + phase));
        blob1_y[y] = static_cast<float>(std::exp(-std::pow((v - 0.35) / 0.15, 2)));
        blob2_y[y] = static_cast<float>(std::exp(-std::pow((v - 0.65) / 0.12, 2)));
    }
    uint32_t state = 2166136261u ^ seed;
    for (int64_t y = 0; y < h; ++y) {
        float* row = t.ptr() + y * w;
        for (int64_t x = 0; x < w; ++x) {
            // 2^26 elements take a few hundred ms: a stopped run does not wait for them. A row is
            // usually a few thousand elements, but one row holds them all for a prime count.
            if (x % kCancelCheckElements == 0) throw_if_cancelled();
            state = state * 1664525u + 1013904223u;  // LCG: reproducible noise, no <random> cost
            float noise = static_cast<float>(state >> 8) * (1.0f / 16777216.0f) - 0.5f;
            row[x] = 1.4f * wave_x[x] * wave_y[y] + 2.2f * blob1_x[x] * blob1_y[y] - 2.4f * blob2_x[x] * blob2_y[y] +
                     0.5f * noise;
        }
    }
    return t;
}

ActivationParams activation_params_from(const std::map<std::string, ParamValue>& params, ActivationParams base) {
    if (auto a = parse_activation(param_string(params, "activation", std::string(activation_name(base.activation)))))
        base.activation = *a;
    base.elements = param_int(params, "elements", base.elements);
    base.leaky_alpha = static_cast<float>(param_float(params, "leaky_alpha", base.leaky_alpha));
    base.image_path = param_string(params, "image", base.image_path);
    return base;
}

ActivationRun run_activation(const ActivationParams& params, std::span<Backend* const> backends,
                             const MeasureConfig& config, const ProgressFn& progress) {
    // Every early return is "return run;", which moves: the comma form used before
    // ("return run.error = ..., run") copied the input and the reference, 512 MiB at 2^26, after
    // the stop had been asked for (issue 38).
    ActivationRun run;
    run.params = params;
    run.op.activation = params.activation;
    run.op.leaky_alpha = params.leaky_alpha;
    run.started_unix_s = std::chrono::duration_cast<std::chrono::seconds>(
                             std::chrono::system_clock::now().time_since_epoch()).count();
    try {
        // [SECTION] input: refuse before allocating
        if (!params.image_path.empty()) {
            if (!report_progress(progress, 0.0f, "loading image")) { run.error = "cancelled"; return run; }
            run.input = load_image_as_feature_map(params.image_path);
        } else {
            if (params.elements < 1) {
                run.error = "element count must be at least 1";
                return run;
            }
            // input + reference output + one candidate output live at the same time
            const std::size_t need = 3 * static_cast<std::size_t>(params.elements) * sizeof(float);
            Availability fits = check_host_allocation(need);
            if (!fits.ok) {
                run.error = format_count(params.elements) + " elements refused: " + fits.reason;
                return run;
            }
            if (!report_progress(progress, 0.0f, "generating input")) { run.error = "cancelled"; return run; }
            run.input = make_feature_map(params.elements, params.seed);
        }
        const double bytes = run.op.bytes_moved(run.input.size());
        const std::size_t tensor_bytes = run.input.bytes();

        // [SECTION] every backend, the reference first
        const float share = 1.0f / static_cast<float>(std::max<std::size_t>(backends.size(), 1));
        for (std::size_t bi = 0; bi < backends.size(); ++bi) {
            Backend* b = backends[bi];
            BackendReport rep;
            rep.backend = std::string(b->name());
            rep.kind = b->kind();
            rep.availability = b->availability();
            const float base = share * static_cast<float>(bi);
            if (rep.availability.ok && !b->supports(run.op)) {
                rep.availability = {false, std::string(b->name()) + " does not offer " + run.op.label()};
            }
            if (rep.availability.ok) {
                Availability fits = b->can_allocate(2 * tensor_bytes);
                if (!fits.ok) rep.availability = {false, fits.reason};
            }
            if (!rep.availability.ok) {
                run.reports.push_back(std::move(rep));
                continue;
            }
            if (!report_progress(progress, base, "warming up " + rep.backend)) { run.error = "cancelled"; return run; }

            Tensor out = Tensor::zeros(run.input.shape, throw_if_cancelled);
            if (!measure_samples(rep, config, [&] { return b->run(run.op, run.input, out); }, progress, base, share))
                { run.error = "cancelled"; return run; }
            if (rep.ran) {
                if (kind_is_timed(rep.kind)) {  // a simulation's time gives no GB/s
                    rep.gbps = gbps(bytes, rep.compute.median_ns);
                    rep.gbps_with_transfers = gbps(bytes, rep.total.median_ns);
                }
                if (run.reference_output.data.empty()) {
                    // The first backend that ran is the reference: callers put cpu-scalar first.
                    if (rep.backend != "cpu-scalar") {
                        run.reference_output = Tensor::zeros(run.input.shape, throw_if_cancelled);
                        cpu::activation_reference(run.op, run.input.ptr(), run.reference_output.ptr(), run.input.size());
                    } else {
                        run.reference_output = std::move(out);  // a copy of 2^26 floats would take 200 ms
                    }
                }
                const Tensor& result = out.data.empty() ? run.reference_output : out;
                rep.check = compare(run.reference_output, result, tolerance_for(run.op), throw_if_cancelled);
                if (!kind_is_timed(rep.kind) && rep.check.pass && run.simulated_backend.empty()) {
                    run.simulated_output = std::move(out);
                    run.simulated_backend = rep.backend;
                }
                if (config.measure_limits && kind_is_timed(rep.kind)) {
                    if (!report_progress(progress, base + share * 0.95f, "measuring copy bandwidth for " + rep.backend))
                        { run.error = "cancelled"; return run; }
                    rep.limit = b->bandwidth_limit(tensor_bytes);
                    if (rep.limit.ok && rep.limit.gbps > 0) rep.fraction_of_limit = rep.gbps / rep.limit.gbps;
                }
            }
            run.reports.push_back(std::move(rep));
        }
        report_progress(progress, 1.0f, "done");
        run.ok = true;
    } catch (const Cancelled&) {
        run.error = "cancelled";
    } catch (const InputError& e) {
        run.error = e.what();
    } catch (const std::bad_alloc&) {
        run.error = "out of memory for " + format_count(params.elements) + " elements";
    } catch (const std::exception& e) {
        run.error = std::string("unexpected error: ") + e.what();
    }
    return run;
}

std::string activation_config_key(const ActivationParams& p) {
    std::string key = std::string(activation_name(p.activation));
    if (p.activation == Activation::LeakyRelu) key += " alpha " + std::to_string(p.leaky_alpha);
    key += p.image_path.empty() ? " generated " + std::to_string(p.elements) + " seed " + std::to_string(p.seed)
                                : " image " + p.image_path;
    return key;
}

// The copy below names every member but the pictures: a member added to ActivationRun must be
// added there too (it would otherwise come back from the store as its default).
static_assert(field_count<ActivationRun>() == 11, "activation_run_without_pictures copies every member");

std::shared_ptr<const ActivationRun> activation_run_without_pictures(const ActivationRun& run) {
    if (!run.ok || !run.params.image_path.empty() || run.params.elements < 1 || run.input.size() != run.params.elements)
        return nullptr;
    auto slim = std::make_shared<ActivationRun>();
    slim->params = run.params;
    slim->op = run.op;
    slim->ok = run.ok;
    slim->error = run.error;
    slim->simulated_backend = run.simulated_backend;
    slim->reports = run.reports;
    slim->started_unix_s = run.started_unix_s;
    slim->pictures_remade = true;  // read back, its pictures are made again
    return slim;
}

bool remake_activation_pictures(ActivationRun& run) {
    if (!run.pictures_remade) return true;
    if (!run.ok || !run.params.image_path.empty() || run.params.elements < 1 ||
        run.params.elements > kMaxLessonActivationElements)  // a crafted count must not allocate gigabytes
        return false;
    run.input = make_feature_map(run.params.elements, run.params.seed);
    run.reference_output = Tensor::zeros(run.input.shape);
    cpu::activation_reference(run.op, run.input.ptr(), run.reference_output.ptr(), run.input.size());
    run.simulated_output = Tensor{};
    return true;
}

std::size_t activation_run_bytes(const ActivationRun& run) {
    const std::size_t floats = run.input.size() + run.reference_output.size() + run.simulated_output.size();
    return floats * sizeof(float) + sizeof(ActivationRun);
}

}  // namespace gpulab::core
