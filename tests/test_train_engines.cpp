// Training engines (core/train/engine.h) on whole models: cpu-scalar's gradient of the mean loss
// against finite differences through every layer at once; cpu-parallel's forward and backward
// against cpu-scalar's (stated tolerance below); a few steps on a fixed seed reduce the loss; and a
// short run on a small synthetic subset gets well above chance.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "io/image_io.h"
#include "train/engine.h"
#include "train/step_bench.h"
#include "train/trainer.h"

using namespace gpulab;
using namespace gpulab::train;

namespace {

// A learnable toy data set: class c is a bright 4x4 square at one of 10 places, on noise.
ImageSet toy_images(std::int64_t count, std::int64_t size, unsigned seed) {
    ImageSet s;
    s.count = count;
    s.rows = s.cols = size;
    s.pixels.resize(static_cast<std::size_t>(count * size * size));
    s.labels.resize(static_cast<std::size_t>(count));
    std::mt19937 rng(seed);
    for (std::int64_t i = 0; i < count; ++i) {
        const int label = static_cast<int>(rng() % 10);
        s.labels[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(label);
        std::uint8_t* px = s.pixels.data() + i * size * size;
        for (std::int64_t j = 0; j < size * size; ++j) px[j] = static_cast<std::uint8_t>(rng() % 60);
        const std::int64_t y0 = 2 + (label / 5) * (size / 2), x0 = 2 + (label % 5) * ((size - 6) / 5);
        for (std::int64_t y = y0; y < y0 + 4; ++y)
            for (std::int64_t x = x0; x < x0 + 4; ++x) px[y * size + x] = 230;
    }
    return s;
}

std::vector<float> batch_floats(const ImageSet& s, std::int64_t n, std::vector<std::uint8_t>& labels) {
    std::vector<std::int64_t> idx(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) idx[static_cast<std::size_t>(i)] = i;
    std::vector<float> images(static_cast<std::size_t>(n * s.rows * s.cols));
    labels.resize(static_cast<std::size_t>(n));
    gather_batch(s, idx.data(), n, images.data(), labels.data());
    return images;
}

double max_abs(const std::vector<float>& v) {
    double m = 0.0;
    for (float x : v) m = std::max(m, static_cast<double>(std::abs(x)));
    return m;
}

}  // namespace

TEST_SUITE("train") {

TEST_CASE("cpu-scalar: the whole model's gradient matches finite differences of the mean loss") {
    const ModelDesc m = make_model("conv3,pool,conv4,dense8,dense10", {1, 12, 12});
    const ImageSet data = toy_images(3, 12, 1);
    std::vector<std::uint8_t> labels;
    const std::vector<float> images = batch_floats(data, 3, labels);
    auto engine = make_train_engine("cpu-scalar");
    std::vector<float> params = init_params(m, 5);
    for (std::size_t i = 0; i < params.size(); ++i) params[i] += 0.01f * static_cast<float>(i % 7);  // biases too
    engine->setup(m, params, 3);
    engine->forward(images.data(), 3);
    engine->backward(labels.data());
    const std::vector<float> grad = engine->gradients();
    int checked = 0;
    for (std::size_t i = 0; i < params.size(); i += 11) {
        const float h = 1e-2f;
        std::vector<float> p = params;
        p[i] += h;
        engine->setup(m, p, 3);
        engine->forward(images.data(), 3);
        const double up = engine->backward(labels.data()).loss;
        p[i] -= 2 * h;
        engine->setup(m, p, 3);
        engine->forward(images.data(), 3);
        const double down = engine->backward(labels.data()).loss;
        const double numeric = (up - down) / (2.0 * h);
        INFO("parameter " << i << ": analytic " << grad[i] << ", numeric " << numeric);
        CHECK(std::abs(grad[i] - numeric) <= 2e-2 * std::abs(numeric) + 1e-3);
        ++checked;
    }
    CHECK(checked > 20);
}

TEST_CASE("cpu-parallel and cpu-onednn train like cpu-scalar: forward - backward and steps within tolerance") {
    // Tolerance: logits and loss within 1e-4 relative; each gradient within 1e-3 relative plus 1e-4
    // of the largest gradient (sums of thousands of products in another order).
    const ModelDesc m = make_model(kDefaultModelSpec, {1, 28, 28});
    const ImageSet data = toy_images(6, 28, 2);
    std::vector<std::uint8_t> labels;
    const std::vector<float> images = batch_floats(data, 6, labels);
    const std::vector<float> params = init_params(m, 7);
  for (const char* other : {"cpu-parallel", "cpu-onednn"}) {
    CAPTURE(other);
    auto scalar = make_train_engine("cpu-scalar");
    auto parallel = make_train_engine(other);
    if (!parallel->availability().ok) {
        MESSAGE(other << " not available: " << parallel->availability().reason);
        continue;
    }
    for (auto* e : {scalar.get(), parallel.get()}) e->setup(m, params, 6);
    for (int step = 0; step < 3; ++step) {
        CAPTURE(step);
        scalar->forward(images.data(), 6);
        parallel->forward(images.data(), 6);
        const std::vector<float> l1 = scalar->logits(), l2 = parallel->logits();
        REQUIRE(l1.size() == 60);
        for (std::size_t i = 0; i < l1.size(); ++i) CHECK(l2[i] == doctest::Approx(l1[i]).epsilon(1e-4).scale(1.0));
        const BatchResult r1 = scalar->backward(labels.data()), r2 = parallel->backward(labels.data());
        CHECK(r2.loss == doctest::Approx(r1.loss).epsilon(1e-4));
        CHECK(r2.correct == r1.correct);
        const std::vector<float> g1 = scalar->gradients(), g2 = parallel->gradients();
        const double floor = 1e-4 * max_abs(g1);
        int bad = 0;
        for (std::size_t i = 0; i < g1.size(); ++i)
            if (std::abs(g2[i] - g1[i]) > 1e-3 * std::abs(g1[i]) + floor) ++bad;
        CHECK(bad == 0);
        scalar->step(Sgd{});
        parallel->step(Sgd{});
    }
    const std::vector<LayerTime> t = parallel->layer_times();
    CHECK(t.size() == m.layers.size());
    CHECK(t[0].forward_ns > 0);
  }
}

TEST_CASE("a few SGD steps on a fixed seed reduce the loss - on every CPU engine") {
    const ModelDesc m = make_model(kDefaultModelSpec, {1, 28, 28});
    const ImageSet data = toy_images(16, 28, 3);
    std::vector<std::uint8_t> labels;
    const std::vector<float> images = batch_floats(data, 16, labels);
    for (const char* name : {"cpu-scalar", "cpu-parallel", "cpu-onednn"}) {
        CAPTURE(name);
        auto e = make_train_engine(name);
        if (!e->availability().ok) continue;
        e->setup(m, init_params(m, 11), 16);
        double first = 0.0, last = 0.0;
        for (int step = 0; step < 5; ++step) {
            e->forward(images.data(), 16);
            last = e->backward(labels.data()).loss;
            if (step == 0) first = last;
            e->step(Sgd{0.05f, 0.9f});
        }
        CHECK(last < 0.8 * first);
    }
}

TEST_CASE("a short cpu-parallel run on a small subset is well above chance - and deterministic") {
    Dataset d;
    d.train = toy_images(600, 28, 4);
    d.test = toy_images(200, 28, 5);
    TrainConfig config;
    config.batch = 32;
    config.seed = 3;
    auto e = make_train_engine("cpu-parallel");
    Trainer t(*e, d, config);
    const EpochReport r = t.run_epoch();
    CHECK(r.images == 600);
    CHECK(r.batches == 19);
    CHECK(r.test_accuracy > 0.5);  // chance is 0.1
    CHECK(r.images_per_second() > 0.0);
    // The same seed gives the same batch order and weights: the same first-epoch loss.
    auto e2 = make_train_engine("cpu-parallel");
    Trainer t2(*e2, d, config);
    CHECK(t2.run_epoch().loss == doctest::Approx(r.loss).epsilon(1e-6));
    // A callback that says stop ends the epoch early.
    auto e3 = make_train_engine("cpu-parallel");
    Trainer t3(*e3, d, config);
    const EpochReport stopped = t3.run_epoch([](const BatchProgress& p) { return p.batch < 3; });
    CHECK(stopped.stopped);
    CHECK(stopped.batches == 3);
}

TEST_CASE("batch orders are seeded permutations: engines refuse bad batches with a sentence") {
    const std::vector<std::int64_t> a = batch_order(1000, 1, 1), b = batch_order(1000, 1, 1), c = batch_order(1000, 1, 2);
    CHECK(a == b);
    CHECK(a != c);
    std::vector<std::int64_t> sorted = a;
    std::sort(sorted.begin(), sorted.end());
    for (std::int64_t i = 0; i < 1000; ++i) CHECK(sorted[static_cast<std::size_t>(i)] == i);

    const ModelDesc m = make_model(kDefaultModelSpec, {1, 28, 28});
    auto e = make_train_engine("cpu-parallel");
    CHECK_THROWS_WITH_AS(e->setup(m, std::vector<float>(5), 4), doctest::Contains("do not fit the model"),
                         core::InputError);
    e->setup(m, init_params(m, 1), 4);
    std::vector<float> images(5 * 784, 0.5f);
    CHECK_THROWS_WITH_AS(e->forward(images.data(), 5), doctest::Contains("does not fit the engine's 4"),
                         core::InputError);
    CHECK(make_train_engine("cuda-magic") == nullptr);
}

}  // TEST_SUITE

TEST_SUITE("train") {

TEST_CASE("training steps are timed after warm-up - with images per second from the median") {
    const ModelDesc m = make_model("conv4,pool,dense10", {1, 12, 12});
    auto e = make_train_engine("cpu-parallel");
    StepBenchConfig config;
    config.batch = 4;
    config.warmup = 1;
    config.min_samples = config.max_samples = 5;
    const StepBenchResult r = bench_train_steps(*e, m, config);
    CHECK(r.step.samples == 5);
    CHECK(r.step.min_ns <= r.step.median_ns);
    CHECK(r.images_per_second == doctest::Approx(4e9 / static_cast<double>(r.step.median_ns)));
    CHECK(r.gflops > 0.0);
}

}  // TEST_SUITE
