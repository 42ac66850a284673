// Data-parallel training (core/distributed) without mpirun: batch slices and their gradient
// weights; the in-process reducer's sums; N workers as threads training exactly like one Trainer
// (the weights after several steps within float-sum tolerance, uneven slices and a short last batch
// included); the per-step timings with a straggler; the ring all-reduce's cost model and its fit;
// mpirun's failure messages in one sentence. The MPI side runs in tests/mpi_tests.cmake.
#include <doctest/doctest.h>

#include <cmath>
#include <numeric>
#include <random>
#include <thread>
#include <vector>

#include "distributed/data_parallel_trainer.h"
#include "distributed/in_process_reducer.h"
#include "distributed/mpirun_report.h"
#include "distributed/ring_cost.h"
#include "distributed/shard.h"
#include "distributed/step_timing.h"
#include "gpu_train_engines.h"
#include "io/image_io.h"
#include "runtime/thread_pool.h"
#include "train/engine.h"
#include "train/trainer.h"

using namespace gpulab;
using namespace gpulab::distributed;

namespace {

// Learnable 28 x 28 bytes: a bright square placed by the label, on noise (as test_train_engines.cpp).
train::ImageSet toy_set(std::int64_t count, unsigned seed) {
    train::ImageSet s;
    s.count = count;
    s.rows = s.cols = 28;
    s.pixels.resize(static_cast<std::size_t>(count * 784));
    s.labels.resize(static_cast<std::size_t>(count));
    std::mt19937 rng(seed);
    for (std::int64_t i = 0; i < count; ++i) {
        const int label = static_cast<int>(rng() % 10);
        s.labels[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(label);
        std::uint8_t* px = s.pixels.data() + i * 784;
        for (int j = 0; j < 784; ++j) px[j] = static_cast<std::uint8_t>(rng() % 60);
        const int y0 = 2 + (label / 5) * 14, x0 = 2 + (label % 5) * 4;
        for (int y = y0; y < y0 + 4; ++y)
            for (int x = x0; x < x0 + 4; ++x) px[y * 28 + x] = 230;
    }
    return s;
}

struct WorkerResult {
    std::vector<float> params;
    std::vector<DataParallelEpoch> epochs;
};

// `workers` DataParallelTrainers as threads of this process, `epochs` epochs each.
std::vector<WorkerResult> train_in_threads(int workers, const train::Dataset& data, const train::TrainConfig& config,
                                           int epochs, const std::string& backend, Straggler straggler = {}) {
    InProcessGroup group(workers);
    std::vector<WorkerResult> results(static_cast<std::size_t>(workers));
    std::vector<std::thread> threads;
    for (int rank = 0; rank < workers; ++rank) {
        threads.emplace_back([&, rank] {
            std::unique_ptr<GradientReducer> reducer = group.member(rank);
            std::unique_ptr<train::TrainEngine> engine = train::make_train_engine(backend);
            DataParallelTrainer trainer(*engine, data, config, *reducer, straggler);
            WorkerResult& r = results[static_cast<std::size_t>(rank)];
            for (int e = 0; e < epochs; ++e) r.epochs.push_back(trainer.run_epoch());
            r.params = engine->params();
        });
    }
    for (std::thread& t : threads) t.join();
    return results;
}

double max_abs_difference(const std::vector<float>& a, const std::vector<float>& b) {
    REQUIRE(a.size() == b.size());
    double m = 0.0;
    for (std::size_t i = 0; i < a.size(); ++i) m = std::max(m, std::abs(static_cast<double>(a[i]) - b[i]));
    return m;
}

double max_abs(const std::vector<float>& v) {
    double m = 0.0;
    for (float x : v) m = std::max(m, std::abs(static_cast<double>(x)));
    return m;
}

}  // namespace

TEST_SUITE("distributed") {

TEST_CASE("a batch is cut into contiguous slices as even as can be") {
    for (int workers = 1; workers <= 5; ++workers) {
        for (std::int64_t n : {0, 1, 2, 7, 10, 64, 65}) {
            std::int64_t next = 0;
            for (int rank = 0; rank < workers; ++rank) {
                const Shard s = shard_of(n, workers, rank);
                CHECK(s.first == next);
                CHECK(s.count >= n / workers);
                CHECK(s.count <= n / workers + 1);
                next += s.count;
            }
            CHECK(next == n);
        }
    }
    CHECK(shard_of(10, 3, 0).count == 4);
    CHECK(shard_of(10, 3, 2).count == 3);
    CHECK(shard_of(2, 3, 2).count == 0);  // a batch smaller than the workers: the last one gets nothing
    CHECK(largest_shard(64, 3) == 22);
    CHECK_THROWS(shard_of(10, 3, 3));
    CHECK_THROWS(shard_of(10, 0, 0));
}

TEST_CASE("slices weighted by their share sum to the whole batch's mean gradient") {
    // Per-image gradients g(m); the batch's mean-loss gradient is their mean. Each worker's engine
    // gives the mean over its slice; weighted by n_i / B and summed, the slices give it back.
    const std::int64_t batch = 10;
    auto g = [](std::int64_t m, int j) { return static_cast<float>(std::sin(0.7 * m + j) + 0.1 * m); };
    std::vector<float> whole(3, 0.0f);
    for (std::int64_t m = 0; m < batch; ++m)
        for (int j = 0; j < 3; ++j) whole[static_cast<std::size_t>(j)] += g(m, j) / batch;
    std::vector<float> summed(3, 0.0f), unweighted(3, 0.0f);
    for (int rank = 0; rank < 3; ++rank) {
        const Shard s = shard_of(batch, 3, rank);
        std::vector<float> mean(3, 0.0f);
        for (std::int64_t m = s.first; m < s.first + s.count; ++m)
            for (int j = 0; j < 3; ++j) mean[static_cast<std::size_t>(j)] += g(m, j) / static_cast<float>(s.count);
        for (int j = 0; j < 3; ++j) unweighted[static_cast<std::size_t>(j)] += mean[static_cast<std::size_t>(j)];
        weight_gradient(mean, s.count, batch);
        for (int j = 0; j < 3; ++j) summed[static_cast<std::size_t>(j)] += mean[static_cast<std::size_t>(j)];
    }
    for (int j = 0; j < 3; ++j) {
        CHECK(summed[static_cast<std::size_t>(j)] == doctest::Approx(whole[static_cast<std::size_t>(j)]).epsilon(1e-5));
        // The plain sum of the slices' means is about three times too large (and wrong for 4-3-3 slices).
        CHECK(std::abs(unweighted[static_cast<std::size_t>(j)] - whole[static_cast<std::size_t>(j)]) > 0.1);
    }
    CHECK(shard_weight(0, 10) == 0.0);
    CHECK(shard_weight(4, 10) == doctest::Approx(0.4));
}

TEST_CASE("the in-process reducer sums and gathers across threads - round after round") {
    InProcessGroup group(3);
    std::vector<std::vector<double>> gathered(3);
    std::vector<std::vector<float>> sums(3);
    std::vector<std::thread> threads;
    for (int rank = 0; rank < 3; ++rank) {
        threads.emplace_back([&, rank] {
            auto r = group.member(rank);
            std::vector<float> v;
            for (int round = 0; round < 50; ++round) {  // rounds back to back: none may read another's
                v = {static_cast<float>(rank + round), 1.0f};
                r->sum(std::span<float>(v));
            }
            sums[static_cast<std::size_t>(rank)] = v;
            const std::vector<double> mine = {static_cast<double>(rank), 10.0 * rank};
            gathered[static_cast<std::size_t>(rank)] = r->gather(mine);
        });
    }
    for (std::thread& t : threads) t.join();
    for (int rank = 0; rank < 3; ++rank) {
        CHECK(sums[static_cast<std::size_t>(rank)] == std::vector<float>{0 + 1 + 2 + 3 * 49.0f, 3.0f});
        CHECK(gathered[static_cast<std::size_t>(rank)] == std::vector<double>{0, 0, 1, 10, 2, 20});
    }
}

TEST_CASE("workers as threads train like one process: weights after several steps within float-sum tolerance") {
    train::Dataset data;
    data.train = toy_set(47, 11);  // 47 = 4 batches of 10 and one of 7: slices of 4-3-3 and 3-2-2
    data.test = toy_set(31, 12);
    train::TrainConfig config;
    config.model_spec = "conv4,pool,dense10";
    config.batch = 10;
    config.seed = 5;
    std::unique_ptr<train::TrainEngine> single = train::make_train_engine("cpu-scalar");
    train::Trainer trainer(*single, data, config);
    std::vector<train::EpochReport> reports;
    for (int e = 0; e < 2; ++e) reports.push_back(trainer.run_epoch());
    const std::vector<float> reference = single->params();
    for (int workers : {1, 2, 3}) {
        CAPTURE(workers);
        const std::vector<WorkerResult> results = train_in_threads(workers, data, config, 2, "cpu-scalar");
        // Every worker holds the same weights: they all stepped from the same sums.
        for (const WorkerResult& r : results) CHECK(r.params == results[0].params);
        // ... which are single-process training's, up to the order the floats were added in.
        CHECK(max_abs_difference(results[0].params, reference) <= 1e-5 * std::max(1.0, max_abs(reference)));
        // Some weight moved, so the comparison means something.
        const train::ModelDesc m = train::make_model(config.model_spec, {1, 28, 28});
        CHECK(max_abs_difference(reference, train::init_params(m, config.seed)) > 1e-3);
        for (int e = 0; e < 2; ++e) {
            const train::EpochReport& r = results[0].epochs[static_cast<std::size_t>(e)].report;
            CHECK(r.images == 47);
            CHECK(r.batches == 5);
            CHECK(r.loss == doctest::Approx(reports[static_cast<std::size_t>(e)].loss).epsilon(1e-5));
            CHECK(r.train_accuracy == doctest::Approx(reports[static_cast<std::size_t>(e)].train_accuracy));
            CHECK(r.test_accuracy == doctest::Approx(reports[static_cast<std::size_t>(e)].test_accuracy));
        }
    }
}

TEST_CASE("cpu-parallel workers as threads train like one cpu-parallel process") {
    train::Dataset data;
    data.train = toy_set(64, 21);
    data.test = toy_set(16, 22);
    train::TrainConfig config;
    config.model_spec = "conv8,pool,dense10";
    config.batch = 16;
    config.seed = 9;
    std::unique_ptr<train::TrainEngine> single = train::make_train_engine("cpu-parallel");
    train::Trainer trainer(*single, data, config);
    const train::EpochReport one = trainer.run_epoch();
    const std::vector<WorkerResult> results = train_in_threads(2, data, config, 1, "cpu-parallel");
    CHECK(max_abs_difference(results[0].params, single->params()) <= 1e-5 * std::max(1.0, max_abs(single->params())));
    CHECK(results[0].epochs[0].report.loss == doctest::Approx(one.loss).epsilon(1e-5));
}

TEST_CASE("a straggler makes the others wait: the timings say who") {
    train::Dataset data;
    data.train = toy_set(24, 31);
    data.test = toy_set(4, 32);
    train::TrainConfig config;
    config.model_spec = "conv2,pool,dense10";
    config.batch = 8;
    const std::int64_t delay_ns = 30'000'000;
    const std::vector<WorkerResult> results =
        train_in_threads(2, data, config, 1, "cpu-scalar", Straggler{1, delay_ns});
    const DataParallelEpoch& e = results[0].epochs[0];
    REQUIRE(e.workers.size() == 2);
    REQUIRE(e.steps.size() == 2);
    CHECK(e.steps[0].size() == 3);
    CHECK(e.workers[0].steps == 3);
    // Worker 0 waits about the delay every step; worker 1, the straggler, hardly waits but computes longer.
    CHECK(e.workers[0].wait_ns > 3 * delay_ns / 2);
    CHECK(e.workers[1].compute_ns >= 3 * delay_ns);
    CHECK(e.workers[1].wait_ns < e.workers[0].wait_ns);
    CHECK(e.workers[0].compute_share() < e.workers[1].compute_share());
    // Both workers hold the same gathered timings.
    CHECK(results[1].epochs[0].workers[0].wait_ns == e.workers[0].wait_ns);
}

TEST_CASE("timings pack and unpack per worker and step") {
    const std::vector<StepTiming> steps = {{5, 2, 1}, {7, 0, 3}};
    const std::vector<double> one = pack_timings(steps);
    std::vector<double> both = one;
    both.insert(both.end(), one.begin(), one.end());
    const auto back = unpack_timings(both, 2);
    REQUIRE(back.size() == 2);
    CHECK(back[1][1].compute_ns == 7);
    CHECK(back[1][1].allreduce_ns == 3);
    const WorkerSummary s = summarise(1, back[1]);
    CHECK(s.compute_ns == 12);
    CHECK(s.wait_ns == 2);
    CHECK(s.mean_ms(s.compute_ns) == doctest::Approx(6e-6));
    CHECK(s.compute_share() == doctest::Approx(12.0 / 18.0));
    CHECK(s.median.compute_ns == 7);  // of 5 and 7: the upper one, a step that happened
    const std::vector<StepTiming> odd = {{1, 9, 0}, {100, 8, 0}, {3, 7, 0}};
    CHECK(summarise(0, odd).median.compute_ns == 3);
    CHECK(summarise(0, odd).median.wait_ns == 8);
    CHECK_THROWS(unpack_timings(std::vector<double>(7), 2));
    CHECK(scaling_efficiency(150, 2, 100) == doctest::Approx(0.75));
    CHECK(scaling_efficiency(150, 2, 0) == 0.0);
}

TEST_CASE("the ring all-reduce model: bytes per worker and a fit that finds latency and bandwidth") {
    CHECK(ring_bytes_per_worker(1000, 1) == 0.0);
    CHECK(ring_bytes_per_worker(1000, 2) == doctest::Approx(1000));
    CHECK(ring_bytes_per_worker(1000, 4) == doctest::Approx(1500));
    const RingLink link{5e-6, 2e9};
    CHECK(ring_allreduce_seconds(0, 4, link) == doctest::Approx(6 * 5e-6));
    std::vector<AllreduceSample> samples;
    for (double bytes = 4; bytes <= 64.0 * 1024 * 1024; bytes *= 4)
        samples.push_back({bytes, ring_allreduce_seconds(bytes, 4, link)});
    const RingLink fit = fit_ring_cost(samples, 4);
    CHECK(fit.latency_s == doctest::Approx(5e-6).epsilon(1e-3));
    CHECK(fit.bandwidth_bytes_s == doctest::Approx(2e9).epsilon(1e-6));
    CHECK_THROWS(fit_ring_cost(std::vector<AllreduceSample>{{4, 1e-6}}, 4));
    CHECK_THROWS(fit_ring_cost(samples, 1));
}

TEST_CASE("mpirun's failure messages become one sentence") {
    const char* killed =
        "--------------------------------------------------------------------------\n"
        "Primary job  terminated normally, but 1 process returned\n"
        "a non-zero exit code. Per user-direction, the job has been aborted.\n"
        "--------------------------------------------------------------------------\n"
        "--------------------------------------------------------------------------\n"
        "mpirun noticed that process rank 1 with PID 4242 on node vm exited on signal 9 (Killed).\n"
        "--------------------------------------------------------------------------\n";
    CHECK(mpirun_failure_sentence(killed, 137) ==
          "worker 1 (process 4242 on vm) was killed by signal 9 (Killed); mpirun stopped the other workers and the "
          "training ended");
    CHECK(mpirun_failure_sentence("mpirun noticed that process rank 0 with PID 0 on node vm exited on signal 15 (Terminated).", 143) ==
          "worker 0 (on vm) was killed by signal 15 (Terminated); mpirun stopped the other workers and the training ended");
    const char* aborted = "MPI_ABORT was invoked on rank 0 in communicator MPI_COMM_WORLD\nwith errorcode 2.\n";
    CHECK(mpirun_failure_sentence(aborted, 2) ==
          "worker 0 gave up (error code 2); mpirun stopped the other workers and the training ended");
    const char* exited = "The first process to do so was:\n\n  Process name: [[6191,1],1]\n  Exit code:    3\n";
    CHECK(mpirun_failure_sentence(exited, 3) ==
          "worker 1 ended with exit code 3; mpirun stopped the other workers and the training ended");
    CHECK(mpirun_failure_sentence("-----\n\n  something odd happened  \nmore\n", 1) ==
          "mpirun failed with exit code 1: something odd happened");
    CHECK(mpirun_failure_sentence("", 1) == "mpirun failed with exit code 1 and said nothing");
    CHECK(is_worker_sentence("gpulab train: no data set at /x"));
    CHECK_FALSE(is_worker_sentence("[vm:1234] 1 more process has sent help message"));
}

TEST_CASE("engines that cannot take summed gradients are refused with a sentence") {
    train::Dataset data;
    data.train = toy_set(8, 41);
    data.test = toy_set(2, 42);
    train::TrainConfig config;
    config.model_spec = "conv2,pool,dense10";
    InProcessGroup group(1);
    std::unique_ptr<GradientReducer> reducer = group.member(0);
    std::unique_ptr<train::TrainEngine> sim = gpu::make_gpu_train_engine("cuda-sim");
    REQUIRE(sim != nullptr);
    CHECK_FALSE(sim->takes_summed_gradients());
    CHECK_THROWS_WITH_AS(DataParallelTrainer(*sim, data, config, *reducer), doctest::Contains("cannot take gradients summed"),
                         core::InputError);
    CHECK_THROWS_WITH_AS(sim->set_gradients({}), doctest::Contains("data-parallel training (--workers) runs on"),
                         core::InputError);
    std::unique_ptr<train::TrainEngine> cpu = train::make_train_engine("cpu-scalar");
    CHECK(cpu->takes_summed_gradients());
    cpu->setup(train::make_model("conv2,pool,dense10", {1, 28, 28}), train::init_params(train::make_model("conv2,pool,dense10", {1, 28, 28}), 1), 2);
    CHECK_THROWS_WITH_AS(cpu->set_gradients(std::vector<float>(3)), doctest::Contains("do not fit the model"),
                         core::InputError);
}

TEST_CASE("the shared thread pool can be capped only before its first use") {
    cpu::ThreadPool::shared();
    CHECK_FALSE(cpu::ThreadPool::limit_shared(1));
}

}  // TEST_SUITE
