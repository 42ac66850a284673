// Our CUDA training kernels (kernels/train/*.cuh) against cpu-scalar's layer functions
// (core/train/cpu_scalar_layers.cpp), one layer at a time, through the same table of functions
// (train::CpuLayerOps). Each test body runs on cuda-sim (the same kernel source on the SIMT
// simulator: every machine, never skipped).
//
// Tolerances (pass when |gpu - ref| <= abs + rel * |ref| for every element), stated per case:
//   loss      per-batch mean within 1e-5 relative; dlogits within 1e-6 absolute (values are
//             probabilities / n, the kernel sums 10 exponentials in float where the reference
//             uses double: a few ulp of 1).
//   SGD       w and v within 1e-6 absolute plus 1e-6 relative (an FMA rounds once where the
//             reference rounds twice).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "train/cpu_layers.h"
#include "train/sim_train_layers.h"

using namespace gpulab;
using namespace gpulab::train;

namespace {

std::vector<float> uniform(std::size_t count, float lo, float hi, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> d(lo, hi);
    std::vector<float> v(count);
    for (float& x : v) x = d(rng);
    return v;
}

// Counts elements outside abs + rel * |ref| and reports the first few.
int count_outside(const std::vector<float>& got, const std::vector<float>& ref, double abs, double rel) {
    REQUIRE(got.size() == ref.size());
    int bad = 0;
    for (std::size_t i = 0; i < ref.size(); ++i) {
        if (!(std::abs(static_cast<double>(got[i]) - ref[i]) <= abs + rel * std::abs(static_cast<double>(ref[i])))) {
            if (bad < 5) MESSAGE("element " << i << ": got " << got[i] << ", reference " << ref[i]);
            ++bad;
        }
    }
    return bad;
}

// The GPU tables every test body runs: cuda-sim on every machine.
std::vector<const CpuLayerOps*> gpu_layer_tables() { return {&sim::sim_train_layer_ops()}; }

}  // namespace

TEST_SUITE("gpu-train") {

TEST_CASE("softmax cross-entropy kernels: per-image loss, correct count and (softmax - onehot) / n") {
    const CpuLayerOps& ref = scalar_layer_ops();
    for (const CpuLayerOps* ops : gpu_layer_tables()) {
        CAPTURE(ops->name);
        for (const std::int64_t n : {1, 7, 300}) {
            CAPTURE(n);
            const std::int64_t classes = 10;
            std::vector<float> logits = uniform(static_cast<std::size_t>(n * classes), -8.0f, 8.0f, 3);
            std::vector<std::uint8_t> labels(static_cast<std::size_t>(n));
            for (std::int64_t m = 0; m < n; ++m) labels[m] = static_cast<std::uint8_t>((m * 7 + 3) % classes);
            if (n > 1) logits[classes + labels[1]] = 100.0f;  // image 1 is right, with a logit that would overflow exp
            std::vector<float> d_ref(logits.size()), d_gpu(logits.size());
            const BatchResult r = ref.softmax_cross_entropy(n, classes, logits.data(), labels.data(), d_ref.data());
            const BatchResult g = ops->softmax_cross_entropy(n, classes, logits.data(), labels.data(), d_gpu.data());
            CHECK(g.loss == doctest::Approx(r.loss).epsilon(1e-5));
            CHECK(g.correct == r.correct);
            CHECK(count_outside(d_gpu, d_ref, 1e-6, 0.0) == 0);
        }
    }
}

TEST_CASE("SGD-with-momentum kernel: v = m*v - lr*g; w += v, on every parameter") {
    const CpuLayerOps& ref = scalar_layer_ops();
    for (const CpuLayerOps* ops : gpu_layer_tables()) {
        CAPTURE(ops->name);
        for (const std::int64_t count : {1, 255, 257, 5000}) {
            CAPTURE(count);
            const auto n = static_cast<std::size_t>(count);
            std::vector<float> w1 = uniform(n, -1.0f, 1.0f, 1), v1 = uniform(n, -0.1f, 0.1f, 2);
            const std::vector<float> g = uniform(n, -2.0f, 2.0f, 4);
            std::vector<float> w2 = w1, v2 = v1;
            const Sgd sgd{0.05f, 0.9f};
            ref.sgd_momentum(count, sgd, w1.data(), v1.data(), g.data());
            ops->sgd_momentum(count, sgd, w2.data(), v2.data(), g.data());
            CHECK(count_outside(v2, v1, 1e-6, 1e-6) == 0);
            CHECK(count_outside(w2, w1, 1e-6, 1e-6) == 0);
        }
    }
}

}  // TEST_SUITE
