// The simulator's speed on the lessons' default sizes (see sim_bench.h). Verified by
// tests/test_sim.cpp ("the simulator benchmark reports positive rates").
#include "sim_bench.h"

#include <algorithm>
#include <ctime>
#include <functional>

#include "conv2d/conv2d_launch.h"
#include "sim_kernels.h"

namespace gpulab::sim {

namespace {

int64_t process_cpu_ns() {
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return int64_t{t.tv_sec} * 1'000'000'000 + t.tv_nsec;
}

SimBenchRow time_launches(std::string name, int repeats, const std::function<Result()>& launch_once) {
    SimBenchRow row;
    row.name = std::move(name);
    std::vector<int64_t> times, cpu;
    for (int i = 0; i < std::max(1, repeats); ++i) {
        const int64_t cpu0 = process_cpu_ns();
        const Result r = launch_once();
        cpu.push_back(process_cpu_ns() - cpu0);
        if (!r.ok) {
            row.error = r.error;
            return row;
        }
        times.push_back(r.stats.wall_ns);
        row.threads = r.stats.threads;
        row.barrier_crossings = r.stats.thread_barrier_crossings;
    }
    std::sort(times.begin(), times.end());
    std::sort(cpu.begin(), cpu.end());
    row.median_ns = times[times.size() / 2];
    row.cpu_ns = cpu[cpu.size() / 2];
    row.ok = true;
    return row;
}

}  // namespace

std::vector<SimBenchRow> run_sim_bench(int repeats, bool one_thread) {
    Options o;
    o.parallel = !one_thread;
    std::vector<SimBenchRow> rows;

    constexpr int64_t kElements = int64_t{1} << 20;
    Buffer<float> in("in", kElements), out("out", kElements);
    for (int64_t i = 0; i < kElements; ++i) in.data()[i] = static_cast<float>(i % 17) - 8.0f;
    core::OpDesc relu;
    relu.activation = core::Activation::Relu;
    rows.push_back(time_launches("activation relu 2^20", repeats,
                                 [&] { return run_activation(relu, in.cptr(), out.ptr(), kElements, o); }));

    core::Conv2dDesc d;
    d.height = 512, d.width = 512, d.kernel = 3, d.stride = 1;
    const kern::ConvShape s = kern::conv2d_shape(d);
    Buffer<float> image("input", static_cast<std::size_t>(d.input_elements()));
    Buffer<float> filters("filters", 9);
    Buffer<float> result("output", static_cast<std::size_t>(d.output_elements()));
    for (std::size_t i = 0; i < image.size(); ++i) image.data()[i] = static_cast<float>(i % 5);
    for (int i = 0; i < 9; ++i) filters.data()[i] = 1.0f / 9.0f;
    rows.push_back(time_launches("conv2d tiled 512x512 3x3", repeats, [&] {
        return run_conv2d(kern::Conv2dKernel::Tiled, s, image.cptr(), filters.cptr(), result.ptr(), o);
    }));
    rows.push_back(time_launches("conv2d naive 512x512 3x3", repeats, [&] {
        return run_conv2d(kern::Conv2dKernel::Naive, s, image.cptr(), filters.cptr(), result.ptr(), o);
    }));
    return rows;
}

}  // namespace gpulab::sim
