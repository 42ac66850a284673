// cpu-parallel: every core through the shared thread pool, each running the vectorised kernel
// of simd_math.h on 64 KiB chunks. Its bandwidth limit (cpu_limit.cpp) is the better of a
// parallel memcpy and the same SIMD loop doing a copy, with the same pool, chunking and (for arrays
// past the cache) streaming stores, so "fraction of limit" compares like with like.
// Verified by tests/test_cpu_backends.cpp.
#include "cpu_parallel.h"

#include <unistd.h>

#include <cstring>
#include <exception>
#include <fstream>
#include <mutex>
#include <new>
#include <string>

#include "measure/clock.h"
#include "backends/conv2d/cpu_conv2d.h"
#include "cpu_scalar.h"
#include "cpu_limit.h"
#include "runtime/memory.h"
#include "runtime/cancel.h"
#include "runtime/thread_pool.h"

namespace gpulab::cpu {

using namespace gpulab::core;

int parallel_threads() { return ThreadPool::shared().size(); }

namespace {

// "32768K" (sysfs style) in bytes; 0 when it does not parse.
std::size_t parse_cache_size(const std::string& text) {
    std::size_t value = 0;
    std::size_t i = 0;
    for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
        value = value * 10 + static_cast<std::size_t>(text[i] - '0');
    }
    if (i == 0) return 0;
    if (i < text.size() && (text[i] == 'K' || text[i] == 'k')) return value << 10;
    if (i < text.size() && text[i] == 'M') return value << 20;
    return value;
}

// The size of one level-3 cache as Linux reports it for CPU 0, 0 when there is none.
std::size_t sysfs_l3_bytes() {
    for (int index = 0; index < 8; ++index) {
        const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/";
        std::ifstream level(dir + "level");
        int lv = 0;
        if (!(level >> lv)) break;
        if (lv != 3) continue;
        std::ifstream size(dir + "size");
        std::string text;
        if (size >> text) return parse_cache_size(text);
    }
    return 0;
}

}  // namespace

std::size_t streaming_threshold_bytes() {
    // sysfs first: on this project's KVM box the C library's figure (CPUID leaf 0x80000006) says
    // 320 MiB, the whole package, while one core reaches a 32 MiB L3. Arrays of 128 MiB in + out
    // measured 11 GB/s with plain stores and 19 GB/s with streaming stores: they are not cached.
    static const std::size_t threshold = [] {
        constexpr std::size_t kFallback = std::size_t{32} << 20;
        const std::size_t from_sysfs = sysfs_l3_bytes();
        if (from_sysfs > 0) return from_sysfs;
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
    const int64_t chunk_bytes = streaming_chunk(static_cast<int64_t>(bytes / sizeof(float)), ThreadPool::shared().size()) *
                                static_cast<int64_t>(sizeof(float));
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

namespace {

class ParallelBackend final : public Backend {
public:
    explicit ParallelBackend(SimdIsa isa) : isa_(isa) {
        const int threads = parallel_threads();
        const bool forced = isa == best_simd_isa() && isa_choice().forced;
        description_ =
            std::to_string(threads) + (threads == 1 ? " thread" : " threads") + " (a reused pool), each " +
            std::string(simd_isa_name(isa)) + " SIMD (" + std::to_string(simd_isa_lanes(isa)) +
            " floats per instruction" + (forced ? ", forced by GPULAB_ISA=" + isa_choice().request : "") +
            "); sigmoid/tanh/GELU use a polynomial exp, not expf; convolution picks per shape: output channels "
            "in registers for CNN layers (input and output in blocked layouts converted outside the clock, as "
            "cpu-onednn's), im2col + GEMM for one input channel or a stride above 1, columns in registers otherwise.";
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
            if (!simd_isa_usable(isa_)) {
                r.error = "cpu-parallel: this CPU cannot run " + std::string(simd_isa_name(isa_));
                return r;
            }
            const SimdIsa isa = isa_;
            ThreadPool::shared().parallel_for(
                in.size(),
                [&op, src, dst, stream, isa](int64_t begin, int64_t end) {
                    throw_if_cancelled();  // a chunk is 1/16 of a thread's share: a few ms at 2^26
                    activation_simd_with(isa, op, src + begin, dst + begin, end - begin, stream);
                },
                streaming_chunk(in.size(), ThreadPool::shared().size()));
            r.t.compute_ns = now_ns() - t0;
            r.ok = true;
        } catch (const Cancelled&) {
            throw;  // the workload turns the stop request into its "cancelled" result
        } catch (const std::exception& e) {
            r.error = std::string("cpu-parallel failed: ") + e.what();
        }
        return r;
    }

    LimitResult bandwidth_limit(std::size_t bytes) override { return measure_parallel_copy_limit(bytes); }

    // [SECTION] convolution: direct, threaded over output rows, vectorised across columns (cpu_conv2d.h)
    bool supports_conv2d(const Conv2dDesc& d) const override { return d.validate().empty(); }

    RunResult run_conv2d(const Conv2dDesc& d, const Tensor& input, const Tensor& filters, Tensor& output) override {
        RunResult r;
        r.error = conv2d_size_error(d, input, filters, output);
        if (!r.error.empty()) return r;
        try {
            // The filters go into the kernel's layout before the clock starts, as cpu-onednn's
            // weights go into oneDNN's (cpu_conv2d.h, Conv2dFilters); where the channel kernel runs,
            // so do the input and output (Conv2dStaged), as oneDNN's reorders do. Other shapes, and
            // layers whose staged copies would not fit in memory, read and write N,C,H,W inside the clock.
            Conv2dFilters prepared;
            if (!prepare_filters(isa_, d, filters.ptr(), prepared)) {
                r.error = "cpu-parallel: this CPU cannot run " + std::string(simd_isa_name(isa_));
                return r;
            }
            if (stages(d)) {
                std::lock_guard<std::mutex> lock(staged_mutex_);
                conv2d_stage_input(prepared, input.ptr(), staged_);
                const int64_t t0 = now_ns();
                conv2d_parallel_staged(prepared, staged_);
                r.t.compute_ns = now_ns() - t0;
                conv2d_unstage_output(prepared, staged_, output.ptr());
            } else {
                const int64_t t0 = now_ns();
                conv2d_parallel_prepared(prepared, input.ptr(), output.ptr());
                r.t.compute_ns = now_ns() - t0;
            }
            r.ok = true;
        } catch (const std::bad_alloc&) {
            r.error = "cpu-parallel: not enough memory for its working copies of the input and output (" +
                      std::to_string(conv2d_staged_bytes(isa_, d) >> 20) + " MiB more)";
        } catch (const std::exception& e) {
            r.error = std::string("cpu-parallel conv2d failed: ") + e.what();
        }
        return r;
    }

    std::string conv2d_implementation(const Conv2dDesc& d) const override {
        return conv2d_parallel_implementation(d, isa_) + (stages(d) ? " (layouts converted untimed)" : "");
    }

private:
    // The staged copies double the layer's memory: a layer that fits only once runs the ring path.
    bool stages(const Conv2dDesc& d) const {
        return simd_isa_usable(isa_) && conv2d_can_stage(isa_, d) &&
               check_host_allocation(conv2d_staged_bytes(isa_, d)).ok;
    }

    SimdIsa isa_;
    std::string description_;
    // The staged layouts' buffers, reused while runs repeat one shape (the measurement loop).
    std::mutex staged_mutex_;
    Conv2dStaged staged_;
};

}  // namespace

std::unique_ptr<Backend> make_parallel_backend() { return std::make_unique<ParallelBackend>(best_simd_isa()); }
std::unique_ptr<Backend> make_parallel_backend(SimdIsa isa) { return std::make_unique<ParallelBackend>(isa); }

}  // namespace gpulab::cpu
