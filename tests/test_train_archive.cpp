// The training lesson's results on disk (issue 41): a training run's lane, its evaluation, its live
// curves and this machine's peaks come back from bytes whole, and a crafted confusion matrix is
// refused instead of read out of bounds. The window side (stored, shown, a stopped run never
// stored) is tested in tests/prerun_tests.cmake.
#include <doctest/doctest.h>

#include <memory>
#include <string>

#include "views/train_archive.h"

using namespace gpulab;

TEST_CASE("a training lane - its evaluation and live curves come back from bytes whole") {
    train::LaneResult lane;
    lane.engine = "cpu-parallel";
    lane.implementation = "im2col + GEMM";
    lane.precision = "FP32";
    lane.ran = true;
    lane.points = {{1.5, 6000, 0.61, 0.78, 0.80}};
    lane.batch_loss = {2.3f, 1.1f, 0.7f};
    lane.images = 6000;
    lane.train_ns = 1'500'000'000;
    lane.layer_ns = {{10, 20}, {30, 40}};
    lane.params = {0.25f, -1.0f, 3.5f};
    const std::shared_ptr<train::LaneResult> back = core::from_bytes<train::LaneResult>(core::to_bytes(lane));
    REQUIRE(back);
    CHECK(back->engine == lane.engine);
    CHECK(back->points.size() == 1);
    CHECK(back->points[0].test_accuracy == doctest::Approx(0.80));
    CHECK(back->batch_loss == lane.batch_loss);
    CHECK(back->layer_ns[1].backward_ns == 40);
    CHECK(back->params == lane.params);
    CHECK(back->images_per_second() == doctest::Approx(4000.0));

    train::Evaluation eval;
    eval.confusion = train::ConfusionMatrix(3);
    eval.confusion.add(0, 0);
    eval.confusion.add(1, 2);
    eval.confusion.add(2, 2);
    eval.first = {{0, 0, 0, 0.9f}, {1, 1, 2, 0.6f}};
    const auto eval_back = core::from_bytes<train::Evaluation>(core::to_bytes(eval));
    REQUIRE(eval_back);
    CHECK(eval_back->confusion.classes() == 3);
    CHECK(eval_back->confusion.total() == 3);
    CHECK(eval_back->confusion.count(1, 2) == 1);
    CHECK(eval_back->accuracy() == doctest::Approx(2.0 / 3.0));
    CHECK(eval_back->first[1].predicted == 2);

    train::LiveSnapshot curves;
    curves.engine = "cpu-parallel";
    curves.batches = {{0.1, 2.2, 0.2}, {0.2, 1.9, 0.3}};
    curves.epochs = {{0.2, 2.0, 0.55}};
    curves.earlier = {{"cpu-scalar", {{4.0, 2.1, 0.3}}}};
    const auto curves_back = core::from_bytes<train::LiveSnapshot>(core::to_bytes(curves));
    REQUIRE(curves_back);
    CHECK(curves_back->batches.size() == 2);
    CHECK(curves_back->epochs[0].accuracy == doctest::Approx(0.55));
    CHECK(curves_back->earlier[0].engine == "cpu-scalar");

    train::MeasuredPeaks peaks;
    peaks.ok = true;
    peaks.flops = 1.2e11;
    peaks.isa = "AVX-512";
    peaks.copy_bytes = 128u << 20;
    const auto peaks_back = core::from_bytes<train::MeasuredPeaks>(core::to_bytes(peaks));
    REQUIRE(peaks_back);
    CHECK(peaks_back->flops == doctest::Approx(1.2e11));
    CHECK(peaks_back->copy_bytes == (128u << 20));
}

TEST_CASE("a confusion matrix whose cells do not fit its classes is refused - not read out of bounds") {
    CHECK_FALSE(train::ConfusionMatrix::from_cells(3, {1, 2, 3}));
    CHECK_FALSE(train::ConfusionMatrix::from_cells(2, {1, -1, 0, 0}));
    CHECK_FALSE(train::ConfusionMatrix::from_cells(0, {}));
    const auto ok = train::ConfusionMatrix::from_cells(2, {3, 1, 0, 4});
    REQUIRE(ok);
    CHECK(ok->total() == 8);
    CHECK(ok->accuracy() == doctest::Approx(7.0 / 8.0));

    // Bytes claiming 3 classes but carrying 4 cells: from_bytes gives nothing, so the view trains again.
    train::Evaluation eval;
    eval.confusion = *train::ConfusionMatrix::from_cells(2, {1, 0, 0, 1});
    std::string bytes = core::to_bytes(eval);
    bytes[1] = 3;  // after cereal's one endianness byte: the class count, a little-endian int
    CHECK_FALSE(core::from_bytes<train::Evaluation>(bytes));
}
