// BF16 and TF32 training on the CPU engines (core/train/compute_precision.h, precision_race.h): BF16
// mixed precision and TF32 against cpu-scalar's FP32 within a bound derived from the rounding
// (below), bit for bit against FP32 fed the rounded numbers; BF16 weights losing updates that FP32
// master weights keep; TF32 on cpu-scalar and cpu-parallel alike, a few steps close to FP32; bad
// precision names and FP32-only engines refused with a sentence; the lesson's race of three
// precisions on a small synthetic set, deterministic.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "gpu_train_engines.h"
#include "io/image_io.h"
#include "measure/format.h"
#include "ops/fp_formats.h"
#include "train/engine.h"
#include "train/precision_race.h"
#include "toy_pictures.h"
#include "train/trainer.h"

using namespace gpulab;
using namespace gpulab::train;

namespace {

// Pictures of random bytes as the trainer feeds them (each byte / 255) and random labels.
std::vector<float> random_images(std::int64_t n, std::int64_t px, std::vector<std::uint8_t>& labels, unsigned seed) {
    std::mt19937 rng(seed);
    std::vector<float> images(static_cast<std::size_t>(n * px));
    for (float& v : images) v = static_cast<float>(rng() % 256) / 255.0f;
    labels.resize(static_cast<std::size_t>(n));
    for (auto& l : labels) l = static_cast<std::uint8_t>(rng() % 10);
    return images;
}

bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

std::vector<double> softmax(const float* l, int classes) {
    std::vector<double> p(static_cast<std::size_t>(classes));
    const double top = *std::max_element(l, l + classes);
    double sum = 0.0;
    for (int c = 0; c < classes; ++c) sum += p[static_cast<std::size_t>(c)] = std::exp(l[c] - top);
    for (double& v : p) v /= sum;
    return p;
}

}  // namespace

TEST_SUITE("train") {

TEST_CASE("BF16 mixed and TF32 on one dense layer stay within the rounding bound of cpu-scalar's FP32 - forward and backward") {
    // The model y = W x + b (144 inputs, 10 outputs), 8 pictures. Mixed precision rounds x, W and the
    // incoming gradient dy to BF16 (unit roundoff u = 2^-8: 8 significant bits; TF32: u = 2^-11,
    // 11 significant bits, the same bound with its own u) and sums in FP32
    // (u32 = 2^-24; a sum of K terms is off by at most gamma_K = K u32 / (1 - K u32) of the sum of
    // their magnitudes, Higham 3.1). For one product |r(a) r(b) - ab| <= (2u + u^2) |a| |b|, so
    //   forward    |y_mixed - y_fp32| <= (2u + u^2) S + gamma_K ((1 + u)^2 S + |b|) + gamma_K (S + |b|),
    //              S = sum_i |W_oi| |x_i|, K = 145 (the bias is the 145th term);
    //   backward   dy = (softmax(y) - onehot) / n. With every logit of a picture off by at most d,
    //              each softmax probability p moves by at most p (e^(2d) - 1), so dy by
    //              e_dy = p (e^(2d) - 1) / n (plus 2^-24 of each for its own rounding to float); then
    //              |dW_mixed - dW_fp32| <= sum_m [(2u + u^2)(|dy| + e_dy) |x| + e_dy |x|] + the two sums' gamma_n,
    //              |db_mixed - db_fp32| <= sum_m [u (|dy| + e_dy) + e_dy] + gamma_n.
    const ModelDesc m = make_model("dense10", {1, 12, 12});
    REQUIRE(m.layers.size() == 1);
    const Layer& dense = m.layers[0];
    const std::int64_t n = 8, in = 144, out = 10;
    std::vector<std::uint8_t> labels;
    const std::vector<float> x = random_images(n, in, labels, 5);
    std::vector<float> params = init_params(m, 3);
    for (std::int64_t o = 0; o < out; ++o) params[static_cast<std::size_t>(dense.bias_offset + o)] = 0.01f * static_cast<float>(o - 4);
    const double u32 = std::ldexp(1.0, -24);
    const auto gamma = [&](double k) { return k * u32 / (1.0 - k * u32); };

    auto reference = make_train_engine("cpu-scalar");
    reference->setup(m, params, n);
    reference->forward(x.data(), n);
    const std::vector<float> ref_logits = reference->logits();
    reference->backward(labels.data());
    const std::vector<float> ref_grads = reference->gradients();

    struct Case {
        ComputePrecision p;
        int significant_bits;
        const char* label;
    };
    for (const Case& c : {Case{ComputePrecision::Bf16Mixed, 8, "BF16 products, FP32 master weights"},
                          Case{ComputePrecision::Tf32, 11,
                               "TF32 products (inputs rounded to 10 mantissa bits), FP32 sums and weights"}})
    for (const char* name : {"cpu-scalar", "cpu-parallel"}) {
        CAPTURE(name);
        CAPTURE(c.label);
        const double u = std::ldexp(1.0, -c.significant_bits);
        auto e = make_train_engine(name);
        e->set_compute_precision(c.p);
        CHECK(e->precision() == c.label);
        e->setup(m, params, n);
        e->forward(x.data(), n);
        const std::vector<float> logits = e->logits();
        std::vector<double> d(static_cast<std::size_t>(n), 0.0);
        int checked = 0;
        for (std::int64_t i = 0; i < n; ++i)
            for (std::int64_t o = 0; o < out; ++o) {
                double s = 0.0;
                for (std::int64_t k = 0; k < in; ++k)
                    s += std::abs(params[static_cast<std::size_t>(dense.weight_offset + o * in + k)]) * x[static_cast<std::size_t>(i * in + k)];
                const double b = std::abs(params[static_cast<std::size_t>(dense.bias_offset + o)]);
                const double bound = (2 * u + u * u) * s + gamma(145) * ((1 + u) * (1 + u) * s + b) + gamma(145) * (s + b);
                const double diff = std::abs(logits[static_cast<std::size_t>(i * out + o)] - ref_logits[static_cast<std::size_t>(i * out + o)]);
                d[static_cast<std::size_t>(i)] = std::max(d[static_cast<std::size_t>(i)], diff);
                CHECK(diff <= bound);
                // The rounding shows: BF16 (TF32) is not FP32 under another name.
                checked += diff > 0.0;
            }
        CHECK(checked > 0);
        e->backward(labels.data());
        const std::vector<float> grads = e->gradients();
        // dy of the FP32 run and the bound on how far the mixed run's dy lies from it.
        std::vector<double> dy(static_cast<std::size_t>(n * out)), e_dy(static_cast<std::size_t>(n * out));
        for (std::int64_t i = 0; i < n; ++i) {
            const std::vector<double> p = softmax(ref_logits.data() + i * out, static_cast<int>(out));
            for (std::int64_t o = 0; o < out; ++o) {
                const double pc = p[static_cast<std::size_t>(o)];
                const double g = (pc - (o == labels[static_cast<std::size_t>(i)] ? 1.0 : 0.0)) / static_cast<double>(n);
                dy[static_cast<std::size_t>(i * out + o)] = g;
                const double moved = pc * std::expm1(2.0 * d[static_cast<std::size_t>(i)]) / static_cast<double>(n);
                e_dy[static_cast<std::size_t>(i * out + o)] = moved + u32 * (2.0 * std::abs(g) + moved);
            }
        }
        int bad = 0;
        for (std::int64_t o = 0; o < out; ++o) {
            for (std::int64_t k = 0; k < in; ++k) {
                double bound = 0.0, s = 0.0;
                for (std::int64_t i = 0; i < n; ++i) {
                    const double xv = x[static_cast<std::size_t>(i * in + k)];
                    const double a = std::abs(dy[static_cast<std::size_t>(i * out + o)]), ea = e_dy[static_cast<std::size_t>(i * out + o)];
                    bound += (2 * u + u * u) * (a + ea) * xv + ea * xv;
                    s += (a + ea) * xv * (1 + u) * (1 + u);
                }
                bound += 2 * gamma(static_cast<double>(n)) * s;
                const std::size_t at = static_cast<std::size_t>(dense.weight_offset + o * in + k);
                bad += std::abs(grads[at] - ref_grads[at]) > bound;
            }
            double bound = 0.0, s = 0.0;
            for (std::int64_t i = 0; i < n; ++i) {
                const double a = std::abs(dy[static_cast<std::size_t>(i * out + o)]), ea = e_dy[static_cast<std::size_t>(i * out + o)];
                bound += u * (a + ea) + ea;
                s += (a + ea) * (1 + u);
            }
            bound += 2 * gamma(static_cast<double>(n)) * s;
            const std::size_t at = static_cast<std::size_t>(dense.bias_offset + o);
            bad += std::abs(grads[at] - ref_grads[at]) > bound;
        }
        CHECK(bad == 0);
    }
}

TEST_CASE("cpu-scalar in TF32 is cpu-scalar in FP32 fed TF32-rounded pictures and weights - bit for bit") {
    const ModelDesc m = make_model("dense10", {1, 12, 12});
    const Layer& dense = m.layers[0];
    std::vector<std::uint8_t> labels;
    std::vector<float> x = random_images(4, 144, labels, 10);
    const std::vector<float> params = init_params(m, 5);
    auto tf32 = make_train_engine("cpu-scalar");
    tf32->set_compute_precision(ComputePrecision::Tf32);
    tf32->setup(m, params, 4);
    tf32->forward(x.data(), 4);
    std::vector<float> rounded = params;  // weights rounded, biases not: they join the FP32 sum
    round_tf32_in_place(rounded.data() + dense.weight_offset, dense.weight_count);
    round_tf32_in_place(x.data(), static_cast<std::int64_t>(x.size()));
    auto plain = make_train_engine("cpu-scalar");
    plain->setup(m, rounded, 4);
    plain->forward(x.data(), 4);
    const std::vector<float> a = tf32->logits(), b = plain->logits();
    REQUIRE(a.size() == b.size());
    int differ = 0;
    for (std::size_t i = 0; i < a.size(); ++i) differ += !same_bits(a[i], b[i]);
    CHECK(differ == 0);
    // The rounding of a buffer is the one rounding of fp_formats.h: 10 mantissa bits kept, FP32's
    // exponent range (3.0e38 stays finite, unlike in FP16).
    std::vector<float> v = {0.1f, 1.0f + 1.0f / 2048.0f, -3.14159f, 1e-40f, 3.0e38f, 0.0f};
    std::vector<float> w = v;
    round_tf32_in_place(w.data(), static_cast<std::int64_t>(w.size()));
    for (std::size_t i = 0; i < v.size(); ++i) CHECK(same_bits(w[i], core::round_tf32(v[i])));
    CHECK(w[1] == 1.0f);  // 1 + 2^-11 is half a TF32 step (2^-10) above 1: a tie, to even
    CHECK(std::isfinite(w[4]));
    std::vector<float> p = v;
    round_product_inputs_in_place(ComputePrecision::Fp32, p.data(), static_cast<std::int64_t>(p.size()));
    for (std::size_t i = 0; i < v.size(); ++i) CHECK(same_bits(p[i], v[i]));
}

TEST_CASE("cpu-scalar in BF16 mixed is cpu-scalar in FP32 fed BF16-rounded pictures and weights - bit for bit") {
    // The forward pass of one layer: the only difference is where the rounding happens.
    const ModelDesc m = make_model("dense10", {1, 12, 12});
    const Layer& dense = m.layers[0];
    std::vector<std::uint8_t> labels;
    std::vector<float> x = random_images(4, 144, labels, 9);
    const std::vector<float> params = init_params(m, 4);
    auto mixed = make_train_engine("cpu-scalar");
    mixed->set_compute_precision(ComputePrecision::Bf16Mixed);
    mixed->setup(m, params, 4);
    mixed->forward(x.data(), 4);
    std::vector<float> rounded = params;  // weights rounded, biases not: they join the FP32 sum
    round_bf16_in_place(rounded.data() + dense.weight_offset, dense.weight_count);
    round_bf16_in_place(x.data(), static_cast<std::int64_t>(x.size()));
    auto plain = make_train_engine("cpu-scalar");
    plain->setup(m, rounded, 4);
    plain->forward(x.data(), 4);
    const std::vector<float> a = mixed->logits(), b = plain->logits();
    REQUIRE(a.size() == b.size());
    int differ = 0;
    for (std::size_t i = 0; i < a.size(); ++i) differ += !same_bits(a[i], b[i]);
    CHECK(differ == 0);
    // The rounding of a buffer is the one rounding of fp_formats.h.
    std::vector<float> v = {0.1f, 1.0f + 1.0f / 256.0f, -3.14159f, 1e-40f, 3.0e38f, 0.0f};
    std::vector<float> w = v;
    round_bf16_in_place(w.data(), static_cast<std::int64_t>(w.size()));
    for (std::size_t i = 0; i < v.size(); ++i) CHECK(same_bits(w[i], core::round_bf16(v[i])));
}

TEST_CASE("BF16 weights lose updates below half a BF16 step that FP32 master weights keep - counted exactly") {
    // Four weights of 1. Below 1 BF16 steps by 2^-8, so an update must reach 2^-9 (0.00195) to move
    // one. rate 0.01, no momentum: g = 0.01 gives updates of 1e-4 (lost), g = 1 gives 0.01 (kept),
    // g = 0 none.
    const Sgd sgd{0.01f, 0.0f};
    const std::vector<float> g = {0.01f, 0.01f, 1.0f, 0.0f};
    std::vector<float> wp(4, 1.0f), vp(4, 0.0f), wm(4, 1.0f), vm(4, 0.0f);
    UpdateCounts pure, mixed;
    for (int step = 0; step < 100; ++step) {
        sgd_step_counted(ComputePrecision::Bf16Pure, 4, sgd, wp.data(), vp.data(), g.data(), pure);
        sgd_step_counted(ComputePrecision::Bf16Mixed, 4, sgd, wm.data(), vm.data(), g.data(), mixed);
    }
    CHECK(pure.steps == 100);
    CHECK(pure.nonzero == 300);
    CHECK(pure.lost == 200);  // every small update of the first two weights
    CHECK(wp[0] == 1.0f);
    CHECK(wp[1] == 1.0f);
    CHECK(wp[2] < 0.1f);  // the large updates moved it down from 1
    CHECK(wp[3] == 1.0f);
    CHECK(mixed.nonzero == 300);
    CHECK(mixed.lost == 0);  // the FP32 master keeps every one
    CHECK(wm[0] == doctest::Approx(0.99).epsilon(1e-5));
    // Most of the small updates would not have moved a BF16 weight: the master adds them up until
    // they cross a BF16 step (0.99 lies two BF16 steps below 1).
    CHECK(mixed.below_bf16 >= 190);
    CHECK(mixed.below_bf16 < 200);
    // Pure BF16 weights hold only BF16 numbers.
    for (float w : wp) CHECK(same_bits(w, core::round_bf16(w)));
    // TF32 keeps FP32 weights, like mixed precision: nothing is lost, and the same master weights
    // end at the same place. Its copy is finer (a step of 2^-11 below 1), so fewer of the small
    // updates leave it unchanged than leave the BF16 copy unchanged: the 1e-4 steps of the first
    // two weights cross a TF32 step about every 4.9 updates.
    std::vector<float> wt(4, 1.0f), vt(4, 0.0f);
    UpdateCounts tf32;
    for (int step = 0; step < 100; ++step) sgd_step_counted(ComputePrecision::Tf32, 4, sgd, wt.data(), vt.data(), g.data(), tf32);
    CHECK(tf32.steps == 100);
    CHECK(tf32.nonzero == 300);
    CHECK(tf32.lost == 0);
    for (std::size_t i = 0; i < 4; ++i) CHECK(same_bits(wt[i], wm[i]));
    CHECK(tf32.below_bf16 > 100);
    CHECK(tf32.below_bf16 < mixed.below_bf16);
}

TEST_CASE("TF32 on cpu-scalar and cpu-parallel: the same training within a TF32 tolerance - close to FP32 but not FP32") {
    // Three SGD steps of the article's model on learnable toy pictures (noise with a bright square
    // placed by the label, as in tests/test_train_engines.cpp), cpu-scalar and cpu-parallel both in
    // TF32, and cpu-scalar in FP32 beside them.
    // cpu-scalar against cpu-parallel: the two round the same numbers to TF32 and differ only in
    // the order of FP32 sums (about 1e-6 relative), but where an activation lies that close to the
    // middle between two TF32 numbers, the two engines round it to neighbours, one TF32 step
    // (2^-10 relative) apart, and the next layer sums that in: here about 1 in 500 values. So the
    // FP32 engines' tolerance (1e-4) is too tight; the bounds below allow about two TF32 steps per
    // product layer (logits and loss 2e-3 relative, gradients 1e-2 relative plus 2e-3 of the
    // largest), 5 to 10 times what this data shows, and the two TF32 runs must stay closer to each
    // other than to FP32.
    const ModelDesc m = make_model(kDefaultModelSpec, {1, 28, 28});
    std::vector<std::uint8_t> labels;
    const std::vector<float> images = test::toy_pictures(6, labels, 21);
    const std::vector<float> params = init_params(m, 7);
    auto scalar = make_train_engine("cpu-scalar");
    auto parallel = make_train_engine("cpu-parallel");
    auto fp32 = make_train_engine("cpu-scalar");
    for (auto* e : {scalar.get(), parallel.get()}) e->set_compute_precision(ComputePrecision::Tf32);
    for (auto* e : {scalar.get(), parallel.get(), fp32.get()}) e->setup(m, params, 6);
    const auto max_diff = [](const std::vector<float>& a, const std::vector<float>& b) {
        double top = 0.0;
        for (std::size_t i = 0; i < a.size(); ++i) top = std::max(top, static_cast<double>(std::abs(a[i] - b[i])));
        return top;
    };
    const std::vector<float> zeros(params.size(), 0.0f);
    for (int step = 0; step < 3; ++step) {
        CAPTURE(step);
        // Each step starts cpu-parallel from cpu-scalar's weights: what the two engines compare is
        // one step's arithmetic. Left to run on, the two trajectories drift apart, since
        // weights one rounding apart can flip a max-pool or ReLU decision and send a gradient
        // elsewhere: under GPULAB_ISA=baseline (no FMA) this data drifted 0.0024 in 3 steps and
        // the third step's conv3 gradients differed by 40 % of their largest, while from the same
        // weights they agree to 1e-4 (issue 38: a test passed only on some instruction sets).
        if (step > 0)
            parallel->setup(m, scalar->params(), 6);
        for (auto* e : {scalar.get(), parallel.get(), fp32.get()}) e->forward(images.data(), 6);
        const std::vector<float> l1 = scalar->logits(), l2 = parallel->logits(), l0 = fp32->logits();
        REQUIRE(l1.size() == 60);
        for (std::size_t i = 0; i < l1.size(); ++i) {
            CHECK(l2[i] == doctest::Approx(l1[i]).epsilon(2e-3).scale(1.0));
            // TF32 against FP32: every product's inputs carry up to 2^-11 relative rounding.
            CHECK(l1[i] == doctest::Approx(l0[i]).epsilon(1e-2).scale(1.0));
        }
        // The rounding happened (TF32 is not FP32 under another name), and the two TF32 engines
        // are nearer each other than FP32.
        CHECK(max_diff(l1, l0) > 0.0);
        CHECK(max_diff(l1, l2) < max_diff(l1, l0));
        const BatchResult r1 = scalar->backward(labels.data()), r2 = parallel->backward(labels.data()),
                          r0 = fp32->backward(labels.data());
        CHECK(r2.loss == doctest::Approx(r1.loss).epsilon(2e-3));
        CHECK(r1.loss == doctest::Approx(r0.loss).epsilon(1e-2));
        const std::vector<float> g1 = scalar->gradients(), g2 = parallel->gradients(), g0 = fp32->gradients();
        const double floor = 2e-3 * max_diff(g1, zeros);
        int bad = 0;
        for (std::size_t i = 0; i < g1.size(); ++i)
            if (std::abs(g2[i] - g1[i]) > 1e-2 * std::abs(g1[i]) + floor) ++bad;
        CHECK(bad == 0);
        CHECK(max_diff(g1, g2) < max_diff(g1, g0));
        for (auto* e : {scalar.get(), parallel.get(), fp32.get()}) e->step(Sgd{});
    }
    // FP32 master weights, updated in FP32: after 3 steps the TF32 run's weights lie close to FP32's.
    // Measured against how far the weights moved: the TF32 run's three updates differ from FP32's
    // by a few per cent of them at most (the gradients differ by up to about 4 % of the largest).
    const std::vector<float> p1 = scalar->params(), p0 = fp32->params();
    const double moved = max_diff(p0, params), apart = max_diff(p1, p0);
    CHECK(apart > 0.0);
    CHECK(apart < 0.1 * moved);
    // Counted like BF16 mixed: FP32 weights keep the updates; the few lost are FP32's own (an update
    // below half an FP32 step of its weight), which FP32 would lose as well.
    const UpdateCounts counts = scalar->update_counts();
    CHECK(counts.steps == 3);
    CHECK(counts.nonzero > 0);
    CHECK(counts.lost * 1000 < counts.nonzero);
    CHECK(counts.below_bf16 > counts.lost);
}

TEST_CASE("a bad precision name or an FP32-only engine is refused with a sentence") {
    CHECK(parse_compute_precision("BF16-Mixed") == ComputePrecision::Bf16Mixed);
    CHECK(parse_compute_precision("fp32") == ComputePrecision::Fp32);
    CHECK(parse_compute_precision("TF32") == ComputePrecision::Tf32);
    CHECK_THROWS_WITH_AS(parse_compute_precision("bf8"),
                         doctest::Contains("'bf8' is not a compute precision: write fp32, tf32"), core::InputError);
    // Every id in the sentence, and every id parses back to its precision.
    for (const ComputePrecision p : kEveryComputePrecision) {
        CHECK(parse_compute_precision(precision_id(p)) == p);
        CHECK_THROWS_WITH_AS(parse_compute_precision("bf8"), doctest::Contains(precision_id(p)), core::InputError);
    }
    // The tensor lesson's race keeps its three BF16 lanes.
    CHECK(std::size(kAllComputePrecisions) == 3);
    CHECK(std::string(precision_short_label(ComputePrecision::Tf32)) == "TF32");
    CHECK_THROWS_WITH_AS(make_train_engine("cpu-onednn")->set_compute_precision(ComputePrecision::Tf32),
                         doctest::Contains("cpu-onednn multiplies in FP32 only: TF32 (TF32 products"), core::InputError);
    // Our GPU kernels' engines (cuda-kernel, built or not, and its simulated twin) refuse TF32 with
    // their own sentence, BF16 with the common one; no device is touched.
    for (const char* name : {"cuda-kernel", "cuda-sim"}) {
        CAPTURE(name);
        auto kernels = gpu::make_gpu_train_engine(name);
        REQUIRE(kernels);
        CHECK_NOTHROW(kernels->set_compute_precision(ComputePrecision::Fp32));
        const std::string tf32_refusal = std::string(name) + " runs our kernels, which multiply FP32 on the ordinary FP32 units";
        const std::string bf16_refusal = std::string(name) + " multiplies in FP32 only";
        CHECK_THROWS_WITH_AS(kernels->set_compute_precision(ComputePrecision::Tf32), doctest::Contains(tf32_refusal.c_str()),
                             core::InputError);
        CHECK_THROWS_WITH_AS(kernels->set_compute_precision(ComputePrecision::Bf16Mixed),
                             doctest::Contains(bf16_refusal.c_str()), core::InputError);
    }
    auto onednn = make_train_engine("cpu-onednn");
    CHECK_NOTHROW(onednn->set_compute_precision(ComputePrecision::Fp32));
    CHECK_THROWS_WITH_AS(onednn->set_compute_precision(ComputePrecision::Bf16Pure),
                         doctest::Contains("cpu-onednn multiplies in FP32 only"), core::InputError);
    Dataset d;
    d.train = synthetic_pictures(64, 1);
    PrecisionRaceConfig c;
    c.engine = "cpu-onednn";
    c.batch = 16;
    c.batches = 2;
    const PrecisionRace r = run_precision_race(d, "test", c);
    CHECK_FALSE(r.ok);
    CHECK(r.error.find("multiplies in FP32 only") != std::string::npos);
    c.engine = "cpu-nothing";
    CHECK(run_precision_race(d, "test", c).error.find("no CPU training engine is called 'cpu-nothing'") != std::string::npos);
}

TEST_CASE("the race of three precisions - same batches - BF16 weights lose updates - the same numbers twice") {
    Dataset d;
    d.train = synthetic_pictures(16 * 12, 2);
    d.test = synthetic_pictures(64, 3);
    PrecisionRaceConfig c;
    c.batch = 16;
    c.batches = 12;
    c.test_images = 64;
    float last_progress = 0.0f;
    const PrecisionRace r = run_precision_race(d, "synthetic", c, [&](float f) {
        last_progress = f;
        return true;
    });
    INFO(r.error);
    REQUIRE(r.ok);
    CHECK(last_progress > 0.9f);
    REQUIRE(r.lanes.size() == 3);
    const PrecisionLane& fp32 = *r.lane(ComputePrecision::Fp32);
    const PrecisionLane& mixed = *r.lane(ComputePrecision::Bf16Mixed);
    const PrecisionLane& pure = *r.lane(ComputePrecision::Bf16Pure);
    CHECK(fp32.label == "FP32");
    CHECK(pure.label == "BF16 products, BF16 weights");
    for (const PrecisionLane& l : r.lanes) {
        CHECK(l.batch_loss.size() == 12);
        CHECK(std::isfinite(l.last_loss(3)));
        // The same first batch from the same weights: only rounding apart.
        CHECK(std::abs(l.batch_loss[0] - fp32.batch_loss[0]) < 0.05);
    }
    CHECK(fp32.updates.nonzero == 0);  // FP32 is not counted
    CHECK(pure.updates.steps == 12);
    CHECK(pure.updates.lost > 0);
    CHECK(mixed.updates.lost * 100 < pure.updates.lost);
    CHECK(mixed.updates.below_bf16 > mixed.updates.lost);
    const PrecisionRace again = run_precision_race(d, "synthetic", c);
    REQUIRE(again.ok);
    for (std::size_t i = 0; i < 3; ++i) {
        CHECK(again.lanes[i].batch_loss == r.lanes[i].batch_loss);
        CHECK(again.lanes[i].updates.lost == r.lanes[i].updates.lost);
        CHECK(again.lanes[i].test_accuracy == r.lanes[i].test_accuracy);
    }
    // The prompt's answer and the sentences come from the counts.
    const PrecisionAnswer a = answer_updates_lost_prompt({"less than 1 %", "1 to 25 %", "more than 25 %"}, r);
    CHECK(a.ok);
    CHECK(a.percent == doctest::Approx(100.0 * pure.updates.lost_share()));
    CHECK(a.best_choice == (a.percent < 1 ? 0 : a.percent < 25 ? 1 : 2));
    CHECK(a.text.find(core::format_count(pure.updates.lost) + " of " + core::format_count(pure.updates.nonzero)) !=
          std::string::npos);
    const std::vector<std::string> lines = describe_precision_race(r);
    REQUIRE(lines.size() == 4);
    CHECK(lines[0].find("the same 12 batches of 16 (synthetic) on cpu-parallel") != std::string::npos);
    CHECK(lines[1].find("BF16 weights: " + core::format_count(pure.updates.lost) + " of ") == 0);
    // The times are the model's, said with the lanes' own numbers.
    CHECK(lines[3].find("a model of the arithmetic, not BF16 hardware") != std::string::npos);
    CHECK(lines[3].find(core::format_duration(r.lanes[0].train_ns)) != std::string::npos);
    // A stop request ends it with "cancelled", and the prompt then says nothing ran.
    const PrecisionRace stopped = run_precision_race(d, "synthetic", c, [](float f) { return f < 0.5f; });
    CHECK_FALSE(stopped.ok);
    CHECK(stopped.error == "cancelled");
    CHECK_FALSE(answer_updates_lost_prompt({"less than 1 %"}, stopped).ok);
    CHECK(describe_precision_race(stopped).empty());
}

}  // TEST_SUITE
