// The training lesson's knobs as cause and effect (core/train/learning_knobs.h): the learning rate's
// sane range and its refusal sentence, the trainer refusing a bad rate and following the live one,
// updates per epoch as ceil(images / batch), and one picture's cross-entropy -ln p(true class).
#include <doctest/doctest.h>

#include <atomic>
#include <cmath>
#include <memory>
#include <string>

#include "measure/format.h"
#include "io/image_io.h"
#include "lesson/lesson.h"
#include "train/article_figures.h"
#include "train/evaluation.h"
#include "train/learning_knobs.h"
#include "train/trainer.h"

using namespace gpulab;
using namespace gpulab::train;

namespace {

// Two 28x28 pictures (the default model needs 28x28), one per class, and one test picture.
Dataset tiny_data() {
    Dataset d;
    d.classes = 10;
    for (ImageSet* s : {&d.train, &d.test}) {
        s->rows = s->cols = 28;
        s->count = s == &d.train ? 2 : 1;
        for (std::int64_t i = 0; i < s->count; ++i) {
            for (int p = 0; p < 784; ++p) s->pixels.push_back(static_cast<std::uint8_t>((p * (i + 3)) % 251));
            s->labels.push_back(static_cast<std::uint8_t>(i * 7));
        }
    }
    return d;
}

// The parameters after one epoch (one batch of 2) on the plain loop.
std::vector<float> params_after_one_step(const TrainConfig& config) {
    const Dataset data = tiny_data();
    std::unique_ptr<TrainEngine> engine = make_train_engine("cpu-scalar");
    REQUIRE(engine);
    Trainer trainer(*engine, data, config);
    trainer.run_epoch();
    return engine->params();
}

}  // namespace

TEST_SUITE("train") {
    TEST_CASE("knobs: the learning rate's range is refused with a sentence") {
        CHECK(learning_rate_problem(0.05).empty());
        CHECK(learning_rate_problem(kMinLearningRate).empty());
        CHECK(learning_rate_problem(kMaxLearningRate).empty());
        for (double bad : {0.0, -0.1, 5e-5, 1.5, 100.0, std::nan("")}) {
            const std::string why = learning_rate_problem(bad);
            INFO(bad << ": " << why);
            CHECK_FALSE(why.empty());
        }
        CHECK(learning_rate_problem(1.5).find("0.0001 to 1") != std::string::npos);
        CHECK(learning_rate_problem(-0.1).find("positive") != std::string::npos);
        CHECK(format_learning_rate(0.05) == "0.05");
        CHECK(format_learning_rate(0.0003) == "0.0003");
        CHECK(format_learning_rate(1.0) == "1");
    }

    TEST_CASE("knobs: the trainer refuses a bad rate and follows the live one") {
        TrainConfig config;
        config.batch = 2;
        config.sgd.learning_rate = 5.0f;
        {
            const Dataset data = tiny_data();
            std::unique_ptr<TrainEngine> engine = make_train_engine("cpu-scalar");
            CHECK_THROWS_AS(Trainer(*engine, data, config), core::InputError);
        }
        config.sgd.learning_rate = 0.05f;
        const std::vector<float> at_005 = params_after_one_step(config);
        TrainConfig slow = config;
        slow.sgd.learning_rate = 0.01f;
        const std::vector<float> at_001 = params_after_one_step(slow);
        CHECK(at_005 != at_001);
        // Configured at 0.05 but the slider says 0.01 before the update: the update is 0.01's.
        TrainConfig live = config;
        auto rate = std::make_shared<std::atomic<float>>(0.01f);
        live.live_learning_rate = rate;
        CHECK(params_after_one_step(live) == at_001);
        // A live value out of range is ignored: the configured rate stays.
        rate->store(5.0f);
        CHECK(params_after_one_step(live) == at_005);
    }

    TEST_CASE("knobs: a bigger batch means fewer updates per epoch, ceil(images / batch)") {
        CHECK(updates_per_epoch(60000, 64) == 938);
        CHECK(updates_per_epoch(60000, 1024) == 59);
        CHECK(updates_per_epoch(64, 64) == 1);
        CHECK(updates_per_epoch(65, 64) == 2);
        CHECK(updates_per_epoch(0, 64) == 0);
        CHECK(updates_per_epoch(10, 0) == 10);
        CHECK(updates_per_epoch(ArticleFigures::kImages, ArticleFigures::kBatch) == ArticleFigures::steps_per_epoch());
        // The batch-size step's sentence is this arithmetic.
        const core::LessonCatalog cat = core::load_lessons({std::string(GPULAB_SOURCE_DIR) + "/lessons"});
        const core::Lesson* lesson = cat.find("train-small-cnn");
        REQUIRE(lesson != nullptr);
        bool found = false;
        for (const core::LessonStep& s : lesson->steps) {
            if (s.title != "Batch size") continue;
            found = true;
            INFO(s.body);
            CHECK(s.body.find(core::format_count(updates_per_epoch(60000, 64)) + " updates at batch 64") !=
                  std::string::npos);
            CHECK(s.body.find("only " + core::format_count(updates_per_epoch(60000, 1024)) + " at batch 1024") !=
                  std::string::npos);
        }
        CHECK(found);
    }

    TEST_CASE("knobs: one picture's cross-entropy is -ln p(true class), finite when confident and wrong") {
        const float even[10] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
        CHECK(picture_cross_entropy(even, 10, 3) == doctest::Approx(std::log(10.0)));
        const float logits[10] = {1.5f, -2.0f, 0.25f, 3.0f, 0.0f, -1.0f, 2.0f, 0.5f, -0.5f, 1.0f};
        const std::vector<float> p = softmax(logits, 10);
        for (int c = 0; c < 10; ++c)
            CHECK(picture_cross_entropy(logits, 10, c) == doctest::Approx(-std::log(p[c])).epsilon(1e-5));
        // A confident answer: 1,000 against 0. Right costs ~0; wrong costs 1,000, not infinity.
        const float sure[10] = {1000, 0, 0, 0, 0, 0, 0, 0, 0, 0};
        CHECK(picture_cross_entropy(sure, 10, 0) == doctest::Approx(0.0));
        CHECK(picture_cross_entropy(sure, 10, 1) == doctest::Approx(1000.0));
        CHECK(std::isnan(picture_cross_entropy(sure, 10, 10)));
        CHECK(std::isnan(picture_cross_entropy(sure, 10, -1)));
    }
}
