// cpu-parallel: every core through the shared thread pool, each running the vectorised kernel
// of simd_math.h on 64 KiB chunks. Its bandwidth limit is a parallel memcpy with the same pool,
// chunking and (for arrays past the cache) streaming stores, so "fraction of memcpy" compares
// like with like.
// Verified by tests/test_cpu_backends.cpp.
#include "cpu_parallel.h"

#include <unistd.h>

#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include "clock.h"
#include "memory.h"
#include "stats.h"
#include "thread_pool.h"

namespace gpulab::cpu {

using namespace gpulab::core;

int parallel_threads() { return ThreadPool::shared().size(); }

std::size_t streaming_threshold_bytes() {
    static const std::size_t threshold = [] {
        constexpr std::size_t kFallback = std::size_t{32} << 20;
#if defined(_SC_LEVEL3_CACHE_SIZE)
        const long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
        if (l3 > 0) return static_cast<std::size_t>(l3);
#endif
        return kFallback;
    }();
    return threshold;
}

bool uses_streaming_stores(std::size_t in_plus_out_bytes) { return in_plus_out_bytes > streaming_threshold_bytes(); }

void parallel_copy(void* dst, const void* src, std::size_t bytes) {
    auto* d = static_cast<unsigned char*>(dst);
    const auto* s = static_cast<const unsigned char*>(src);
    const int64_t chunk_bytes = kDefaultChunk * static_cast<int64_t>(sizeof(float));
    const bool stream = uses_streaming_stores(2 * bytes);
    ThreadPool::shared().parallel_for(
        static_cast<int64_t>(bytes),
        [d, s, stream](int64_t begin, int64_t end) {
            const auto len = static_cast<std::size_t>(end - begin);
            if (!stream) {
                std::memcpy(d + begin, s + begin, len);
                return;
            }
            // Whole floats through the streaming vector copy, any last odd bytes by memcpy.
            const std::size_t floats = len / sizeof(float);
            copy_simd(reinterpret_cast<const float*>(s + begin), reinterpret_cast<float*>(d + begin),
                      static_cast<int64_t>(floats), true);
            std::memcpy(d + begin + floats * sizeof(float), s + begin + floats * sizeof(float),
                        len - floats * sizeof(float));
        },
        chunk_bytes);
}

LimitResult measure_parallel_memcpy(std::size_t bytes) {
    constexpr int kRepeats = 7;  // median of 7 after one warm-up run
    LimitResult l;
    const int threads = parallel_threads();
    l.name = "memcpy (" + std::to_string(threads) + (threads == 1 ? " thread" : " threads") +
             (uses_streaming_stores(2 * bytes) ? ", streaming stores)" : ")");
    const Availability fits = check_host_allocation(2 * bytes);
    if (!fits.ok) {
        l.error = fits.reason;
        return l;
    }
    try {
        const std::size_t floats = (bytes + sizeof(float) - 1) / sizeof(float);
        FloatBuffer src(floats, 1.0f), dst(floats);
        const std::size_t copy_bytes = floats * sizeof(float);
        parallel_copy(dst.data(), src.data(), copy_bytes);  // warm-up: pages mapped, pool awake
        std::vector<int64_t> t;
        for (int i = 0; i < kRepeats; ++i) {
            const int64_t t0 = now_ns();
            parallel_copy(dst.data(), src.data(), copy_bytes);
            t.push_back(now_ns() - t0);
        }
        l.gbps = gbps(2.0 * static_cast<double>(copy_bytes), summarize(t).median_ns);
        l.ok = l.gbps > 0.0;
        if (!l.ok) l.error = "the copy was too fast to time; use a larger size";
    } catch (const std::exception& e) {
        l.error = std::string("memcpy limit failed: ") + e.what();
    }
    return l;
}

namespace {

class ParallelBackend final : public Backend {
public:
    ParallelBackend() {
        const int threads = parallel_threads();
        const SimdIsa isa = best_simd_isa();
        description_ = std::to_string(threads) + (threads == 1 ? " thread" : " threads") + " (a reused pool), each " +
                       std::string(simd_isa_name(isa)) + " SIMD (" + std::to_string(simd_isa_lanes(isa)) +
                       " floats per instruction); sigmoid/tanh/GELU use a polynomial exp, not expf.";
    }

    std::string_view name() const override { return "cpu-parallel"; }
    std::string_view description() const override { return description_; }
    BackendKind kind() const override { return BackendKind::Cpu; }
    Availability availability() const override { return {true, "always available"}; }
    bool supports(const OpDesc& op) const override { return op.kind == OpKind::Activation; }
    Availability can_allocate(std::size_t bytes) const override { return check_host_allocation(bytes); }

    RunResult run(const OpDesc& op, const Tensor& in, Tensor& out) override {
        RunResult r;
        if (out.size() != in.size()) {
            r.error = "output has " + std::to_string(out.size()) + " elements, input " + std::to_string(in.size());
            return r;
        }
        if (!supports(op)) {
            r.error = "cpu-parallel does not support " + op.label();
            return r;
        }
        const float* src = in.ptr();
        float* dst = out.ptr();
        try {
            const int64_t t0 = now_ns();
            const bool stream = uses_streaming_stores(in.bytes() + out.bytes());
            ThreadPool::shared().parallel_for(in.size(), [&op, src, dst, stream](int64_t begin, int64_t end) {
                activation_simd(op, src + begin, dst + begin, end - begin, stream);
            });
            r.t.compute_ns = now_ns() - t0;
            r.ok = true;
        } catch (const std::exception& e) {
            r.error = std::string("cpu-parallel failed: ") + e.what();
        }
        return r;
    }

    LimitResult bandwidth_limit(std::size_t bytes) override { return measure_parallel_memcpy(bytes); }

private:
    std::string description_;
};

}  // namespace

std::unique_ptr<Backend> make_parallel_backend() { return std::make_unique<ParallelBackend>(); }

}  // namespace gpulab::cpu
