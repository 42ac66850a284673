// The cudnn training engine (kernels/train/cudnn_train_engine.h) against cpu-scalar on a CUDA device:
// forward, backward and three SGD steps on the article's model, a smaller batch after a larger one
// (new descriptors and a second Find), a few steps that reduce the loss, TF32 (issue 29)
// against cpu-scalar's TF32 rounding model, and FP16 mixed precision against cpu-scalar's FP16
// model, with an overflow that makes the loss scaler skip an update. Skipped, with the
// reason, where there is no device or no cuDNN/cuBLAS: the host side is in
// tests/test_cudnn_train_plan.cpp.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "train/cudnn_train_engine.h"
#include "gpu_backends.h"
#include "gpu_test_support.h"
#include "io/image_io.h"
#include "train/engine.h"
#include "train/model.h"

using namespace gpulab;
using namespace gpulab::train;

namespace {

// Prints the skip line CTest looks for when cudnn cannot run here.
std::unique_ptr<TrainEngine> cudnn_engine_or_skip() {
    if (!testing::gpu_ready()) return nullptr;
    auto e = gpu::make_cudnn_train_engine();
    if (!e->availability().ok) {
        std::cout << "SKIPPED: cudnn not available (" << e->availability().reason << ")\n";
        return nullptr;
    }
    return e;
}

// Images in [0, 1] with a bright square whose place depends on the label, so the loss can fall.
// Without ties (issue 30, item 3): which of several equal maxima cuDNN's pooling backward routes the
// gradient to is not documented, while cpu-scalar takes the first in row order. A uniform square
// would give equal convolution outputs, hence tied positive maxima, and two valid but different
// gradients; so every pixel differs (a tie at 0 is harmless: ReLU's backward zeroes it either way).
void toy_batch(std::int64_t n, unsigned seed, std::vector<float>& images, std::vector<std::uint8_t>& labels) {
    std::mt19937 rng(seed);
    images.assign(static_cast<std::size_t>(n * 784), 0.0f);
    labels.resize(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) {
        const int label = static_cast<int>(rng() % 10);
        labels[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(label);
        float* px = images.data() + i * 784;
        for (int j = 0; j < 784; ++j) px[j] = static_cast<float>(rng() % 60000) / 255000.0f;
        const int y0 = 2 + (label / 5) * 14, x0 = 2 + (label % 5) * 4;
        for (int y = y0; y < y0 + 4; ++y)
            for (int x = x0; x < x0 + 4; ++x) px[y * 28 + x] = 0.9f + 0.003f * static_cast<float>((y - y0) * 4 + (x - x0));
    }
}

double max_abs(const std::vector<float>& v) {
    double m = 0.0;
    for (float x : v) m = std::max(m, static_cast<double>(std::abs(x)));
    return m;
}

}  // namespace

TEST_SUITE("gpu") {

TEST_CASE("cudnn trains like cpu-scalar: forward - backward and steps within tolerance") {
    auto gpu_engine = cudnn_engine_or_skip();
    if (!gpu_engine) return;
    // The tolerance of cpu-parallel and cpu-onednn's test (tests/test_train_engines.cpp): logits and
    // loss within 1e-4 relative; each gradient within 1e-3 relative plus 1e-4 of the largest.
    const ModelDesc m = make_model(kDefaultModelSpec, {1, 28, 28});
    std::vector<float> images;
    std::vector<std::uint8_t> labels;
    toy_batch(6, 2, images, labels);
    const std::vector<float> params = init_params(m, 7);
    auto scalar = make_train_engine("cpu-scalar");
    for (auto* e : {scalar.get(), gpu_engine.get()}) e->setup(m, params, 8);
    for (int step = 0; step < 3; ++step) {
        CAPTURE(step);
        const std::int64_t n = step == 2 ? 4 : 6;  // the last step on a smaller batch
        scalar->forward(images.data(), n);
        gpu_engine->forward(images.data(), n);
        const std::vector<float> l1 = scalar->logits(), l2 = gpu_engine->logits();
        REQUIRE(l2.size() == l1.size());
        for (std::size_t i = 0; i < l1.size(); ++i) CHECK(l2[i] == doctest::Approx(l1[i]).epsilon(1e-4).scale(1.0));
        const BatchResult r1 = scalar->backward(labels.data()), r2 = gpu_engine->backward(labels.data());
        CHECK(r2.loss == doctest::Approx(r1.loss).epsilon(1e-4));
        CHECK(r2.correct == r1.correct);
        const std::vector<float> g1 = scalar->gradients(), g2 = gpu_engine->gradients();
        REQUIRE(g2.size() == g1.size());
        const double floor = 1e-4 * max_abs(g1);
        int bad = 0;
        for (std::size_t i = 0; i < g1.size(); ++i)
            if (std::abs(g2[i] - g1[i]) > 1e-3 * std::abs(g1[i]) + floor) ++bad;
        CHECK(bad == 0);
        scalar->step(Sgd{});
        gpu_engine->step(Sgd{});
    }
    const std::vector<float> p1 = scalar->params(), p2 = gpu_engine->params();
    for (std::size_t i = 0; i < p1.size(); i += 97) CHECK(p2[i] == doctest::Approx(p1[i]).epsilon(1e-3).scale(1e-3));
    const std::vector<LayerTime> t = gpu_engine->layer_times();
    CHECK(t.size() == m.layers.size());
    CHECK(t[0].forward_ns > 0);
    CHECK(t[0].backward_ns > 0);
    CHECK(gpu_engine->implementation().find("conv1: forward") != std::string::npos);
    // Fused conv + bias + ReLU, or the sentence saying cuDNN refused it (issue 30).
    CHECK(gpu_engine->implementation().find("bias and ReLU") != std::string::npos);
    // A forward with no backward after it (evaluation): its times are read by layer_times().
    gpu_engine->forward(images.data(), 4);
    CHECK(gpu_engine->layer_times()[0].forward_ns > 0);
}

TEST_CASE("cudnn: a few SGD steps reduce the loss - and a batch over the engine's size is refused") {
    auto e = cudnn_engine_or_skip();
    if (!e) return;
    const ModelDesc m = make_model(kDefaultModelSpec, {1, 28, 28});
    std::vector<float> images;
    std::vector<std::uint8_t> labels;
    toy_batch(16, 3, images, labels);
    e->setup(m, init_params(m, 11), 16);
    double first = 0.0, last = 0.0;
    for (int step = 0; step < 5; ++step) {
        e->forward(images.data(), 16);
        last = e->backward(labels.data()).loss;
        if (step == 0) first = last;
        e->step(Sgd{0.05f, 0.9f});
    }
    CHECK(last < 0.8 * first);
    CHECK_THROWS_WITH_AS(e->forward(images.data(), 17), doctest::Contains("does not fit the engine's 16"),
                         core::InputError);
}

// Three training steps of cpu-scalar's model and cudnn side by side on a batch of 8, in a reduced
// precision: logits and loss within 1e-2 relative, gradients within 2e-2 relative plus 2e-3 of the
// largest (a NaN counts as outside), then every 97th weight within 1e-2 (each case reasons why).
void three_steps_within_reduced_tolerance(TrainEngine& scalar, TrainEngine& gpu_engine, const std::vector<float>& images,
                                          const std::vector<std::uint8_t>& labels) {
    for (int step = 0; step < 3; ++step) {
        CAPTURE(step);
        scalar.forward(images.data(), 8);
        gpu_engine.forward(images.data(), 8);
        const std::vector<float> l1 = scalar.logits(), l2 = gpu_engine.logits();
        REQUIRE(l2.size() == l1.size());
        for (std::size_t i = 0; i < l1.size(); ++i) CHECK(l2[i] == doctest::Approx(l1[i]).epsilon(1e-2).scale(1.0));
        const BatchResult r1 = scalar.backward(labels.data()), r2 = gpu_engine.backward(labels.data());
        CHECK(r2.loss == doctest::Approx(r1.loss).epsilon(1e-2));
        const std::vector<float> g1 = scalar.gradients(), g2 = gpu_engine.gradients();
        REQUIRE(g2.size() == g1.size());
        const double floor = 2e-3 * max_abs(g1);
        int bad = 0;
        for (std::size_t i = 0; i < g1.size(); ++i)
            if (!(std::abs(g2[i] - g1[i]) <= 2e-2 * std::abs(g1[i]) + floor)) ++bad;
        CHECK(bad == 0);
        scalar.step(Sgd{});
        gpu_engine.step(Sgd{});
    }
    const std::vector<float> p1 = scalar.params(), p2 = gpu_engine.params();
    for (std::size_t i = 0; i < p1.size(); i += 97) CHECK(p2[i] == doctest::Approx(p1[i]).epsilon(1e-2).scale(1e-2));
}

TEST_CASE("cudnn in TF32 trains like cpu-scalar's TF32 model - within a TF32 tolerance - and says what it ran") {
    auto gpu_engine = cudnn_engine_or_skip();
    if (!gpu_engine) return;
    // Tolerance: TF32 keeps 11 significant bits (unit roundoff u = 2^-11, about 4.9e-4). cpu-scalar
    // rounds each product's inputs to nearest; how a tensor core converts FP32 inputs is not
    // documented (nearest or truncation: up to one TF32 step, 2u, apart), and cuDNN keeps an FMA
    // algorithm for a direction where Find timed that fastest, so any product may differ from the
    // model by up to about (2u + 2u) = 2e-3 of the sum of its terms' magnitudes. Over the model's
    // five product layers, with cancellation in the sums, that allows logits and loss within 1e-2
    // relative (plus 1e-2 absolute for logits near 0) and gradients within 2e-2 relative plus 2e-3
    // of the largest: ten to twenty times the FP32 test's bounds above, still far below what a
    // wrong layer gives.
    const ModelDesc m = make_model(kDefaultModelSpec, {1, 28, 28});
    std::vector<float> images;
    std::vector<std::uint8_t> labels;
    toy_batch(8, 5, images, labels);
    const std::vector<float> params = init_params(m, 9);
    auto scalar = make_train_engine("cpu-scalar");
    for (auto* e : {scalar.get(), gpu_engine.get()}) e->set_compute_precision(ComputePrecision::Tf32);
    for (auto* e : {scalar.get(), gpu_engine.get()}) e->setup(m, params, 8);
    const gpu::GpuProbe& device = gpu::probe();
    const std::string precision = gpu_engine->precision();
    INFO(precision);
    if (device.cc_major >= 8) {
        CHECK(precision.rfind("TF32 permitted on compute capability " + std::to_string(device.cc_major) + ".", 0) == 0);
        CHECK(gpu_engine->implementation().find("sgemm (TF32 tensor-op math permitted)") != std::string::npos);
    } else {
        CHECK(precision.rfind("FP32 (FMA math: no TF32): TF32 was asked for", 0) == 0);
    }
    three_steps_within_reduced_tolerance(*scalar, *gpu_engine, images, labels);
    // Back to FP32 for the next setup: FMA math again, exactly as before TF32 was asked for.
    gpu_engine->set_compute_precision(ComputePrecision::Fp32);
    gpu_engine->setup(m, params, 8);
    CHECK(gpu_engine->precision().rfind("FP32", 0) == 0);
    CHECK(gpu_engine->implementation().find("sgemm (FP32)") != std::string::npos);
}

TEST_CASE("cudnn in FP16 mixed trains like cpu-scalar's FP16 model - within an FP16 tolerance - and says what it ran") {
    auto gpu_engine = cudnn_engine_or_skip();
    if (!gpu_engine) return;
    // Tolerance: the TF32 case's, for the same reasons. FP16 keeps 11 significant bits, as TF32 does
    // (unit roundoff u = 2^-11), so one conversion costs the same relative error; cpu-scalar rounds
    // each product's inputs to nearest, a tensor core's conversion is not documented (up to one FP16
    // step, 2u, apart), cuDNN keeps a non-converting algorithm for a direction where Find offered no
    // converting one, and CUBLAS_COMPUTE_32F_FAST_16F may convert to TF32 instead (the same 10
    // mantissa bits). Where FP16 differs from TF32 is its range: the scaled loss gradient is at most
    // 2^16 / 8 = 8,192 here (batch 8, |softmax - onehot| <= 1), the activations and weights a few
    // units, all far below FP16's 65,504, so nothing overflows and the scale stays 2^16 on both
    // sides; values below 2^-14 become subnormals and keep an absolute error of up to 2^-25 instead
    // of a relative one, which the floor of 2e-3 of the largest gradient covers. Both sides divide
    // the gradients by the same power of two, exactly.
    const ModelDesc m = make_model(kDefaultModelSpec, {1, 28, 28});
    std::vector<float> images;
    std::vector<std::uint8_t> labels;
    toy_batch(8, 5, images, labels);
    const std::vector<float> params = init_params(m, 9);
    auto scalar = make_train_engine("cpu-scalar");
    for (auto* e : {scalar.get(), gpu_engine.get()}) e->set_compute_precision(ComputePrecision::Fp16Mixed);
    for (auto* e : {scalar.get(), gpu_engine.get()}) e->setup(m, params, 8);
    const gpu::GpuProbe& device = gpu::probe();
    const bool fp16 = device.cc_major >= 7;
    INFO(gpu_engine->precision());
    if (fp16) {
        CHECK(gpu_engine->precision().rfind("FP16 permitted on compute capability " + std::to_string(device.cc_major) + ".", 0) == 0);
        CHECK(gpu_engine->implementation().find("CUBLAS_COMPUTE_32F_FAST_16F") != std::string::npos);
    } else {
        CHECK(gpu_engine->precision().rfind("FP32 (FMA math: no FP16): FP16 mixed was asked for", 0) == 0);
    }
    three_steps_within_reduced_tolerance(*scalar, *gpu_engine, images, labels);
    // Three good steps: no overflow, so the scale is still 2^16 and nothing was skipped.
    if (fp16) CHECK(gpu_engine->precision().find("loss scale 2^16 (dynamic), 0 of 3 updates skipped") != std::string::npos);
    // Back to FP32 for the next setup: exactly the FP32 path again.
    gpu_engine->set_compute_precision(ComputePrecision::Fp32);
    gpu_engine->setup(m, params, 8);
    CHECK(gpu_engine->precision().rfind("FP32", 0) == 0);
    CHECK(gpu_engine->implementation().find("sgemm (FP32)") != std::string::npos);
}

TEST_CASE("cudnn in FP16 mixed: a scaled gradient that overflows skips the update and halves the loss scale") {
    auto e = cudnn_engine_or_skip();
    if (!e) return;
    if (gpu::probe().cc_major < 7) {
        MESSAGE("compute capability below 7.0: FP16 mixed runs the FP32 path, without loss scaling");
        return;
    }
    // An overflow that happens whatever the libraries choose (FP16, TF32 or FP32 products): dense64's
    // weights 0 and its bias 1e35, so dense10 sees the input 1e35 (ReLU passes it) for one image;
    // dense10's weights and bias 0, so its logits are 0 where the product is computed in FP32 or
    // TF32, and the loss gradient is softmax - onehot = 0.1 or -0.9. dense10's weight gradient is
    // then dlogit * 1e35, finite without scaling (at most 9e34), but times the scale 2^16 at least
    // 0.1 * 65,536 * 1e35 = 6.6e38, beyond FP32's 3.4e38: infinite. (Where cuBLAS converts 1e35 to
    // FP16 instead, the input is already infinite, 0 * infinity gives NaN logits and NaN gradients:
    // not finite either.) So the first step must be skipped, the parameters stay exactly as they
    // were, and the scale halves to 2^15.
    const ModelDesc m = make_model(kDefaultModelSpec, {1, 28, 28});
    std::vector<float> params = init_params(m, 3);
    std::vector<const Layer*> dense;
    for (const Layer& l : m.layers)
        if (l.kind == LayerKind::Dense) dense.push_back(&l);
    REQUIRE(dense.size() == 2);
    const auto fill = [&params](std::int64_t offset, std::int64_t count, float value) {
        std::fill(params.begin() + offset, params.begin() + offset + count, value);
    };
    fill(dense[0]->weight_offset, dense[0]->weight_count, 0.0f);
    fill(dense[0]->bias_offset, dense[0]->bias_count, 1e35f);
    fill(dense[1]->weight_offset, dense[1]->weight_count, 0.0f);
    fill(dense[1]->bias_offset, dense[1]->bias_count, 0.0f);
    std::vector<float> images;
    std::vector<std::uint8_t> labels;
    toy_batch(1, 7, images, labels);
    e->set_compute_precision(ComputePrecision::Fp16Mixed);
    e->setup(m, params, 1);
    CHECK(e->precision().find("loss scale 2^16 (dynamic), 0 of 0 updates skipped") != std::string::npos);
    e->forward(images.data(), 1);
    e->backward(labels.data());
    const std::vector<float> g = e->gradients();
    CHECK_FALSE(std::all_of(g.begin(), g.end(), [](float x) { return std::isfinite(x); }));
    e->step(Sgd{});
    INFO(e->precision());
    CHECK(e->precision().find("loss scale 2^15 (dynamic), 1 of 1 updates skipped") != std::string::npos);
    CHECK(e->params() == params);  // not applied: bit for bit as before
}

}  // TEST_SUITE("gpu")
