// The training lesson's evaluation pieces (core/train/evaluation.h, core/train/picture.h): the
// confusion matrix's counts and accuracies, softmax confidence, evaluation of a trained engine
// against its own logits, and a dropped picture scaled to the model's 28x28 input (inverted when
// its background is light, aspect kept, bad shapes refused with a sentence).
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "io/image_io.h"
#include "train/engine.h"
#include "train/evaluation.h"
#include "train/picture.h"
#include "train/trainer.h"

using namespace gpulab;
using namespace gpulab::train;

TEST_SUITE("train") {

TEST_CASE("confusion matrix: counts - accuracy - per-class recall - the most confused pair") {
    ConfusionMatrix m(3);
    m.add(0, 0);
    m.add(0, 0);
    m.add(0, 1);
    m.add(1, 1);
    m.add(2, 0);
    m.add(2, 0);
    m.add(5, 0);   // out of range: ignored
    m.add(0, -1);  // out of range: ignored
    CHECK(m.total() == 6);
    CHECK(m.count(0, 0) == 2);
    CHECK(m.count(2, 0) == 2);
    CHECK(m.count(9, 9) == 0);
    CHECK(m.row_total(0) == 3);
    CHECK(m.accuracy() == doctest::Approx(3.0 / 6.0));
    CHECK(m.class_accuracy(0) == doctest::Approx(2.0 / 3.0));
    CHECK(m.class_accuracy(2) == 0.0);
    int t = 0, p = 0;
    m.most_confused(t, p);
    CHECK(t == 2);
    CHECK(p == 0);
    ConfusionMatrix empty(10);
    CHECK(empty.accuracy() == 0.0);
    empty.most_confused(t, p);
    CHECK(t == -1);
}

TEST_CASE("softmax confidence: sums to one - safe with large logits - picks the largest") {
    const float logits[4] = {1.0f, 3.0f, 2.0f, -1.0f};
    const std::vector<float> p = softmax(logits, 4);
    double sum = 0.0;
    for (float v : p) sum += v;
    CHECK(sum == doctest::Approx(1.0));
    const Prediction r = predict_from_logits(logits, 4);
    CHECK(r.predicted == 1);
    CHECK(r.confidence == doctest::Approx(std::exp(3.0) / (std::exp(1.0) + std::exp(3.0) + std::exp(2.0) + std::exp(-1.0))));
    const float huge[2] = {1000.0f, 999.0f};  // exp(1000) overflows without the shift
    const Prediction h = predict_from_logits(huge, 2);
    CHECK(h.predicted == 0);
    CHECK(std::isfinite(h.confidence));
    CHECK(h.confidence == doctest::Approx(1.0 / (1.0 + std::exp(-1.0))));
}

TEST_CASE("evaluate: the confusion matrix agrees with the engine's own logits - batch by batch") {
    ImageSet set;
    set.count = 37;
    set.rows = set.cols = 12;
    for (std::int64_t i = 0; i < set.count * 144; ++i) set.pixels.push_back(static_cast<std::uint8_t>((i * 37) % 251));
    for (std::int64_t i = 0; i < set.count; ++i) set.labels.push_back(static_cast<std::uint8_t>(i % 10));
    const ModelDesc model = make_model("conv4,pool,dense10", {1, 12, 12});
    auto engine = make_train_engine("cpu-scalar");
    engine->setup(model, init_params(model, 7), 8);
    const Evaluation e = evaluate(*engine, set, 10, 8, 0, 5);
    CHECK(e.confusion.total() == 37);
    REQUIRE(e.first.size() == 5);
    // The first image again, alone: the same prediction and confidence.
    std::vector<float> one(144);
    std::uint8_t label = 0;
    const std::int64_t idx = 0;
    gather_batch(set, &idx, 1, one.data(), &label);
    engine->forward(one.data(), 1);
    const Prediction alone = predict_from_logits(engine->logits().data(), 10);
    CHECK(e.first[0].predicted == alone.predicted);
    CHECK(e.first[0].confidence == doctest::Approx(alone.confidence).epsilon(1e-5));
    CHECK(e.first[4].index == 4);
    CHECK(e.first[4].truth == 4);
    // A count limits the images evaluated.
    CHECK(evaluate(*engine, set, 10, 8, 10).confusion.total() == 10);
}

TEST_CASE("a dropped picture becomes 28x28 grey: light backgrounds inverted - aspect kept - bad shapes refused") {
    // A dark 20x10 bar on a white 40x80 page (H=40, W=80).
    core::Tensor page = core::Tensor::zeros({40, 80});
    for (float& v : page.data) v = 1.0f;
    for (std::int64_t y = 10; y < 30; ++y)
        for (std::int64_t x = 30; x < 50; ++x) page.data[static_cast<std::size_t>(y * 80 + x)] = 0.0f;
    const ModelPicture m = picture_for_model(page);
    CHECK(m.size == 28);
    REQUIRE(m.pixels.size() == 28 * 28);
    CHECK(m.inverted);
    // Wider than tall: scaled by 28/80, 14 rows of picture centred, rows above and below background.
    CHECK(m.pixels[0] == 0);
    CHECK(m.pixels[13 * 28 + 14] == 255);  // the bar, now light
    CHECK(m.pixels[13 * 28 + 2] == 0);     // the page, now dark
    CHECK(m.note.find("inverted") != std::string::npos);
    // A light object on a dark background stays as it is.
    core::Tensor dark = core::Tensor::zeros({28, 28});
    dark.data[14 * 28 + 14] = 1.0f;
    const ModelPicture d = picture_for_model(dark);
    CHECK_FALSE(d.inverted);
    CHECK(d.pixels[14 * 28 + 14] == 255);
    CHECK_THROWS_WITH_AS(picture_for_model(core::Tensor::zeros({3, 4, 4})),
                         doctest::Contains("one grey plane"), core::InputError);
}

}  // TEST_SUITE
