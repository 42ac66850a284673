// The data-parallel epoch loop: see data_parallel_trainer.h. Mirrors train::Trainer::run_epoch
// (the same batch order and pixel scaling), with each batch cut into slices.
#include "data_parallel_trainer.h"

#include <algorithm>
#include <chrono>
#include <thread>

#include "io/image_io.h"  // core::InputError
#include "measure/clock.h"
#include "shard.h"
#include "train/learning_knobs.h"

namespace gpulab::distributed {

DataParallelTrainer::DataParallelTrainer(train::TrainEngine& engine, const train::Dataset& data,
                                         const train::TrainConfig& config, GradientReducer& reducer, Straggler straggler)
    : engine_(engine), data_(data), config_(config), reducer_(reducer), straggler_(straggler) {
    if (config.batch < 1) throw core::InputError("the batch must hold at least 1 image");
    if (data.train.count < 1) throw core::InputError("the data set has no training images");
    if (const std::string problem = train::learning_rate_problem(config.sgd.learning_rate); !problem.empty())
        throw core::InputError(problem);
    if (!engine.takes_summed_gradients())
        throw core::InputError("the " + std::string(engine.name()) + " engine cannot take gradients summed over "
                               "several workers; data-parallel training runs on cpu-scalar, cpu-parallel and cpu-onednn");
    model_ = train::make_model(config.model_spec, {1, data.train.rows, data.train.cols}, data.classes);
    local_batch_ = std::max<std::int64_t>(1, largest_shard(config.batch, reducer.workers()));
    train::check_training_fits(model_, local_batch_);
    engine_.setup(model_, train::init_params(model_, config.seed), local_batch_);
    images_.resize(static_cast<std::size_t>(local_batch_ * model_.input.size()));
    labels_.resize(static_cast<std::size_t>(local_batch_));
}

DataParallelEpoch DataParallelTrainer::run_epoch() {
    DataParallelEpoch out;
    train::EpochReport& r = out.report;
    r.epoch = ++epoch_;
    const int workers = reducer_.workers(), rank = reducer_.rank();
    const std::vector<std::int64_t> order = train::batch_order(data_.train.count, config_.seed, r.epoch);
    const std::int64_t batches = (data_.train.count + config_.batch - 1) / config_.batch;
    std::vector<StepTiming> mine;
    mine.reserve(static_cast<std::size_t>(batches));
    std::vector<float> gradient;
    double loss_sum = 0.0;
    std::int64_t correct = 0;
    const std::int64_t start = core::now_ns();
    for (std::int64_t b = 0; b < batches; ++b) {
        StepTiming t;
        const std::int64_t t0 = core::now_ns();
        const std::int64_t first = b * config_.batch;
        const std::int64_t n = std::min(config_.batch, data_.train.count - first);
        const Shard shard = shard_of(n, workers, rank);
        train::BatchResult local;
        if (shard.count > 0) {
            train::gather_batch(data_.train, order.data() + first + shard.first, shard.count, images_.data(), labels_.data());
            engine_.forward(images_.data(), shard.count);
            local = engine_.backward(labels_.data());
            gradient = engine_.gradients();
            weight_gradient(gradient, shard.count, n);
        } else {
            gradient.assign(static_cast<std::size_t>(model_.parameter_count), 0.0f);  // joins the sum with nothing
        }
        if (rank == straggler_.rank && straggler_.delay_ns > 0)
            std::this_thread::sleep_for(std::chrono::nanoseconds(straggler_.delay_ns));
        const std::int64_t t1 = core::now_ns();
        // The batch's loss (each slice's mean weighted by its share) and correct count. The first
        // collective of the step: it returns when the slowest worker has finished computing.
        double stats[2] = {local.loss * shard_weight(shard.count, n), static_cast<double>(local.correct)};
        reducer_.sum(std::span<double>(stats, 2));
        const std::int64_t t2 = core::now_ns();
        reducer_.sum(std::span<float>(gradient));
        const std::int64_t t3 = core::now_ns();
        engine_.set_gradients(gradient);
        engine_.step(config_.sgd);
        t.compute_ns = (t1 - t0) + (core::now_ns() - t3);
        t.wait_ns = t2 - t1;
        t.allreduce_ns = t3 - t2;
        mine.push_back(t);
        loss_sum += stats[0];
        correct += static_cast<std::int64_t>(stats[1] + 0.5);
        r.images += n;
        r.batches = b + 1;
    }
    r.train_ns = core::now_ns() - start;
    r.loss = r.batches ? loss_sum / static_cast<double>(r.batches) : 0.0;
    r.train_accuracy = r.images ? static_cast<double>(correct) / static_cast<double>(r.images) : 0.0;
    // Outside train_ns, as in train::Trainer: the timings travel once an epoch, not every step.
    const std::vector<double> packed = pack_timings(mine);
    out.steps = unpack_timings(reducer_.gather(packed), workers);
    for (int w = 0; w < workers; ++w) out.workers.push_back(summarise(w, out.steps[static_cast<std::size_t>(w)]));
    const std::int64_t t0 = core::now_ns();
    r.test_accuracy = accuracy(data_.test);
    r.test_ns = core::now_ns() - t0;
    return out;
}

double DataParallelTrainer::accuracy(const train::ImageSet& set) {
    if (set.count == 0) return 0.0;
    const Shard mine = shard_of(set.count, reducer_.workers(), reducer_.rank());
    double correct = static_cast<double>(train::count_correct(engine_, model_.classes, set, mine.first, mine.count,
                                                              local_batch_, images_.data(), labels_.data()));
    reducer_.sum(std::span<double>(&correct, 1));
    return correct / static_cast<double>(set.count);
}

}  // namespace gpulab::distributed
