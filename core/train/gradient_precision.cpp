// One batch's gradients, their fate in FP16 and BF16, and the weight walk: see gradient_precision.h.
#include "gradient_precision.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <random>

#include "engine.h"
#include "lesson/lesson.h"
#include "model.h"

namespace gpulab::train {

namespace {

// Batch `index` of the pictures in order, as the training loop feeds them: bytes scaled to [0, 1].
void gather(const ImageSet& set, std::int64_t first, std::int64_t n, std::vector<float>& images,
            std::vector<std::uint8_t>& labels) {
    const std::int64_t px = set.rows * set.cols;
    images.resize(static_cast<std::size_t>(n * px));
    labels.resize(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) {
        const std::int64_t src = (first + i) % set.count;
        for (std::int64_t p = 0; p < px; ++p)
            images[static_cast<std::size_t>(i * px + p)] = set.pixels[static_cast<std::size_t>(src * px + p)] / 255.0f;
        labels[static_cast<std::size_t>(i)] = set.labels[static_cast<std::size_t>(src)];
    }
}

ImageSet random_pictures(std::int64_t count, std::uint64_t seed) {
    ImageSet s;
    s.count = count;
    s.rows = s.cols = 28;
    std::mt19937_64 rng(seed);
    s.pixels.resize(static_cast<std::size_t>(count * 28 * 28));
    for (auto& p : s.pixels) p = static_cast<std::uint8_t>(rng() & 0xFF);
    s.labels.resize(static_cast<std::size_t>(count));
    for (auto& l : s.labels) l = static_cast<std::uint8_t>(rng() % 10);
    return s;
}

}  // namespace

BatchGradients measure_batch_gradients(const Dataset* data, const std::string& no_data_reason, std::int64_t batch,
                                       int steps_before, std::uint64_t seed, const std::function<bool()>& keep_going) {
    BatchGradients out;
    out.batch = batch;
    out.steps_before = steps_before;
    out.model_spec = kDefaultModelSpec;
    const bool real = data && data->train.count > 0;
    const ImageSet set = real ? data->train : random_pictures(batch * (steps_before + 1), seed);
    out.pictures = real ? std::to_string(batch) + " Fashion-MNIST training pictures"
                        : std::to_string(batch) + " random pictures (" + no_data_reason + ")";
    try {
        std::unique_ptr<TrainEngine> engine = make_train_engine("cpu-parallel");
        if (!engine->availability().ok) engine = make_train_engine("cpu-scalar");
        out.engine = std::string(engine->name());
        const ModelDesc model = make_model(out.model_spec, {1, set.rows, set.cols}, 10);
        check_training_fits(model, batch);
        engine->keep_activation_gradients(true);
        engine->setup(model, init_params(model, seed), batch);
        std::vector<float> images;
        std::vector<std::uint8_t> labels;
        for (int b = 0; b <= steps_before; ++b) {
            if (keep_going && !keep_going()) {
                out.error = "cancelled";
                return out;
            }
            gather(set, b * batch, batch, images, labels);
            engine->forward(images.data(), batch);
            const BatchResult r = engine->backward(labels.data());
            if (b < steps_before) {
                engine->step(Sgd{});
            } else {
                out.loss = r.loss;
                out.gradients = engine->gradients();
                out.activations = count_scaled_gradients(engine->activation_gradients());
            }
        }
        out.ok = true;
    } catch (const std::exception& e) {
        out.error = e.what();
    }
    return out;
}

CastCounts cast_counts(std::span<const float> values, core::FpFormat format, double scale) {
    CastCounts c;
    c.format = format;
    c.scale = scale;
    const core::FormatRange range = core::format_range(format);
    for (const float g : values) {
        ++c.total;
        if (g == 0.0f) {
            ++c.zero;
            continue;
        }
        // The scaled value in double (exact for a power-of-two scale), rounded once into the format.
        const double stored = std::fabs(core::round_to(format, static_cast<double>(g) * scale));
        if (stored == 0.0)
            ++c.lost;
        else if (std::isinf(stored))
            ++c.overflow;
        else if (stored < range.min_normal)
            ++c.subnormal;
        else
            ++c.normal;
    }
    return c;
}

PowerHistogram power_histogram(std::span<const float> values, int min_power, int max_power) {
    PowerHistogram h;
    h.min_power = min_power;
    h.max_power = max_power;
    h.counts.assign(static_cast<std::size_t>(max_power - min_power + 1), 0);
    bool any = false;
    for (const float g : values) {
        if (g == 0.0f || !std::isfinite(g)) {
            h.zeros += g == 0.0f;
            continue;
        }
        int e = 0;
        std::frexp(g, &e);  // |g| = m * 2^e with m in [0.5, 1): floor(log2 |g|) = e - 1
        const int p = e - 1;
        h.smallest_seen = any ? std::min(h.smallest_seen, p) : p;
        h.largest_seen = any ? std::max(h.largest_seen, p) : p;
        any = true;
        ++h.counts[static_cast<std::size_t>(std::clamp(p, min_power, max_power) - min_power)];
    }
    return h;
}

ScaledGradientCounts count_scaled_gradients(std::span<const float> values, int max_scale_exp) {
    ScaledGradientCounts s;
    s.values = static_cast<std::int64_t>(values.size());
    s.max_scale_exp = max_scale_exp;
    s.histogram = power_histogram(values);
    for (int e = 0; e <= max_scale_exp; ++e) {
        s.fp16.push_back(cast_counts(values, core::FpFormat::Fp16, std::ldexp(1.0, e)));
        s.bf16.push_back(cast_counts(values, core::FpFormat::Bf16, std::ldexp(1.0, e)));
    }
    s.largest_safe_fp16_scale = largest_safe_scale(values, core::FpFormat::Fp16);
    return s;
}

double largest_safe_scale(std::span<const float> values, core::FpFormat format) {
    double largest = 0.0;
    for (const float g : values)
        if (std::isfinite(g)) largest = std::max(largest, static_cast<double>(std::fabs(g)));
    if (largest == 0.0) return 1.0;
    // The largest 2^k with round_to(largest * 2^k) finite (rounding up near the top counts).
    int k = static_cast<int>(std::floor(std::log2(core::format_range(format).max_finite / largest)));
    while (std::isinf(core::round_to(format, std::ldexp(largest, k)))) --k;
    while (!std::isinf(core::round_to(format, std::ldexp(largest, k + 1)))) ++k;
    return std::ldexp(1.0, k);
}

namespace {

std::optional<core::FpFormat> reveal_format(const std::string& reveal) {
    const std::string prefix = "gradients-thinned:";
    if (reveal.rfind(prefix, 0) != 0) return std::nullopt;
    const std::string f = reveal.substr(prefix.size());
    if (f == "fp16") return core::FpFormat::Fp16;
    if (f == "bf16") return core::FpFormat::Bf16;
    return std::nullopt;
}

std::string percent_text(double p) {
    char buf[32];
    std::snprintf(buf, sizeof buf, p < 0.1 && p > 0 ? "%.2f %%" : "%.1f %%", p);
    return buf;
}

}  // namespace

std::string gradient_reveal_problem(const std::string& reveal, const std::vector<std::string>& choices) {
    if (!reveal_format(reveal))
        return "reveal \"" + reveal + "\" is not one the gradients panel knows (gradients-thinned:fp16 or gradients-thinned:bf16)";
    for (const std::string& c : choices) {
        double lo = 0, hi = 0;
        if (!core::choice_percent_band(c, lo, hi))
            return "choice \"" + c + "\" names no band of percent (write \"less than 1 %\", \"1 to 10 %\" or \"more than 10 %\")";
    }
    return "";
}

GradientAnswer answer_gradient_prompt(const std::string& reveal, const std::vector<std::string>& choices,
                                      const BatchGradients& g) {
    GradientAnswer a;
    const std::optional<core::FpFormat> f = reveal_format(reveal);
    if (!f) {
        a.text = gradient_reveal_problem(reveal, choices);
        return a;
    }
    if (!g.ok || g.gradients.empty()) {
        a.text = "No gradients were computed" + (g.error.empty() ? std::string(".") : ": " + g.error + ".");
        return a;
    }
    const CastCounts c = cast_counts(g.gradients, *f, 1.0);
    const double thinned = static_cast<double>(c.lost + c.subnormal);
    a.percent = c.nonzero() > 0 ? 100.0 * thinned / c.nonzero() : 0.0;
    for (std::size_t i = 0; i < choices.size(); ++i) {
        double lo = 0, hi = 0;
        if (core::choice_percent_band(choices[i], lo, hi) && a.percent >= lo && a.percent < hi) a.best_choice = static_cast<int>(i);
    }
    a.text = "Of this batch's " + std::to_string(static_cast<std::int64_t>(c.nonzero())) + " non-zero gradients, " +
             core::format_label(*f) + " without a loss scale turns " + std::to_string(c.lost) + " into 0 and keeps " +
             std::to_string(c.subnormal) + " only as subnormals (fewer bits): " + percent_text(a.percent) + ".";
    a.ok = true;
    return a;
}

WeightWalk walk_weight(double start, double step, int updates, int points) {
    WeightWalk w;
    w.start = start;
    w.step = step;
    w.updates = updates;
    w.exact_end = start - static_cast<double>(updates) * step;
    points = std::clamp(points, 2, updates + 1);
    for (int i = 0; i < points; ++i) w.at.push_back(static_cast<int>(static_cast<std::int64_t>(updates) * i / (points - 1)));
    for (std::size_t f = 0; f < 4; ++f) {
        const core::FpFormat format = core::kAllFormats[f];
        // The step itself is stored in the format too, as a low-precision optimizer would hold it.
        const double s = core::round_to(format, step);
        double x = core::round_to(format, start);
        std::size_t next = 0;
        for (int u = 0; u <= updates; ++u) {
            if (next < w.at.size() && w.at[next] == u) {
                w.value[f].push_back(x);
                ++next;
            }
            x = core::round_to(format, x - s);
        }
    }
    return w;
}

}  // namespace gpulab::train
