// cpu-parallel against cpu-scalar (the plain loop is the truth), its thread pool, its bandwidth
// limit and its refusals. Tolerance: ReLU and leaky ReLU bit-exact; sigmoid, tanh and GELU within
// abs 2e-6 + rel 1e-5 (measured on this box over ~44 million float bit patterns: max abs 4.8e-7,
// at most 4 % of that tolerance, for SSE2, AVX2+FMA and AVX-512 alike).
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <chrono>
#include <map>
#include <mutex>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "backends/backend.h"
#include "ops/tensor_compare.h"
#include "backends/cpu_onednn.h"
#include "backends/cpu_parallel.h"
#include "backends/cpu_scalar.h"
#include "backends/simd/simd_math.h"
#include "measure/stats.h"
#include "runtime/thread_pool.h"
#include "runtime/thread_priority.h"

using namespace gpulab;

namespace {

constexpr core::Tolerance kTranscendentalTolerance{2e-6, 1e-5};

core::Backend& backend_named(core::BackendList& list, std::string_view name) {
    for (auto& b : list) {
        if (b->name() == name) return *b;
    }
    FAIL("no backend named " << std::string(name));
    throw std::logic_error("unreachable");
}

// Values over the interesting range of every activation, plus the edges sprinkled in.
core::Tensor test_input(int64_t n, uint32_t seed) {
    core::Tensor t = core::Tensor::zeros({n});
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(-12.0f, 12.0f);
    const float edges[] = {0.0f, -0.0f, 1e-8f, -1e-8f, 88.0f, -89.0f, 1e4f, -1e4f,
                           std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                           std::numeric_limits<float>::quiet_NaN()};
    for (int64_t i = 0; i < n; ++i) t.data[static_cast<std::size_t>(i)] = dist(rng);
    for (std::size_t k = 0; k < std::size(edges); ++k) {
        if (n > 0) t.data[(k * 7919) % static_cast<std::size_t>(n)] = edges[k];
    }
    return t;
}

bool exact_activation(core::Activation a) { return a == core::Activation::Relu || a == core::Activation::LeakyRelu; }

// Empty tensors have null data pointers, and memcmp's arguments must not be null even for 0 bytes
// (UBSan nonnull-attribute, issue 16).
bool bitwise_equal(const float* a, const float* b, int64_t n) {
    return n == 0 || std::memcmp(a, b, static_cast<std::size_t>(n) * sizeof(float)) == 0;
}

}  // namespace

TEST_SUITE("cpu-backends") {
    TEST_CASE("the registry lists cpu-scalar first / then cpu-parallel") {
        core::BackendList list = core::make_cpu_backends();
        REQUIRE(list.size() >= 2);
        CHECK(list[0]->name() == "cpu-scalar");
        CHECK(list[1]->name() == "cpu-parallel");
        CHECK(list[1]->availability().ok);
        CHECK(list[1]->kind() == core::BackendKind::Cpu);
        // The tooltip says which instruction set actually ran.
        CHECK(std::string(list[1]->description()).find(std::string(cpu::simd_isa())) != std::string::npos);
    }

    TEST_CASE("cpu-parallel is equivalent to cpu-scalar for every activation and size") {
        core::BackendList list = core::make_cpu_backends();
        core::Backend& ref = backend_named(list, "cpu-scalar");
        core::Backend& par = backend_named(list, "cpu-parallel");
        for (int64_t n : {int64_t{1}, int64_t{31}, int64_t{33}, int64_t{1000}, (int64_t{1} << 20) + 7}) {
            const core::Tensor in = test_input(n, static_cast<uint32_t>(n));
            for (core::Activation a : core::kAllActivations) {
                core::OpDesc op;
                op.activation = a;
                op.leaky_alpha = 0.05f;
                core::Tensor want = core::Tensor::zeros({n}), got = core::Tensor::zeros({n});
                REQUIRE(ref.run(op, in, want).ok);
                const core::RunResult r = par.run(op, in, got);
                const std::string act(core::activation_name(a));
                CAPTURE(act);
                CAPTURE(n);
                REQUIRE(r.ok);
                CHECK(r.t.compute_ns >= 0);
                const core::Comparison c = core::compare(want, got, kTranscendentalTolerance);
                CAPTURE(c.verdict);
                CHECK(c.pass);
                if (exact_activation(a)) CHECK(bitwise_equal(want.ptr(), got.ptr(), n));
            }
        }
    }

    TEST_CASE("every SIMD ISA on this CPU matches cpu-scalar on unaligned sub-ranges") {
        const core::Tensor in = test_input(4096, 7);
        for (cpu::SimdIsa isa : cpu::usable_simd_isas()) {
            for (core::Activation a : core::kAllActivations) {
                core::OpDesc op;
                op.activation = a;
                const std::string label = std::string(cpu::simd_isa_name(isa)) + " " + op.label();
                CAPTURE(label);
                // Offsets that break every vector alignment, lengths around the vector widths.
                // Streaming stores too: they need an aligned destination, so the kernel peels a head.
                for (int64_t offset : {1, 3, 5, 17}) {
                    for (int64_t len : {0, 1, 3, 4, 7, 8, 15, 16, 17, 31, 33, 63, 65, 1001}) {
                      for (bool stream : {false, true}) {
                        std::vector<float> want(static_cast<std::size_t>(len) + 2, -7.0f);
                        std::vector<float> got(static_cast<std::size_t>(len) + 2, -7.0f);
                        cpu::activation_reference(op, in.ptr() + offset, want.data() + 1, len);
                        REQUIRE(cpu::activation_simd_with(isa, op, in.ptr() + offset, got.data() + 1, len, stream));
                        CAPTURE(offset);
                        CAPTURE(len);
                        CAPTURE(stream);
                        // Guards on both sides: nothing written outside [1, len].
                        CHECK(got.front() == -7.0f);
                        CHECK(got.back() == -7.0f);
                        core::Tensor tw, tg;
                        tw.shape = tg.shape = {len};
                        tw.data.assign(want.begin() + 1, want.end() - 1);
                        tg.data.assign(got.begin() + 1, got.end() - 1);
                        const core::Comparison c = core::compare(tw, tg, kTranscendentalTolerance);
                        CAPTURE(c.verdict);
                        CHECK(c.pass);
                        if (exact_activation(a)) CHECK(bitwise_equal(tw.ptr(), tg.ptr(), len));
                      }
                    }
                }
            }
        }
    }

    TEST_CASE("cpu-parallel past the streaming-store threshold still equals cpu-scalar") {
        // Large outputs are written with streaming stores (see cpu_parallel.h); check that path
        // through the backend, with an odd size so the last chunk is ragged.
        const int64_t n = static_cast<int64_t>(cpu::streaming_threshold_bytes() / (2 * sizeof(float))) + 4099;
        REQUIRE(cpu::uses_streaming_stores(2 * sizeof(float) * static_cast<std::size_t>(n)));
        const core::Tensor in = test_input(n, 3);
        core::BackendList list = core::make_cpu_backends();
        for (core::Activation a : {core::Activation::Relu, core::Activation::Gelu}) {
            core::OpDesc op;
            op.activation = a;
            core::Tensor want = core::Tensor::zeros({n}), got = core::Tensor::zeros({n});
            REQUIRE(backend_named(list, "cpu-scalar").run(op, in, want).ok);
            REQUIRE(backend_named(list, "cpu-parallel").run(op, in, got).ok);
            const core::Comparison c = core::compare(want, got, kTranscendentalTolerance);
            CAPTURE(c.verdict);
            CHECK(c.pass);
        }
        std::vector<unsigned char> dst(in.bytes() + 3, 0);
        cpu::parallel_copy(dst.data() + 3, in.ptr(), in.bytes());  // misaligned destination on purpose
        CHECK(std::memcmp(dst.data() + 3, in.ptr(), in.bytes()) == 0);
    }

    TEST_CASE("activation_simd works in place") {
        core::OpDesc op;
        op.activation = core::Activation::Sigmoid;
        std::vector<float> x = {-3.0f, 0.0f, 3.0f, 1.0f, -1.0f};
        std::vector<float> want(x.size());
        cpu::activation_reference(op, x.data(), want.data(), static_cast<int64_t>(x.size()));
        cpu::activation_simd(op, x.data(), x.data(), static_cast<int64_t>(x.size()));
        for (std::size_t i = 0; i < x.size(); ++i) CHECK(x[i] == doctest::Approx(want[i]).epsilon(1e-5));
    }

    TEST_CASE("a size mismatch is refused with a message and not a crash") {
        auto par = cpu::make_parallel_backend();
        core::OpDesc op;
        const core::Tensor in = core::Tensor::zeros({100});
        core::Tensor out = core::Tensor::zeros({99});
        const core::RunResult r = par->run(op, in, out);
        CHECK_FALSE(r.ok);
        CHECK(r.error.find("99") != std::string::npos);
    }

    TEST_CASE("an empty tensor runs and does nothing") {
        auto par = cpu::make_parallel_backend();
        core::OpDesc op;
        core::Tensor in, out;
        in.shape = out.shape = {0};
        CHECK(par->run(op, in, out).ok);
    }

    TEST_CASE("can_allocate refuses more memory than the machine has") {
        auto par = cpu::make_parallel_backend();
        CHECK(par->can_allocate(1024).ok);
        const core::Availability huge = par->can_allocate(std::size_t{1} << 60);
        CHECK_FALSE(huge.ok);
        CHECK_FALSE(huge.reason.empty());
    }

    TEST_CASE("bandwidth limits are positive and say which copy won - small and large") {
        const std::string threads = std::to_string(cpu::parallel_threads()) +
                                    (cpu::parallel_threads() == 1 ? " thread" : " threads");
        auto par = cpu::make_parallel_backend();
        auto scalar = cpu::make_scalar_backend();
        // 4 KiB (one chunk, in L1), 4 MiB (in cache, every thread), and one size past the
        // streaming-store threshold (in + out), where the SIMD copy must stream like the op.
        const std::size_t past_cache = cpu::streaming_threshold_bytes() / 2 + 4096;
        for (std::size_t bytes : {std::size_t{4096}, std::size_t{4} << 20, past_cache}) {
            CAPTURE(bytes);
            const core::LimitResult p = par->bandwidth_limit(bytes);
            CAPTURE(p.error);
            CAPTURE(p.name);
            CHECK(p.ok);
            CHECK(p.gbps > 0.0);
            const bool stream = cpu::uses_streaming_stores(2 * bytes);
            const std::string simd_name = "copy (" + threads + ", " + std::string(cpu::simd_isa()) +
                                          (stream ? ", streaming stores)" : ")");
            CHECK((p.name == "memcpy (" + threads + ")" || p.name == simd_name));

            const core::LimitResult s = scalar->bandwidth_limit(bytes);
            CAPTURE(s.error);
            CAPTURE(s.name);
            CHECK(s.ok);
            CHECK(s.gbps > 0.0);
            CHECK((s.name == "memcpy (1 thread)" || s.name == "scalar copy loop (1 thread)"));
        }
        CHECK(cpu::uses_streaming_stores(2 * past_cache));
    }

    TEST_CASE("bandwidth limits refuse impossible and empty sizes with a message") {
        core::BackendList list = core::make_cpu_backends();
        for (auto& b : list) {
            if (!b->availability().ok) continue;
            CAPTURE(std::string(b->name()));
            const core::LimitResult too_big = b->bandwidth_limit(std::size_t{1} << 60);
            CHECK_FALSE(too_big.ok);
            CHECK_FALSE(too_big.error.empty());
            const core::LimitResult empty = b->bandwidth_limit(0);
            CHECK_FALSE(empty.ok);
            CHECK_FALSE(empty.error.empty());
        }
    }

    TEST_CASE("cpu-parallel ReLU does not beat its own limit by an absurd factor") {
        // A limit the op beats is not a limit. Timing on a shared 2-core box is noisy, so: medians,
        // a generous bound (1.6; ~1.0 is expected), and up to three tries, each with fresh medians.
        // A real bias (a cold or slower copy, as before) fails all three; a noise burst does not.
        auto par = cpu::make_parallel_backend();
        for (int64_t n : {int64_t{1} << 16, int64_t{1} << 20}) {
            core::Tensor in = test_input(n, 5), out = core::Tensor::zeros({n});
            double best_fraction = 1e9;
            for (int attempt = 0; attempt < 3 && best_fraction >= 1.6; ++attempt) {
                const core::OpDesc relu;
                for (int i = 0; i < 2; ++i) par->run(relu, in, out);
                std::vector<int64_t> t;
                for (int i = 0; i < 21; ++i) {
                    const core::RunResult r = par->run(relu, in, out);
                    REQUIRE(r.ok);
                    t.push_back(r.t.compute_ns);
                }
                const double op_gbps = core::gbps(static_cast<double>(in.bytes() + out.bytes()),
                                                  core::summarize(t).median_ns);
                const core::LimitResult l = par->bandwidth_limit(in.bytes());
                REQUIRE(l.ok);
                if (op_gbps > 0.0) best_fraction = std::min(best_fraction, op_gbps / l.gbps);
            }
            CAPTURE(n);
            CHECK(best_fraction < 1.6);
        }
    }

    TEST_CASE("parallel_copy copies every byte / odd sizes included") {
        for (std::size_t bytes : {std::size_t{0}, std::size_t{1}, std::size_t{65535}, std::size_t{65537},
                                  std::size_t{1000003}}) {
            std::vector<unsigned char> src(bytes), dst(bytes, 0);
            for (std::size_t i = 0; i < bytes; ++i) src[i] = static_cast<unsigned char>(i * 131 + 7);
            cpu::parallel_copy(dst.data(), src.data(), bytes);
            CAPTURE(bytes);
            CHECK(src == dst);
        }
    }

    TEST_CASE("streaming passes over large arrays take long chunks: sixteen per thread") {
        CHECK(cpu::streaming_chunk(0, 2) == cpu::kDefaultChunk);
        CHECK(cpu::streaming_chunk(1 << 18, 2) == cpu::kDefaultChunk);  // 1/32 is 8192 floats: 64 KiB stays
        CHECK(cpu::streaming_chunk(1 << 20, 2) == 32768);
        CHECK(cpu::streaming_chunk(int64_t{1} << 26, 2) == (int64_t{1} << 26) / 32);
        CHECK(cpu::streaming_chunk(int64_t{1} << 26, 0) == (int64_t{1} << 26) / 16);  // no threads: one
    }

    TEST_CASE("thread pool runs every index exactly once") {
        cpu::ThreadPool pool(4);  // more threads than this box has cores: contention must not lose work
        CHECK(pool.size() == 4);
        for (int64_t n : {int64_t{0}, int64_t{1}, int64_t{63}, int64_t{64}, int64_t{65}, int64_t{6403}}) {
            std::vector<std::atomic<int>> hits(static_cast<std::size_t>(n));
            pool.parallel_for(
                n,
                [&](int64_t begin, int64_t end) {
                    for (int64_t i = begin; i < end; ++i) hits[static_cast<std::size_t>(i)].fetch_add(1);
                },
                64);
            int64_t wrong = 0;
            for (auto& h : hits) wrong += h.load() != 1;
            CAPTURE(n);
            CHECK(wrong == 0);
        }
    }

    TEST_CASE("thread pool serves several callers and nested calls") {
        cpu::ThreadPool& pool = cpu::ThreadPool::shared();
        CHECK(pool.size() == static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
        std::atomic<int64_t> total{0};
        std::vector<std::thread> callers;
        for (int c = 0; c < 3; ++c) {
            callers.emplace_back([&] {
                for (int rep = 0; rep < 20; ++rep) {
                    pool.parallel_for(
                        1000, [&](int64_t begin, int64_t end) { total.fetch_add(end - begin); }, 37);
                }
            });
        }
        for (auto& t : callers) t.join();
        CHECK(total.load() == 3 * 20 * 1000);

        std::atomic<int64_t> inner{0};
        pool.parallel_for(
            8,
            [&](int64_t begin, int64_t end) {
                for (int64_t i = begin; i < end; ++i) {
                    pool.parallel_for(
                        100, [&](int64_t b, int64_t e) { inner.fetch_add(e - b); }, 10);
                }
            },
            1);
        CHECK(inner.load() == 800);
    }

    TEST_CASE("thread pool workers take the nice value asked for: the caller keeps its own") {
        const int base = cpu::this_thread_nice();
        const int wanted = std::min(base + 3, 19);
        cpu::ThreadPool pool(3);
        pool.set_worker_nice(wanted);
        const auto caller = std::this_thread::get_id();
        std::mutex m;
        std::map<std::thread::id, int> seen;  // thread -> its nice value inside a chunk
        // Chunks that sleep a little, so every worker gets some (a worker that never woke would
        // never have set its value; rounds until both did, bounded).
        for (int round = 0; round < 50 && seen.size() < 3; ++round) {
            pool.parallel_for(
                12,
                [&](int64_t, int64_t) {
                    std::this_thread::sleep_for(std::chrono::milliseconds(1));
                    std::lock_guard lock(m);
                    seen[std::this_thread::get_id()] = cpu::this_thread_nice();
                },
                1);
        }
        REQUIRE(seen.size() == 3);
        for (const auto& [id, nice] : seen) {
            CAPTURE(nice);
            if (id == caller) {
                CHECK(nice == base);
            } else {
#if defined(__linux__)
                CHECK(nice == wanted);
#endif
            }
        }
    }

    TEST_CASE("an exception in a chunk reaches the caller and the pool keeps working") {
        cpu::ThreadPool pool(2);
        CHECK_THROWS_AS(pool.parallel_for(
                            1000,
                            [](int64_t begin, int64_t) {
                                if (begin >= 500) throw std::runtime_error("chunk failed");
                            },
                            10),
                        std::runtime_error);
        std::atomic<int64_t> count{0};
        pool.parallel_for(
            1000, [&](int64_t begin, int64_t end) { count.fetch_add(end - begin); }, 10);
        CHECK(count.load() == 1000);
    }

    TEST_CASE("cpu-onednn is listed after cpu-parallel when it can run and says why when not") {
        auto onednn = cpu::make_onednn_backend();
        CHECK(onednn->name() == "cpu-onednn");
        core::BackendList list = core::make_cpu_backends();
        const core::Availability av = onednn->availability();
        if (!av.ok) {
            CHECK_FALSE(av.reason.empty());
            CHECK(list.size() == 2);
            core::Tensor in = core::Tensor::zeros({4}), out = core::Tensor::zeros({4});
            const core::RunResult r = onednn->run(core::OpDesc{}, in, out);
            CHECK_FALSE(r.ok);
            CHECK(r.error == av.reason);
            return;
        }
        REQUIRE(list.size() == 3);
        CHECK(list[2]->name() == "cpu-onednn");
        // The kernel oneDNN picked is named ("jit:avx512_core", "jit:avx2", "ref:any", ...).
        const std::string impl = cpu::onednn_implementation(core::OpDesc{}, 1 << 20);
        CAPTURE(impl);
        CHECK(impl.find(':') != std::string::npos);
        CHECK(std::string(onednn->description()).find(impl) != std::string::npos);
    }

    TEST_CASE("cpu-onednn matches cpu-scalar on finite inputs") {
        // Finite inputs only: oneDNN 2.6 has its own NaN and -inf behaviour (ReLU maps NaN to 0, GELU
        // of -inf is NaN), which the app shows as a mismatch rather than hiding it.
        auto onednn = cpu::make_onednn_backend();
        if (!onednn->availability().ok) return;
        for (int64_t n : {int64_t{1}, int64_t{33}, int64_t{1000}, (int64_t{1} << 16) + 3}) {
            core::Tensor in = test_input(n, 11);
            for (float& v : in.data) {
                if (!std::isfinite(v)) v = 0.5f;
            }
            for (core::Activation a : core::kAllActivations) {
                core::OpDesc op;
                op.activation = a;
                op.leaky_alpha = 0.05f;
                core::Tensor want = core::Tensor::zeros({n}), got = core::Tensor::zeros({n});
                cpu::activation_reference(op, in.ptr(), want.ptr(), n);
                const core::RunResult r = onednn->run(op, in, got);
                const std::string act(core::activation_name(a));
                CAPTURE(act);
                CAPTURE(n);
                CAPTURE(r.error);
                REQUIRE(r.ok);
                const core::Comparison c = core::compare(want, got, kTranscendentalTolerance);
                CAPTURE(c.verdict);
                CHECK(c.pass);
            }
        }
        core::Tensor in = core::Tensor::zeros({10}), out = core::Tensor::zeros({9});
        CHECK_FALSE(onednn->run(core::OpDesc{}, in, out).ok);
    }
}
