// Budgeted training, the race's bookkeeping and time per image by batch size: see race.h.
#include "race.h"

#include <algorithm>
#include <exception>

#include "measure/clock.h"
#include "runtime/cancel.h"
#include "measure/format.h"
#include "io/image_io.h"

namespace gpulab::train {

namespace {

ImageSet first_images(const ImageSet& set, std::int64_t n) {
    if (n <= 0 || n >= set.count) return set;
    ImageSet s;
    s.count = n;
    s.rows = set.rows;
    s.cols = set.cols;
    s.pixels.assign(set.pixels.begin(), set.pixels.begin() + n * set.rows * set.cols);
    s.labels.assign(set.labels.begin(), set.labels.begin() + n);
    return s;
}

}  // namespace

Dataset subset(const Dataset& data, std::int64_t train_n, std::int64_t test_n) {
    Dataset d;
    d.folder = data.folder;
    d.classes = data.classes;
    d.train = first_images(data.train, train_n);
    d.test = first_images(data.test, test_n);
    return d;
}

LaneResult train_with_budget(TrainEngine& engine, const Dataset& data, const BudgetConfig& config,
                             const LaneCallback& on_batch, const std::function<void(const LaneResult&)>& on_epoch) {
    LaneResult lane;
    lane.engine = std::string(engine.name());
    const core::Availability a = engine.availability();
    if (!a.ok) {
        lane.reason = a.reason;
        return lane;
    }
    try {
        Trainer trainer(engine, data, config.train);
        lane.implementation = engine.implementation();
        lane.precision = engine.precision();
        lane.ran = true;
        std::int64_t batches_done = 0;
        for (int epoch = 0; epoch < std::max(config.max_epochs, 1); ++epoch) {
            std::int64_t epoch_ns = 0, epoch_images = 0;
            bool end_all = false;
            const EpochReport r = trainer.run_epoch([&](const BatchProgress& p) {
                epoch_ns += p.batch_ns;
                epoch_images = std::min(p.batch * config.train.batch, data.train.count);
                ++batches_done;
                lane.batch_loss.push_back(static_cast<float>(p.result.loss));
                // The caller sees the finished epochs plus this one so far.
                const std::int64_t saved_ns = lane.train_ns, saved_images = lane.images;
                lane.train_ns += epoch_ns;
                lane.images += epoch_images;
                bool go = !on_batch || on_batch(lane, p);
                lane.train_ns = saved_ns;
                lane.images = saved_images;
                if (!go) lane.stopped = true;
                if (config.budget_ns > 0 && saved_ns + epoch_ns >= config.budget_ns) lane.budget_hit = true;
                if (config.max_batches > 0 && batches_done >= config.max_batches) lane.budget_hit = true;
                end_all = !go || lane.budget_hit;
                return !end_all;
            });
            lane.train_ns += r.train_ns;
            lane.images += r.images;
            lane.layer_ns.resize(r.layer_ns.size());
            for (std::size_t i = 0; i < r.layer_ns.size(); ++i) {
                lane.layer_ns[i].forward_ns += r.layer_ns[i].forward_ns;
                lane.layer_ns[i].backward_ns += r.layer_ns[i].backward_ns;
            }
            if (r.cancelled) {  // no test pass was made: no point to plot; what it learnt so far stays
                lane.stopped = true;
                break;
            }
            lane.points.push_back({static_cast<double>(lane.train_ns) * 1e-9, lane.images, r.loss, r.train_accuracy,
                                   r.test_accuracy});
            if (on_epoch) on_epoch(lane);
            if (end_all) break;
        }
        lane.params = engine.params();
        if (lane.budget_hit && config.max_batches > 0 && batches_done >= config.max_batches)
            lane.reason = "stopped after " + std::to_string(batches_done) + " batches";
        else if (lane.budget_hit)
            lane.reason = "time budget of " + core::format_duration(config.budget_ns) + " reached";
        else if (lane.stopped)
            lane.reason = "stopped";
    } catch (const core::Cancelled&) {
        // A stop request that reached a loop the trainer does not guard: what was learnt stays.
        lane.stopped = true;
        lane.params = engine.params();
        lane.reason = "stopped";
    } catch (const std::exception& e) {
        lane.ran = false;
        lane.reason = e.what();
    }
    return lane;
}

bool is_cpu_engine(std::string_view name) { return name.rfind("cpu-", 0) == 0; }

RaceSummary summarize_race(const std::vector<LaneResult>& lanes) {
    RaceSummary s;
    for (std::size_t i = 0; i < lanes.size(); ++i) {
        const LaneResult& l = lanes[i];
        if (!l.ran || l.images_per_second() <= 0.0) continue;
        int& best = is_cpu_engine(l.engine) ? s.fastest_cpu : s.fastest_gpu;
        // The plain loop teaches; it is never the CPU's number in a speed-up.
        if (l.engine == kPlainLoop) continue;
        if (best < 0 || l.images_per_second() > lanes[static_cast<std::size_t>(best)].images_per_second())
            best = static_cast<int>(i);
    }
    if (s.fastest_cpu < 0) {
        s.text = "no fast CPU engine ran (the plain loop is not counted), so there is no speed-up to show";
        return s;
    }
    const LaneResult& cpu = lanes[static_cast<std::size_t>(s.fastest_cpu)];
    if (s.fastest_gpu < 0) {
        s.text = "The CPU's number is " + cpu.engine + ": " + core::format_count(static_cast<std::int64_t>(cpu.images_per_second())) +
                 " images/s. No GPU engine ran on this machine, so this machine's GPU speed-up is not measured.";
        return s;
    }
    const LaneResult& gpu = lanes[static_cast<std::size_t>(s.fastest_gpu)];
    s.speedup = gpu.images_per_second() / cpu.images_per_second();
    s.text = gpu.engine + " trains " + core::format_ratio(s.speedup) + " as many images per second as " + cpu.engine +
             ", the fastest CPU engine here (" +
             core::format_count(static_cast<std::int64_t>(gpu.images_per_second())) + " vs " +
             core::format_count(static_cast<std::int64_t>(cpu.images_per_second())) + " images/s).";
    return s;
}

BatchTiming time_batch_size(TrainEngine& engine, const Dataset& data, const TrainConfig& config, std::int64_t images,
                            std::int64_t budget_ns, const std::function<bool()>& keep_going) {
    BatchTiming t;
    t.engine = std::string(engine.name());
    t.batch = config.batch;
    const core::Availability a = engine.availability();
    if (!a.ok) {
        t.reason = a.reason;
        return t;
    }
    try {
        if (config.batch < 1) throw core::InputError("the batch must hold at least 1 image");
        if (data.train.count < 1) throw core::InputError("the data set has no training images");
        const ModelDesc model = make_model(config.model_spec, {1, data.train.rows, data.train.cols}, data.classes);
        check_training_fits(model, config.batch);
        engine.setup(model, init_params(model, config.seed), config.batch);
        std::vector<float> pixels(static_cast<std::size_t>(config.batch * model.input.size()));
        std::vector<std::uint8_t> labels(static_cast<std::size_t>(config.batch));
        const std::vector<std::int64_t> order = batch_order(data.train.count, config.seed, 1);
        std::vector<std::int64_t> idx(static_cast<std::size_t>(config.batch));
        std::int64_t next = 0;
        auto one_batch = [&] {
            for (auto& i : idx) i = order[static_cast<std::size_t>(next++ % data.train.count)];
            const std::int64_t t0 = core::now_ns();
            gather_batch(data.train, idx.data(), config.batch, pixels.data(), labels.data());
            engine.forward(pixels.data(), config.batch);
            engine.backward(labels.data());
            engine.step(config.sgd);
            return core::now_ns() - t0;
        };
        const std::int64_t batches = std::max<std::int64_t>((images + config.batch - 1) / config.batch, 1);
        one_batch();  // warm-up, not counted: first touch of the buffers, caches, thread start
        t.ran = true;
        for (std::int64_t b = 0; b < batches; ++b) {
            t.ns += one_batch();
            t.images += config.batch;
            if (budget_ns > 0 && t.ns >= budget_ns) {
                t.reason = "stopped at the time budget after " + std::to_string(t.images) + " images";
                break;
            }
            if (keep_going && !keep_going()) {
                t.reason = "stopped";
                break;
            }
        }
    } catch (const core::Cancelled&) {  // the stop request, inside a batch: the batches so far stand
        t.reason = "stopped";
    } catch (const std::exception& e) {
        t.ran = false;
        t.reason = e.what();
    }
    return t;
}

}  // namespace gpulab::train
