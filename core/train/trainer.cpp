// The epoch loop: see trainer.h.
#include "trainer.h"

#include <algorithm>
#include <numeric>
#include <random>

#include "measure/clock.h"
#include "runtime/cancel.h"
#include "io/image_io.h"
#include "learning_knobs.h"

namespace gpulab::train {

std::vector<std::int64_t> batch_order(std::int64_t count, std::uint64_t seed, int epoch) {
    std::vector<std::int64_t> order(static_cast<std::size_t>(count));
    std::iota(order.begin(), order.end(), 0);
    std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ULL + static_cast<std::uint64_t>(epoch));
    // std::shuffle's algorithm is up to the library; this loop is the same everywhere.
    for (std::int64_t i = count - 1; i > 0; --i) {
        const auto j = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(i + 1));
        std::swap(order[static_cast<std::size_t>(i)], order[static_cast<std::size_t>(j)]);
    }
    return order;
}

void gather_batch(const ImageSet& set, const std::int64_t* idx, std::int64_t n, float* images, std::uint8_t* labels) {
    const std::int64_t size = set.rows * set.cols;
    for (std::int64_t m = 0; m < n; ++m) {
        const std::uint8_t* px = set.pixels.data() + idx[m] * size;
        for (std::int64_t i = 0; i < size; ++i) images[m * size + i] = static_cast<float>(px[i]) * (1.0f / 255.0f);
        labels[m] = set.labels[static_cast<std::size_t>(idx[m])];
    }
}

Trainer::Trainer(TrainEngine& engine, const Dataset& data, const TrainConfig& config)
    : engine_(engine), data_(data), config_(config) {
    if (config.batch < 1) throw core::InputError("the batch must hold at least 1 image");
    if (data.train.count < 1) throw core::InputError("the data set has no training images");
    if (const std::string problem = learning_rate_problem(config.sgd.learning_rate); !problem.empty())
        throw core::InputError(problem);
    rate_ = config.sgd.learning_rate;
    model_ = make_model(config.model_spec, {1, data.train.rows, data.train.cols}, data.classes);
    check_training_fits(model_, config.batch);
    engine_.setup(model_, init_params(model_, config.seed), config.batch);
    images_.resize(static_cast<std::size_t>(config.batch * model_.input.size()));
    labels_.resize(static_cast<std::size_t>(config.batch));
}

EpochReport Trainer::run_epoch(const BatchCallback& on_batch) {
    EpochReport r;
    r.epoch = ++epoch_;
    const std::vector<std::int64_t> order = batch_order(data_.train.count, config_.seed, r.epoch);
    const std::int64_t batches = (data_.train.count + config_.batch - 1) / config_.batch;
    double loss_sum = 0.0;
    std::int64_t correct = 0;
    const std::int64_t start = core::now_ns();
    for (std::int64_t b = 0; b < batches; ++b) {
        const std::int64_t t0 = core::now_ns();
        const std::int64_t first = b * config_.batch;
        const std::int64_t n = std::min(config_.batch, data_.train.count - first);
        gather_batch(data_.train, order.data() + first, n, images_.data(), labels_.data());
        BatchResult br;
        try {
            engine_.forward(images_.data(), n);
            br = engine_.backward(labels_.data());
        } catch (const core::Cancelled&) {
            r.stopped = r.cancelled = true;
            break;
        }
        Sgd sgd = config_.sgd;
        if (config_.live_learning_rate) {
            const float live = config_.live_learning_rate->load(std::memory_order_relaxed);
            if (live >= kMinLearningRate && live <= kMaxLearningRate) rate_ = live;
            sgd.learning_rate = rate_;
        }
        engine_.step(sgd);
        const std::vector<LayerTime> times = engine_.layer_times();
        r.layer_ns.resize(times.size());
        for (std::size_t i = 0; i < times.size(); ++i) {
            r.layer_ns[i].forward_ns += times[i].forward_ns;
            r.layer_ns[i].backward_ns += times[i].backward_ns;
        }
        loss_sum += br.loss;
        correct += br.correct;
        r.images += n;
        r.batches = b + 1;
        if (on_batch && !on_batch({r.epoch, b + 1, batches, br, core::now_ns() - t0}) && b + 1 < batches) {
            r.stopped = true;
            break;
        }
    }
    r.train_ns = core::now_ns() - start;
    r.loss = r.batches ? loss_sum / static_cast<double>(r.batches) : 0.0;
    r.train_accuracy = r.images ? static_cast<double>(correct) / static_cast<double>(r.images) : 0.0;
    // The test pass is a forward over every held-out image (seconds on cpu-scalar): not after a stop
    // request, which would only interrupt it.
    if (r.stopped && core::cancel_requested()) r.cancelled = true;
    if (r.cancelled) return r;
    const std::int64_t t0 = core::now_ns();
    try {
        r.test_accuracy = accuracy(data_.test);
    } catch (const core::Cancelled&) {
        // Stop pressed during the test pass: the epoch's training counts, its accuracy is unknown.
        r.stopped = r.cancelled = true;
        return r;
    }
    r.test_ns = core::now_ns() - t0;
    return r;
}

std::int64_t count_correct(TrainEngine& engine, std::int64_t classes, const ImageSet& set, std::int64_t first,
                           std::int64_t count, std::int64_t batch, float* images, std::uint8_t* labels) {
    std::vector<std::int64_t> idx(static_cast<std::size_t>(std::max<std::int64_t>(count, 0)));
    std::iota(idx.begin(), idx.end(), first);
    std::int64_t correct = 0;
    for (std::int64_t at = 0; at < count; at += batch) {
        const std::int64_t n = std::min(batch, count - at);
        gather_batch(set, idx.data() + at, n, images, labels);
        engine.forward(images, n);
        const std::vector<float> logits = engine.logits();
        for (std::int64_t m = 0; m < n; ++m) {
            const float* l = logits.data() + m * classes;
            correct += std::max_element(l, l + classes) - l == labels[m] ? 1 : 0;
        }
    }
    return correct;
}

double Trainer::accuracy(const ImageSet& set) {
    if (set.count == 0) return 0.0;
    const std::int64_t correct =
        count_correct(engine_, model_.classes, set, 0, set.count, config_.batch, images_.data(), labels_.data());
    return static_cast<double>(correct) / static_cast<double>(set.count);
}

}  // namespace gpulab::train
