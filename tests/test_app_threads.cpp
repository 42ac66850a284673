// The app's two background threads, without a window: the measurement worker (app/views/jobs.h),
// including live mode's back-to-back short runs, and the GPU warm-up thread
// (app/shell/presenter_warmup.h). Their own tests so ThreadSanitizer (scripts/ci-sanitizers.sh
// tsan) sees every way the main thread and the worker share state: submit, progress, stage and
// label read while a job runs, poll, cancel, and destruction with a job still running.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "backends/backend.h"
#include "shell/presenter_warmup.h"
#include "views/jobs.h"
#include "train/live_log.h"
#include "train/race.h"
#include "workloads/activation_workload.h"

using gpulab::app::GpuWarmup;
using gpulab::app::JobRunner;
using namespace std::chrono_literals;

namespace {

// Submits a job that reports progress until it is cancelled, and returns once it runs; `stopped`
// turns true when the job has seen the cancel and ended.
void start_endless_job(JobRunner& jobs, std::atomic<bool>& stopped) {
    std::atomic<bool> started{false};
    REQUIRE(jobs.submit("endless", [&started, &stopped](const gpulab::core::ProgressFn& progress) {
        started = true;
        while (progress(0.1f, "spinning")) std::this_thread::sleep_for(100us);
        stopped = true;
        return std::function<void()>();
    }));
    while (!started) std::this_thread::sleep_for(1ms);
}

// Polls like the GUI's frame loop until the runner is idle; false after `limit`.
bool poll_until_idle(JobRunner& jobs, std::chrono::seconds limit = std::chrono::seconds(120)) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < deadline) {
        jobs.poll();
        if (!jobs.busy()) return true;
        (void)jobs.progress();  // what the progress bar reads every frame
        (void)jobs.stage();
        (void)jobs.label();
        std::this_thread::sleep_for(1ms);
    }
    return false;
}

// A gate the test opens to let a job finish.
struct Gate {
    std::mutex m;
    std::condition_variable cv;
    bool open = false;
    void release() {
        {
            std::lock_guard lock(m);
            open = true;
        }
        cv.notify_all();
    }
    void wait() {
        std::unique_lock lock(m);
        cv.wait(lock, [this] { return open; });
    }
};

gpulab::core::MeasureConfig quick() {
    gpulab::core::MeasureConfig c;
    c.warmup = 1;
    c.min_samples = 2;
    c.max_samples = 2;
    c.time_budget_ns = 0;
    c.measure_limits = false;
    return c;
}

}  // namespace

TEST_SUITE("jobs") {
    TEST_CASE("a job runs on the worker and its completion on the thread that polls") {
        JobRunner jobs;
        const auto main_id = std::this_thread::get_id();
        std::thread::id worker_id, completion_id;
        int result = 0;
        REQUIRE(jobs.submit("sum", [&](const gpulab::core::ProgressFn& progress) {
            worker_id = std::this_thread::get_id();
            int sum = 0;
            for (int i = 1; i <= 10; ++i) {
                sum += i;
                progress(static_cast<float>(i) / 10.0f, "adding");
            }
            return std::function<void()>([&, sum] {
                completion_id = std::this_thread::get_id();
                result = sum;
            });
        }));
        CHECK(jobs.busy());
        CHECK(jobs.label() == "sum");
        REQUIRE(poll_until_idle(jobs));
        CHECK(result == 55);
        CHECK(worker_id != main_id);
        CHECK(completion_id == main_id);
        CHECK(jobs.progress() == doctest::Approx(1.0f));
        CHECK(jobs.stage() == "adding");
    }

    TEST_CASE("one job at a time: a second submit is refused while the first runs") {
        JobRunner jobs;
        Gate gate;
        REQUIRE(jobs.submit("first", [&](const gpulab::core::ProgressFn&) {
            gate.wait();
            return std::function<void()>();
        }));
        CHECK_FALSE(jobs.submit("second", [](const gpulab::core::ProgressFn&) { return std::function<void()>(); }));
        CHECK(jobs.label() == "first");
        gate.release();
        REQUIRE(poll_until_idle(jobs));
        CHECK(jobs.submit("third", [](const gpulab::core::ProgressFn&) { return std::function<void()>(); }));
        REQUIRE(poll_until_idle(jobs));
    }

    TEST_CASE("the progress bar reads a running job's state while it reports: cancel stops it") {
        JobRunner jobs;
        std::atomic<bool> started{false};
        bool cancelled = false;
        REQUIRE(jobs.submit("endless", [&](const gpulab::core::ProgressFn& progress) {
            started = true;
            int i = 0;
            while (progress(static_cast<float>(i % 100) / 100.0f, i % 2 ? "odd step" : "even step")) {
                ++i;
                std::this_thread::sleep_for(50us);
            }
            return std::function<void()>([&] { cancelled = true; });
        }));
        while (!started) std::this_thread::sleep_for(1ms);
        // What the Controls panel does every frame while a job runs, many frames in a row, with
        // no poll() in between (which would order the accesses through the runner's mutex).
        for (int frame = 0; frame < 300; ++frame) {
            const std::string stage = jobs.stage();
            CHECK((stage == "odd step" || stage == "even step" || stage == "starting"));
            CHECK(jobs.progress() >= 0.0f);
            CHECK(jobs.label() == "endless");
            std::this_thread::sleep_for(100us);
        }
        jobs.cancel();
        CHECK(jobs.cancelling());
        REQUIRE(poll_until_idle(jobs));
        CHECK(cancelled);
    }

    TEST_CASE("live mode: each completion submits the next short measurement at once") {
        // As ActivationView does in live mode: the completion of one run starts the next, on real
        // CPU backends, while the main thread reads the progress every "frame".
        gpulab::core::BackendList backends = gpulab::core::make_cpu_backends();
        std::vector<gpulab::core::Backend*> raw;
        for (auto& b : backends) raw.push_back(b.get());
        JobRunner jobs;
        gpulab::core::ActivationParams params;
        params.elements = 1 << 12;
        int finished = 0, ok = 0;
        std::function<bool()> start = [&] {
            return jobs.submit("live run", [&](const gpulab::core::ProgressFn& progress) {
                auto run = std::make_shared<gpulab::core::ActivationRun>(
                    gpulab::core::run_activation(params, raw, quick(), progress));
                return std::function<void()>([&, run] {
                    ++finished;
                    if (run->ok) ++ok;
                    if (finished < 5) CHECK(start());  // busy() is already false here
                });
            });
        };
        REQUIRE(start());
        REQUIRE(poll_until_idle(jobs));
        CHECK(finished == 5);
        CHECK(ok == 5);
    }

    TEST_CASE("destroying the runner with a job running cancels it and waits for the worker") {
        std::atomic<bool> stopped{false};
        {
            JobRunner jobs;
            start_endless_job(jobs, stopped);
        }
        CHECK(stopped);
    }

    TEST_CASE("stop() ends the running job before its owner's other members go: nothing runs after it") {
        // The shell calls stop() before its views are destroyed, since a job captures its view.
        std::atomic<bool> stopped{false};
        JobRunner jobs;
        start_endless_job(jobs, stopped);
        jobs.stop();
        CHECK(stopped);  // returned only once the job had ended
        CHECK_FALSE(jobs.submit("after", [](const gpulab::core::ProgressFn&) { return std::function<void()>(); }));
        jobs.stop();  // twice, and the destructor a third time: harmless
    }

    TEST_CASE("training on the worker: live curves read every frame - Stop mid-run - the result on the main thread") {
        // What the training lesson does (app/views/train/train_jobs.cpp): the worker trains through
        // train_with_budget and appends to a shared LiveLog; the UI copies a snapshot every frame;
        // Cancel (Stop) ends the lane after the running batch; the completion hands the lane over.
        namespace tr = gpulab::train;
        tr::Dataset data;
        data.train.count = 400;
        data.test.count = 50;
        for (tr::ImageSet* set : {&data.train, &data.test}) {
            set->rows = set->cols = 12;
            for (std::int64_t i = 0; i < set->count * 144; ++i) set->pixels.push_back(static_cast<std::uint8_t>(i * 7 % 256));
            for (std::int64_t i = 0; i < set->count; ++i) set->labels.push_back(static_cast<std::uint8_t>(i % 10));
        }
        auto live = std::make_shared<tr::LiveLog>();
        JobRunner jobs;
        std::atomic<int> batches{0};
        std::shared_ptr<const tr::LaneResult> result;
        REQUIRE(jobs.submit("training", [&, live](const gpulab::core::ProgressFn& progress) {
            auto engine = tr::make_train_engine("cpu-parallel");
            tr::BudgetConfig config;
            config.train.model_spec = "conv4,pool,dense10";
            config.train.batch = 8;
            config.max_epochs = 1000;
            live->start("cpu-parallel");
            auto lane = std::make_shared<const tr::LaneResult>(tr::train_with_budget(
                *engine, data, config, [&](const tr::LaneResult& l, const tr::BatchProgress& p) {
                    live->add_batch({l.train_ns * 1e-9, p.result.loss, 0.5}, l.images, p.batch_ns, 0.5);
                    ++batches;
                    return progress(0.5f, "training");
                }));
            return std::function<void()>([&, lane] { result = lane; });
        }));
        std::size_t seen = 0;
        for (int frame = 0; frame < 2000 && batches < 30; ++frame) {
            const tr::LiveSnapshot s = live->snapshot();  // the Train tab's copy, every frame
            CHECK(s.batches.size() >= seen);
            seen = s.batches.size();
            std::this_thread::sleep_for(1ms);
        }
        jobs.cancel();  // the Stop button
        REQUIRE(poll_until_idle(jobs));
        REQUIRE(result);
        INFO("the lane's reason: ", result->reason);
        CHECK(result->ran);
        CHECK(result->stopped);
        CHECK(result->images > 0);
        CHECK(live->snapshot().batches.size() == static_cast<std::size_t>(batches.load()));
    }
}

TEST_SUITE("warmup") {
    TEST_CASE("the warm-up thread finishes with a status line the status bar can show") {
        GpuWarmup warmup;
        const auto deadline = std::chrono::steady_clock::now() + 120s;
        std::string status;
        while (!warmup.done() && std::chrono::steady_clock::now() < deadline) {
            status = warmup.status();  // read every frame while the thread writes it
            std::this_thread::sleep_for(1ms);
        }
        REQUIRE(warmup.done());
        status = warmup.status();
        CHECK_FALSE(status.empty());
        // Either it warmed a GPU up, or it says why there is none; never the "warming up" line.
        const bool warmed = status.find("GPU warmed up in") == 0;
        const bool none = status.find("no GPU to warm up: ") == 0;
        CHECK((warmed || none));
        CHECK(warmup.ok() == (warmed && status.find(": no backend ran") == std::string::npos));
    }

    TEST_CASE("closing the app while the warm-up runs waits for it") {
        for (int i = 0; i < 3; ++i) {
            GpuWarmup warmup;  // destroyed at once, usually before the probe returns
        }
        CHECK(true);
    }
}
