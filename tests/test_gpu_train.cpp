// Our CUDA training kernels (kernels/train/*.cuh) against cpu-scalar's layer functions
// (core/train/cpu_scalar_layers.cpp), one layer at a time, through the same table of functions
// (train::CpuLayerOps), then the whole training engine (kernels/train/kernel_train_engine.h)
// against the cpu-scalar engine. Each engine test body runs on cuda-sim (the same kernel source on
// the SIMT simulator: every machine, never skipped) and on cuda-kernel (a GPU; elsewhere it prints
// "SKIPPED: ..." and returns). The per-layer cases run on cuda-sim.
//
// Tolerances (pass when |gpu - ref| <= abs + rel * |ref| for every element), stated per case:
//   loss      per-batch mean within 1e-5 relative; dlogits within 1e-6 absolute (values are
//             probabilities / n, the kernel sums 10 exponentials in float where the reference
//             uses double: a few ulp of 1).
//   SGD       w and v within 1e-6 absolute plus 1e-6 relative (an FMA rounds once where the
//             reference rounds twice).
//   conv, dense  1e-5 absolute + 1e-5 relative for outputs and input gradients (sums of up to
//             a few hundred products of values in [-1, 1] in another order, or fused); 1e-4 + 1e-4
//             for weight and bias gradients (float sums of up to 600 terms where the reference
//             sums in double). A missing or misplaced term moves a value by ~0.1.
//   ReLU, max pooling  exact: no arithmetic besides comparisons (ties included: pooling routes
//             the gradient to the same first maximum).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "gpu_test_support.h"
#include "gpu_train_engines.h"
#include "io/image_io.h"  // core::InputError
#include "train/cpu_layers.h"
#include "train/engine.h"
#include "train/loss_scaling.h"
#include "train/sim_train_layers.h"

using namespace gpulab;
using namespace gpulab::train;

namespace {

std::vector<float> uniform(std::size_t count, float lo, float hi, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> d(lo, hi);
    std::vector<float> v(count);
    for (float& x : v) x = d(rng);
    return v;
}

// Counts elements outside abs + rel * |ref| and reports the first few.
int count_outside(const std::vector<float>& got, const std::vector<float>& ref, double abs, double rel) {
    REQUIRE(got.size() == ref.size());
    int bad = 0;
    for (std::size_t i = 0; i < ref.size(); ++i) {
        if (!(std::abs(static_cast<double>(got[i]) - ref[i]) <= abs + rel * std::abs(static_cast<double>(ref[i])))) {
            if (bad < 5) MESSAGE("element " << i << ": got " << got[i] << ", reference " << ref[i]);
            ++bad;
        }
    }
    return bad;
}

double max_abs(const std::vector<float>& v) {
    double m = 0.0;
    for (float x : v) m = std::max(m, static_cast<double>(std::abs(x)));
    return m;
}

// A batch of images in [0, 1] and labels 0..9.
void make_batch(const ModelDesc& m, std::int64_t n, unsigned seed, std::vector<float>& images,
                std::vector<std::uint8_t>& labels) {
    images = uniform(static_cast<std::size_t>(n * m.input.size()), 0.0f, 1.0f, seed);
    labels.resize(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i)
        labels[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>((i * 3 + seed) % 10);
}

// The engine-level comparison: `engine` and cpu-scalar from the same parameters, two forward /
// backward / step rounds. Tolerances: logits within 1e-4 relative (scale 1); the mean loss within
// 1e-5 relative; the correct count equal; each gradient within 1e-3 relative plus 1e-4 of the
// largest gradient (float sums in other orders through every layer, where the reference keeps
// weight gradients in double); the parameters after each step within 1e-5 absolute + 1e-5
// relative.
void check_engine_like_scalar(TrainEngine& engine, const std::string& spec, Shape3 input, std::int64_t n) {
    const ModelDesc m = make_model(spec, input);
    std::vector<float> images;
    std::vector<std::uint8_t> labels;
    make_batch(m, n, 21, images, labels);
    const std::vector<float> params = init_params(m, 3);
    auto scalar = make_train_engine("cpu-scalar");
    scalar->setup(m, params, n);
    engine.setup(m, params, n);
    for (int round = 0; round < 2; ++round) {
        CAPTURE(round);
        scalar->forward(images.data(), n);
        engine.forward(images.data(), n);
        const std::vector<float> l1 = scalar->logits(), l2 = engine.logits();
        REQUIRE(l2.size() == static_cast<std::size_t>(n * m.classes));
        for (std::size_t i = 0; i < l1.size(); ++i) CHECK(l2[i] == doctest::Approx(l1[i]).epsilon(1e-4).scale(1.0));
        const BatchResult r1 = scalar->backward(labels.data()), r2 = engine.backward(labels.data());
        CHECK(r2.loss == doctest::Approx(r1.loss).epsilon(1e-5));
        CHECK(r2.correct == r1.correct);
        const std::vector<float> g1 = scalar->gradients(), g2 = engine.gradients();
        CHECK(count_outside(g2, g1, 1e-4 * max_abs(g1), 1e-3) == 0);
        scalar->step(Sgd{0.05f, 0.9f});
        engine.step(Sgd{0.05f, 0.9f});
        CHECK(count_outside(engine.params(), scalar->params(), 1e-5, 1e-5) == 0);
    }
    const std::vector<LayerTime> t = engine.layer_times();
    CHECK(t.size() == m.layers.size());
}

// [SECTION] one body per layer group, run with the cuda-sim table (every machine) and the
// cuda-kernel table (a GPU)

void check_loss(const CpuLayerOps* ops) {
    const CpuLayerOps& ref = scalar_layer_ops();
    CAPTURE(ops->name);
    for (const std::int64_t n : {1, 7, 300}) {
        CAPTURE(n);
        const std::int64_t classes = 10;
        std::vector<float> logits = uniform(static_cast<std::size_t>(n * classes), -8.0f, 8.0f, 3);
        std::vector<std::uint8_t> labels(static_cast<std::size_t>(n));
        for (std::int64_t m = 0; m < n; ++m) labels[m] = static_cast<std::uint8_t>((m * 7 + 3) % classes);
        if (n > 1) logits[classes + labels[1]] = 100.0f;  // image 1 is right, with a logit that would overflow exp
        std::vector<float> d_ref(logits.size()), d_gpu(logits.size());
        const BatchResult r = ref.softmax_cross_entropy(n, classes, logits.data(), labels.data(), d_ref.data());
        const BatchResult g = ops->softmax_cross_entropy(n, classes, logits.data(), labels.data(), d_gpu.data());
        CHECK(g.loss == doctest::Approx(r.loss).epsilon(1e-5));
        CHECK(g.correct == r.correct);
        CHECK(count_outside(d_gpu, d_ref, 1e-6, 0.0) == 0);
    }
}

void check_sgd(const CpuLayerOps* ops) {
    const CpuLayerOps& ref = scalar_layer_ops();
    CAPTURE(ops->name);
    for (const std::int64_t count : {1, 255, 257, 5000}) {
        CAPTURE(count);
        const auto n = static_cast<std::size_t>(count);
        std::vector<float> w1 = uniform(n, -1.0f, 1.0f, 1), v1 = uniform(n, -0.1f, 0.1f, 2);
        const std::vector<float> g = uniform(n, -2.0f, 2.0f, 4);
        std::vector<float> w2 = w1, v2 = v1;
        const Sgd sgd{0.05f, 0.9f};
        ref.sgd_momentum(count, sgd, w1.data(), v1.data(), g.data());
        ops->sgd_momentum(count, sgd, w2.data(), v2.data(), g.data());
        CHECK(count_outside(v2, v1, 1e-6, 1e-6) == 0);
        CHECK(count_outside(w2, w1, 1e-6, 1e-6) == 0);
    }
}

void check_conv(const CpuLayerOps* ops) {
    const CpuLayerOps& ref = scalar_layer_ops();
    CAPTURE(ops->name);
    // N, C, H, W, K, R: one image one channel; a batch with channels and a non-square input;
    // the lesson's first layer shape on a small image.
    for (const ConvShape s :
         {ConvShape{1, 1, 5, 5, 2, 3}, ConvShape{2, 3, 7, 9, 4, 3}, ConvShape{3, 1, 12, 12, 5, 3}}) {
        CAPTURE(s.n);
        CAPTURE(s.c);
        CAPTURE(s.h);
        const auto in = static_cast<std::size_t>(s.n * s.c * s.h * s.w);
        const auto out = static_cast<std::size_t>(s.n * s.k * s.p() * s.q());
        const auto taps = static_cast<std::size_t>(s.k * s.c * s.r * s.r);
        const std::vector<float> x = uniform(in, -1.0f, 1.0f, 5), w = uniform(taps, -1.0f, 1.0f, 6),
                                 b = uniform(static_cast<std::size_t>(s.k), -1.0f, 1.0f, 7),
                                 dy = uniform(out, -1.0f, 1.0f, 8);
        std::vector<float> y1(out), y2(out);
        ref.conv_forward(s, x.data(), w.data(), b.data(), y1.data());
        ops->conv_forward(s, x.data(), w.data(), b.data(), y2.data());
        CHECK(count_outside(y2, y1, 1e-5, 1e-5) == 0);
        std::vector<float> dx1(in), dx2(in, 7.0f);  // 7: every element must be written
        ref.conv_backward_data(s, dy.data(), w.data(), dx1.data());
        ops->conv_backward_data(s, dy.data(), w.data(), dx2.data());
        CHECK(count_outside(dx2, dx1, 1e-5, 1e-5) == 0);
        std::vector<float> dw1(taps), dw2(taps), db1(static_cast<std::size_t>(s.k)), db2(db1.size());
        ref.conv_backward_weights(s, x.data(), dy.data(), dw1.data(), db1.data());
        ops->conv_backward_weights(s, x.data(), dy.data(), dw2.data(), db2.data());
        CHECK(count_outside(dw2, dw1, 1e-4, 1e-4) == 0);
        CHECK(count_outside(db2, db1, 1e-4, 1e-4) == 0);
    }
}

void check_relu_pool(const CpuLayerOps* ops) {
    const CpuLayerOps& ref = scalar_layer_ops();
    CAPTURE(ops->name);
    const std::int64_t count = 1000;
    std::vector<float> x = uniform(static_cast<std::size_t>(count), -1.0f, 1.0f, 9);
    x[3] = 0.0f;  // the boundary: ReLU passes no gradient at 0
    const std::vector<float> dy = uniform(x.size(), -1.0f, 1.0f, 10);
    std::vector<float> y1(x.size()), y2(x.size()), dx1(x.size()), dx2(x.size());
    ref.relu_forward(count, x.data(), y1.data());
    ops->relu_forward(count, x.data(), y2.data());
    CHECK(y2 == y1);
    ref.relu_backward(count, y1.data(), dy.data(), dx1.data());
    ops->relu_backward(count, y1.data(), dy.data(), dx2.data());
    CHECK(dx2 == dx1);

    // Values from a set of 3, so many windows tie; 7 x 5 planes drop the last row and column.
    // A 4 x 4 plane of zeros (every window a four-way tie: the gradient goes to the top left).
    for (const auto& [h, w] : {std::pair<std::int64_t, std::int64_t>{7, 5}, {8, 8}, {2, 3}, {4, 4}}) {
        CAPTURE(h);
        CAPTURE(w);
        const std::int64_t planes = 6;
        std::vector<float> px = uniform(static_cast<std::size_t>(planes * h * w), 0.0f, 3.0f, 11);
        for (float& v : px) v = h == 4 ? 0.0f : std::floor(v);
        const auto pooled = static_cast<std::size_t>(planes * (h / 2) * (w / 2));
        const std::vector<float> pdy = uniform(pooled, -1.0f, 1.0f, 12);
        std::vector<float> py1(pooled), py2(pooled), pdx1(px.size()), pdx2(px.size(), 7.0f);
        ref.maxpool_forward(planes, h, w, px.data(), py1.data());
        ops->maxpool_forward(planes, h, w, px.data(), py2.data());
        CHECK(py2 == py1);
        ref.maxpool_backward(planes, h, w, px.data(), pdy.data(), pdx1.data());
        ops->maxpool_backward(planes, h, w, px.data(), pdy.data(), pdx2.data());
        CHECK(pdx2 == pdx1);
    }
}

void check_dense(const CpuLayerOps* ops) {
    const CpuLayerOps& ref = scalar_layer_ops();
    CAPTURE(ops->name);
    // n, in, out: none a multiple of 16, so every tile edge is partial; one with depth < 16.
    for (const auto& [n, in, out] :
         {std::tuple<std::int64_t, std::int64_t, std::int64_t>{3, 37, 19}, {17, 5, 33}, {1, 64, 10}}) {
        CAPTURE(n);
        CAPTURE(in);
        CAPTURE(out);
        const std::vector<float> x = uniform(static_cast<std::size_t>(n * in), -1.0f, 1.0f, 13),
                                 w = uniform(static_cast<std::size_t>(out * in), -1.0f, 1.0f, 14),
                                 b = uniform(static_cast<std::size_t>(out), -1.0f, 1.0f, 15),
                                 dy = uniform(static_cast<std::size_t>(n * out), -1.0f, 1.0f, 16);
        std::vector<float> y1(dy.size()), y2(dy.size());
        ref.dense_forward(n, in, out, x.data(), w.data(), b.data(), y1.data());
        ops->dense_forward(n, in, out, x.data(), w.data(), b.data(), y2.data());
        CHECK(count_outside(y2, y1, 1e-5, 1e-5) == 0);
        std::vector<float> dx1(x.size()), dx2(x.size());
        ref.dense_backward_data(n, in, out, dy.data(), w.data(), dx1.data());
        ops->dense_backward_data(n, in, out, dy.data(), w.data(), dx2.data());
        CHECK(count_outside(dx2, dx1, 1e-5, 1e-5) == 0);
        std::vector<float> dw1(w.size()), dw2(w.size()), db1(b.size()), db2(b.size());
        ref.dense_backward_weights(n, in, out, x.data(), dy.data(), dw1.data(), db1.data());
        ops->dense_backward_weights(n, in, out, x.data(), dy.data(), dw2.data(), db2.data());
        CHECK(count_outside(dw2, dw1, 1e-4, 1e-4) == 0);
        CHECK(count_outside(db2, db1, 1e-4, 1e-4) == 0);
    }
}

}  // namespace

TEST_SUITE("gpu-train") {
    TEST_CASE("cuda-sim: softmax cross-entropy kernels - per-image loss - correct count and (softmax - onehot) / n") {
        check_loss(&sim::sim_train_layer_ops());
    }

    TEST_CASE("cuda-sim: SGD-with-momentum kernel - v = m*v - lr*g - w += v - on every parameter") {
        check_sgd(&sim::sim_train_layer_ops());
    }

    TEST_CASE("cuda-sim: loss scaling kernels - x times the scale exactly as core's scale_in_place - one flag for any infinity or NaN") {
        // 70,000 values: more than one block of 256, so the grid-stride loop and several writers of
        // the flag are exercised.
        std::vector<float> x = uniform(70000, -3.0f, 3.0f, 41);
        x[5] = 1e-30f;  // tiny: scaled exactly, as everything by a power of two
        std::vector<float> ref = x;
        train::scale_in_place(ref.data(), static_cast<std::int64_t>(ref.size()), 65536.0f);
        sim::sim_scale_in_place(x.data(), static_cast<std::int64_t>(x.size()), 65536.0f);
        CHECK(x == ref);  // x * 2^16 is exact: bit for bit
        sim::sim_scale_in_place(x.data(), static_cast<std::int64_t>(x.size()), 1.0f / 65536.0f);
        train::scale_in_place(ref.data(), static_cast<std::int64_t>(ref.size()), 1.0f / 65536.0f);
        CHECK(x == ref);
        const auto n = static_cast<std::int64_t>(x.size());
        CHECK(sim::sim_all_finite(x.data(), n));
        CHECK(train::all_finite(x.data(), n));
        x[n - 1] = std::numeric_limits<float>::max();  // the largest finite value is finite
        CHECK(sim::sim_all_finite(x.data(), n));
        for (const float bad : {std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                                std::numeric_limits<float>::quiet_NaN()}) {
            std::vector<float> y = x;
            y[69999 - 300] = bad;
            y[17] = bad;
            CHECK_FALSE(sim::sim_all_finite(y.data(), n));
            CHECK_FALSE(train::all_finite(y.data(), n));
        }
    }

    TEST_CASE("cuda-sim: convolution kernels - forward - backward-data - backward-weights and bias gradient") {
        check_conv(&sim::sim_train_layer_ops());
    }

    TEST_CASE("cuda-sim: ReLU and 2x2 max-pooling kernels - forward and backward - exactly - odd sizes and ties") {
        check_relu_pool(&sim::sim_train_layer_ops());
    }

    // The same kernels on their 64-bit index path, which real use takes only past 2^31 elements
    // (kernels/train/train_launch.h, narrow_index): forced here on small tensors (issue 30).
    TEST_CASE("cuda-sim with 64-bit indices forced: convolution kernels equal cpu-scalar") {
        check_conv(&sim::sim_train_layer_ops_wide());
    }

    TEST_CASE("cuda-sim with 64-bit indices forced: ReLU and max-pooling kernels equal cpu-scalar - ties included") {
        check_relu_pool(&sim::sim_train_layer_ops_wide());
    }

    TEST_CASE(
        "cuda-sim: dense kernels (tiled matrix multiply) - forward - backward-data - backward-weights - partial tiles") {
        check_dense(&sim::sim_train_layer_ops());
    }

    TEST_CASE("cuda-kernel: every training kernel equals cpu-scalar (loss - SGD - convolution - ReLU - pooling - dense)") {
        if (!testing::gpu_ready()) return;
        const CpuLayerOps* ops = gpu::cuda_train_layer_ops();
        REQUIRE(ops != nullptr);
        check_loss(ops);
        check_sgd(ops);
        check_conv(ops);
        check_relu_pool(ops);
        check_dense(ops);
    }

    // [SECTION] the engines

    TEST_CASE("cuda-sim training engine equals cpu-scalar: logits - loss - gradients and steps (tiny model - batch 3)") {
        auto e = gpu::make_gpu_train_engine("cuda-sim");
        REQUIRE(e != nullptr);
        CHECK(e->kind() == core::BackendKind::Simulated);
        CHECK(e->availability().ok);
        check_engine_like_scalar(*e, "conv4,pool,dense10", {1, 8, 8}, 3);
        // Every layer kind twice, ReLU between dense layers, an odd pooled size (7x7 -> 3x3).
        check_engine_like_scalar(*e, "conv3,pool,conv4,dense8,dense10", {1, 16, 16}, 2);
    }

    TEST_CASE("cuda-sim training engine equals cpu-scalar on the lesson's model (28x28 - batch 2)") {
        auto e = gpu::make_gpu_train_engine("cuda-sim");
        check_engine_like_scalar(*e, kDefaultModelSpec, {1, 28, 28}, 2);
    }

    TEST_CASE("cuda-kernel training engine equals cpu-scalar: logits - loss - gradients and steps") {
        if (!testing::gpu_ready()) return;
        auto e = gpu::make_gpu_train_engine("cuda-kernel");
        REQUIRE(e != nullptr);
        CHECK(e->kind() == core::BackendKind::Gpu);
        REQUIRE(e->availability().ok);
        check_engine_like_scalar(*e, "conv4,pool,dense10", {1, 8, 8}, 3);
        check_engine_like_scalar(*e, kDefaultModelSpec, {1, 28, 28}, 16);
        for (const LayerTime& t : e->layer_times()) CHECK(t.forward_ns > 0);
    }

    TEST_CASE("cuda-sim: a few SGD steps on a fixed batch reduce the loss") {
        auto e = gpu::make_gpu_train_engine("cuda-sim");
        const ModelDesc m = make_model("conv4,pool,dense10", {1, 8, 8});
        std::vector<float> images;
        std::vector<std::uint8_t> labels;
        make_batch(m, 8, 5, images, labels);
        e->setup(m, init_params(m, 9), 8);
        double first = 0.0, last = 0.0;
        for (int step = 0; step < 6; ++step) {
            e->forward(images.data(), 8);
            last = e->backward(labels.data()).loss;
            if (step == 0) first = last;
            e->step(Sgd{0.05f, 0.9f});
        }
        CHECK(last < first);
    }

    TEST_CASE("GPU training engines refuse bad input with a sentence") {
        auto e = gpu::make_gpu_train_engine("cuda-sim");
        const ModelDesc m = make_model("conv4,pool,dense10", {1, 8, 8});
        CHECK_THROWS_WITH_AS(e->forward(nullptr, 1), doctest::Contains("setup() must come before training"),
                             std::logic_error);
        CHECK_THROWS_WITH_AS(e->setup(m, std::vector<float>(5), 2), doctest::Contains("do not fit the model"),
                             core::InputError);
        e->setup(m, init_params(m, 1), 2);
        std::vector<float> images;
        std::vector<std::uint8_t> labels;
        make_batch(m, 3, 1, images, labels);
        CHECK_THROWS_WITH_AS(e->forward(images.data(), 3), "a batch of 3 images does not fit the engine's 2",
                             core::InputError);
        CHECK_THROWS_WITH_AS(e->backward(labels.data()), "backward needs a forward pass first", core::InputError);
        e->forward(images.data(), 2);
        labels[1] = 10;
        CHECK_THROWS_WITH_AS(e->backward(labels.data()), "label 10 is not one of the model's 10 classes",
                             core::InputError);

        // All three are always listed; cuda-kernel says why it cannot run where it cannot, and refuses setup.
        const TrainEngineList all = gpu::make_gpu_train_engines();
        REQUIRE(all.size() == 3);
        CHECK(all[0]->name() == "cuda-kernel");
        CHECK(all[1]->name() == "cudnn");
        CHECK(all[2]->name() == "cuda-sim");
        CHECK(gpu::make_gpu_train_engine("cuda-nothing") == nullptr);
        if (!all[0]->availability().ok) {
            const std::string reason = all[0]->availability().reason;
            CHECK(!reason.empty());
            CHECK_THROWS_WITH_AS(all[0]->setup(m, init_params(m, 1), 2), doctest::Contains(reason.c_str()),
                                 std::runtime_error);
        }
    }

}  // TEST_SUITE
