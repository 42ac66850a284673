// What FP16 and BF16 do to gradients and to a slowly moving weight (core/train/gradient_precision.h):
// counts against values placed by hand at FP16's edges, the loss scale that shifts them, the
// largest safe scale, a real batch's gradients from the training lesson's CNN, and the weight
// that FP16 and BF16 leave where it was while FP32 moves it.
#include <doctest/doctest.h>

#include <cmath>
#include <memory>
#include <vector>

#include "io/image_io.h"
#include "train/engine.h"
#include "train/gradient_precision.h"
#include "train/model.h"

using namespace gpulab;
using namespace gpulab::train;
using core::FpFormat;

TEST_SUITE("train") {
    TEST_CASE("FP16 keeps - thins - loses and overflows gradients where its range says - and a scale moves them") {
        // 2^-14 is FP16's smallest normal, 2^-24 its smallest subnormal; below half of that: 0.
        const std::vector<float> g = {0.0f, 0.0f, std::ldexp(1.0f, -10), -std::ldexp(1.0f, -14), std::ldexp(1.0f, -20),
                                      std::ldexp(1.0f, -24), std::ldexp(1.0f, -26), -std::ldexp(1.0f, -30), 1.0f};
        const CastCounts plain = cast_counts(g, FpFormat::Fp16, 1.0);
        CHECK(plain.total == 9);
        CHECK(plain.zero == 2);
        CHECK(plain.normal == 3);     // 2^-10, -2^-14, 1
        CHECK(plain.subnormal == 2);  // 2^-20, 2^-24
        CHECK(plain.lost == 2);       // 2^-26, -2^-30
        CHECK(plain.overflow == 0);
        // A scale of 2^16 lifts every one into the normal range, and 1 to 65,536: past 65,504.
        const CastCounts scaled = cast_counts(g, FpFormat::Fp16, 65536.0);
        CHECK(scaled.lost == 0);
        CHECK(scaled.subnormal == 0);
        CHECK(scaled.overflow == 1);
        CHECK(scaled.normal == 6);
        // BF16 has FP32's exponent: nothing here is lost or thinned, however small.
        const CastCounts bf16 = cast_counts(g, FpFormat::Bf16, 1.0);
        CHECK(bf16.normal == 7);
        CHECK(bf16.lost + bf16.subnormal + bf16.overflow == 0);
        // The largest scale with no overflow: 1 * 2^15 = 32,768 fits, 2^16 does not.
        CHECK(largest_safe_scale(g, FpFormat::Fp16) == 32768.0);
        CHECK(largest_safe_scale(std::vector<float>{0.0f}, FpFormat::Fp16) == 1.0);
    }

    TEST_CASE("the power-of-two histogram counts floor(log2 |g|) and the zeros") {
        const std::vector<float> g = {0.0f, 0.75f, -0.5f, 3.0f, std::ldexp(1.0f, -60), 1e30f};
        const PowerHistogram h = power_histogram(g, -40, 4);
        CHECK(h.zeros == 1);
        CHECK(h.counts[static_cast<std::size_t>(-1 + 40)] == 2);  // 0.75 and -0.5: 2^-1
        CHECK(h.counts[static_cast<std::size_t>(1 + 40)] == 1);   // 3: 2^1
        CHECK(h.counts.front() == 1);                             // 2^-60 in the lowest bin
        CHECK(h.counts.back() == 1);                              // 10^30 in the highest
        CHECK(h.smallest_seen == -60);
        CHECK(h.largest_seen == 99);
    }

    TEST_CASE("a weight stepped 10,000 times by 1e-4: FP32 moves it - BF16 and FP16 leave it at 1") {
        const WeightWalk w = walk_weight(1.0, 1e-4, 10000, 11);
        REQUIRE(w.at.size() == 11);
        CHECK(w.at.front() == 0);
        CHECK(w.at.back() == 10000);
        CHECK(w.exact_end == doctest::Approx(0.0).epsilon(1e-12));
        // FP32: within a few ulps per step of the exact 0 (10,000 roundings near 1).
        CHECK(std::fabs(w.value[0].back()) < 1e-3);
        // Below 1 FP16's numbers are 2^-11 apart and BF16's 2^-8: 1 - 1e-4 is nearer 1 than the next
        // number down (half the gap: 2.4e-4, 2.0e-3), so every update rounds back to 1.
        CHECK(w.value[2].back() == 1.0);
        CHECK(w.value[3].back() == 1.0);
        // TF32 has FP16's mantissa: stuck as well.
        CHECK(w.value[1].back() == 1.0);
    }

    TEST_CASE("a real batch's gradients: every parameter has one - and the random stand-in says why") {
        const BatchGradients g = measure_batch_gradients(nullptr, "no data set in this test", 8, 1, 7);
        REQUIRE(g.ok);
        CHECK(g.pictures == "8 random pictures (no data set in this test)");
        CHECK(g.gradients.size() ==
              static_cast<std::size_t>(make_model(g.model_spec, {1, 28, 28}, 10).parameter_count));
        CHECK(g.loss > 0.0);
        const CastCounts c = cast_counts(g.gradients, FpFormat::Fp16, 1.0);
        CHECK(c.total == static_cast<std::int64_t>(g.gradients.size()));
        CHECK(c.normal > 0);
        // The gradients between layers: counted, with the histogram the panel draws.
        CHECK(g.activations.values > 0);
        CHECK(g.activations.fp16.size() == 25);
        CHECK(g.activations.histogram.zeros + g.activations.fp16[0].nonzero() == doctest::Approx(g.activations.values));
        // The loss-scaling step's sentence: the gradients between layers fall off FP16 first.
        const CastCounts between = g.activations.fp16[0];
        CHECK((between.lost + between.subnormal) / between.nonzero() > (c.lost + c.subnormal) / c.nonzero());
        // The lesson's own batch where Fashion-MNIST is installed (the eleventh of 64, as the view takes).
        Dataset fashion;
        try {
            fashion = load_dataset(kFashionMnistDir, 64 * 11);
        } catch (const std::exception&) {
        }
        if (fashion.train.count > 0) {
            const BatchGradients real = measure_batch_gradients(&fashion, "", 64, 10, 1);
            REQUIRE(real.ok);
            const CastCounts w = cast_counts(real.gradients, FpFormat::Fp16, 1.0), b = real.activations.fp16[0];
            CHECK((b.lost + b.subnormal) / b.nonzero() > (w.lost + w.subnormal) / w.nonzero());
        }
        // Stopped before the first batch: nothing, and says so.
        const BatchGradients stopped = measure_batch_gradients(nullptr, "x", 8, 3, 7, [] { return false; });
        CHECK_FALSE(stopped.ok);
        CHECK(stopped.error == "cancelled");
    }
}

TEST_SUITE("train") {
    TEST_CASE("the gradients prompt: bands of percent read from the choices - the answer from the batch") {
        std::vector<float> g(100, 1.0f);
        for (int i = 0; i < 12; ++i) g[static_cast<std::size_t>(i)] = std::ldexp(1.0f, -20);  // subnormal in FP16
        for (int i = 12; i < 15; ++i) g[static_cast<std::size_t>(i)] = std::ldexp(1.0f, -30);  // lost
        g[99] = 0.0f;  // exactly 0: not counted either way
        BatchGradients batch;
        batch.ok = true;
        batch.gradients = g;
        const std::vector<std::string> choices = {"less than 1 %", "1 to 20 %", "more than 20 %"};
        CHECK(gradient_reveal_problem("gradients-thinned:fp16", choices).empty());
        const GradientAnswer a = answer_gradient_prompt("gradients-thinned:fp16", choices, batch);
        REQUIRE(a.ok);
        CHECK(a.percent == doctest::Approx(100.0 * 15 / 99));
        CHECK(a.best_choice == 1);
        CHECK(a.text.find("turns 3 into 0 and keeps 12 only as subnormals") != std::string::npos);
        const GradientAnswer b = answer_gradient_prompt("gradients-thinned:bf16", choices, batch);
        CHECK(b.best_choice == 0);  // BF16 keeps them all
        // Choices that name no band, an unknown format, and no gradients: sentences, no answer.
        CHECK(gradient_reveal_problem("gradients-thinned:fp16", {"a few"}).find("names no band of percent") != std::string::npos);
        CHECK_FALSE(answer_gradient_prompt("gradients-thinned:fp8", choices, batch).ok);
        CHECK_FALSE(answer_gradient_prompt("gradients-thinned:fp16", choices, BatchGradients{}).ok);
    }
}

TEST_SUITE("train") {
    TEST_CASE("the gradients between layers: the loss's own at the top - counted under every loss scale") {
        const ModelDesc model = make_model(kDefaultModelSpec, {1, 28, 28}, 10);
        constexpr std::int64_t n = 4;
        std::vector<float> images(static_cast<std::size_t>(n * 28 * 28));
        for (std::size_t i = 0; i < images.size(); ++i) images[i] = static_cast<float>((i * 37) % 256) / 255.0f;
        const std::uint8_t labels[n] = {3, 0, 9, 3};
        for (const char* name : {"cpu-scalar", "cpu-parallel"}) {
            CAPTURE(name);
            std::unique_ptr<TrainEngine> engine = make_train_engine(name);
            REQUIRE(engine);
            engine->keep_activation_gradients(true);
            engine->setup(model, init_params(model, 5), n);
            engine->forward(images.data(), n);
            engine->backward(labels);
            const std::vector<float> kept = engine->activation_gradients();
            std::int64_t expected = 0;
            for (const Layer& l : model.layers)
                if (l.has_params()) expected += n * l.out.size();
            REQUIRE(static_cast<std::int64_t>(kept.size()) == expected);
            // The last layer's: the mean loss's gradient, (softmax - one-hot) / n per picture: only the
            // label's entry negative, each picture's ten summing to 0.
            const float* top = kept.data() + kept.size() - n * 10;
            for (std::int64_t m = 0; m < n; ++m) {
                double sum = 0;
                for (int k = 0; k < 10; ++k) {
                    const float v = top[m * 10 + k];
                    sum += v;
                    CHECK((v < 0) == (k == labels[m]));
                    CHECK(std::fabs(v) <= 1.0f / n);
                }
                CHECK(std::fabs(sum) < 1e-6);
            }
            // Counted under each scale exactly as one cast would count them.
            const ScaledGradientCounts s = count_scaled_gradients(kept, 24);
            CHECK(s.values == expected);
            REQUIRE(s.fp16.size() == 25);
            for (int e : {0, 7, 24}) {
                const CastCounts c = cast_counts(kept, FpFormat::Fp16, std::ldexp(1.0, e));
                CHECK(s.fp16[static_cast<std::size_t>(e)].lost == c.lost);
                CHECK(s.fp16[static_cast<std::size_t>(e)].subnormal == c.subnormal);
                CHECK(s.fp16[static_cast<std::size_t>(e)].overflow == c.overflow);
                CHECK(s.bf16[static_cast<std::size_t>(e)].normal == cast_counts(kept, FpFormat::Bf16, std::ldexp(1.0, e)).normal);
            }
            CHECK(s.largest_safe_fp16_scale == largest_safe_scale(kept, FpFormat::Fp16));
        }
        // An engine asked for what it does not keep says so.
        std::unique_ptr<TrainEngine> onednn = make_train_engine("cpu-onednn");
        if (onednn) CHECK_THROWS_WITH_AS(onednn->keep_activation_gradients(true),
                                         doctest::Contains("does not keep the gradients between layers"), core::InputError);
    }
}
