// core/gpu_model/gpu_model.h, inside one SM: warp schedulers per compute capability, resident warps, and the
// illustrative issue schedule the convolution lesson animates (at most one warp instruction per
// scheduler per cycle; a warp that issued its load waits for it; enough warps keep every scheduler
// busy, too few leave issue slots empty).
#include <doctest/doctest.h>

#include <algorithm>
#include <vector>

#include "gpu_model/gpu_model.h"

using namespace gpulab::core;

namespace {

int count(const std::vector<WarpState>& states, WarpState s) {
    return static_cast<int>(std::count(states.begin(), states.end(), s));
}

}  // namespace

TEST_SUITE("gpu-model") {
    TEST_CASE("warp schedulers per SM: 4, except 2 on GP100 (6.0)") {
        CHECK(warp_schedulers_per_sm(6, 0) == 2);
        CHECK(warp_schedulers_per_sm(6, 1) == 4);
        CHECK(warp_schedulers_per_sm(7, 0) == 4);
        CHECK(warp_schedulers_per_sm(7, 5) == 4);
        CHECK(warp_schedulers_per_sm(8, 0) == 4);
        CHECK(warp_schedulers_per_sm(8, 6) == 4);
        CHECK(warp_schedulers_per_sm(9, 0) == 4);
        CHECK(warp_schedulers_per_sm(12, 0) == 4);
        // An H100 SM: 4 schedulers share its 128 FP32 lanes, 32 each: one warp's worth.
        const ExampleGpu& g = kExampleGpu;
        CHECK(fp32_lanes_per_sm(g.cc_major, g.cc_minor) / warp_schedulers_per_sm(g.cc_major, g.cc_minor) ==
              kWarpSize);
    }

    TEST_CASE("resident warps: blocks x warps per block, a part-filled warp counted whole") {
        CHECK(resident_warps_per_sm(8, 256) == 64);
        CHECK(resident_warps_per_sm(6, 256) == 48);
        CHECK(resident_warps_per_sm(2, 100) == 8);  // 100 threads: 4 warps, the last one 4 threads
        CHECK(resident_warps_per_sm(0, 256) == 0);
        CHECK(resident_warps_per_sm(4, 0) == 0);
        // The H100 example of the lesson: 8 blocks of the tiled kernel, 64 warps, the SM's limit.
        const ExampleGpu& g = kExampleGpu;
        const int regs = tiled_conv_registers(g.cc_major, g.cc_minor);
        const int blocks = resident_blocks_per_sm(g.cc_major, g.cc_minor, 256, regs);
        CHECK(blocks == 8);
        CHECK(resident_warps_per_sm(blocks, 256) == max_threads_per_sm(g.cc_major, g.cc_minor) / kWarpSize);
    }

    TEST_CASE("illustrative schedule: at most one issue per scheduler per cycle, from its own warps") {
        const int warps = 64, schedulers = 4;
        for (int64_t c = 0; c < 200; ++c) {
            const std::vector<WarpState> st = illustrative_warp_states(warps, schedulers, c);
            REQUIRE(st.size() == static_cast<std::size_t>(warps));
            std::vector<int> per(schedulers, 0);
            for (int w = 0; w < warps; ++w)
                if (st[static_cast<std::size_t>(w)] == WarpState::Issued)
                    ++per[static_cast<std::size_t>(w % schedulers)];
            for (int n : per) CHECK(n <= 1);
        }
    }

    TEST_CASE("illustrative schedule: 64 warps keep 4 schedulers busy while most wait for memory") {
        const IssueModel m;  // 4 instructions, then a 40-cycle wait
        int waiting = 0, ready = 0;
        for (int64_t c = 100; c < 164; ++c) {
            const std::vector<WarpState> st = illustrative_warp_states(64, 4, c, m);
            CHECK(count(st, WarpState::Issued) == 4);  // no idle issue slot in the steady state
            waiting += count(st, WarpState::Waiting);
            ready += count(st, WarpState::Ready);
        }
        // Per scheduler 16 warps share one issue slot a cycle: each issues 4 of every 64 cycles and
        // waits 40 of them for its load, so on average 10 of 16 wait for memory and 5 for their turn.
        CHECK(waiting == 64 * 40);
        CHECK(ready == 64 * 20);
    }

    TEST_CASE("illustrative schedule: a warp waits `latency` cycles after its load, then is ready") {
        const IssueModel m{2, 5};
        // One warp, one scheduler: it issues at cycles 0, 1 (the load), waits 2..6, issues at 7, 8, ...
        const WarpState expect[] = {WarpState::Issued,  WarpState::Issued,  WarpState::Waiting, WarpState::Waiting,
                                    WarpState::Waiting, WarpState::Waiting, WarpState::Waiting, WarpState::Issued,
                                    WarpState::Issued,  WarpState::Waiting};
        for (int64_t c = 0; c < 10; ++c) {
            INFO("cycle " << c);
            CHECK(illustrative_warp_states(1, 1, c, m).front() == expect[c]);
        }
    }

    TEST_CASE("illustrative schedule: too few warps leave issue slots empty") {
        // 4 warps on 4 schedulers: each scheduler has one warp, which waits 40 of every 44 cycles.
        int issued = 0;
        for (int64_t c = 0; c < 44 * 5; ++c) issued += count(illustrative_warp_states(4, 4, c), WarpState::Issued);
        CHECK(issued == 4 * 4 * 5);
        CHECK(illustrative_warp_states(0, 4, 10).empty());
        CHECK(illustrative_warp_states(3, 0, 0).size() == 3);  // no scheduler given: one
    }
}
