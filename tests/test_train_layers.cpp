// Training layers (core/train/cpu_layers.h): every cpu-scalar layer against finite differences of
// its own forward pass (the reference must be right before anything is compared with it), then
// every cpu-parallel layer against cpu-scalar within a stated tolerance, and the matrix product
// against a plain triple loop.
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <random>
#include <vector>

#include "train/cpu_layers.h"
#include "backends/simd/train_gemm.h"

using namespace gpulab::train;

namespace {

std::vector<float> random_vector(std::size_t n, unsigned seed, float lo = -1.0f, float hi = 1.0f) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> d(lo, hi);
    std::vector<float> v(n);
    for (float& x : v) x = d(rng);
    return v;
}

double dot(const std::vector<float>& a, const std::vector<float>& b) {
    double s = 0.0;
    for (std::size_t i = 0; i < a.size(); ++i) s += static_cast<double>(a[i]) * b[i];
    return s;
}

// Central differences of `loss` with respect to v[i], for every `stride`-th i, against `grad`.
// Float arithmetic with step h: agreement to 1e-2 relative (plus a small absolute floor) is what a
// correct gradient reaches; a wrong index or a missing term is off by far more.
void check_gradient(const char* what, std::vector<float>& v, const std::vector<float>& grad,
                    const std::function<double()>& loss, std::size_t stride = 1, float h = 1e-2f) {
    REQUIRE(v.size() == grad.size());
    int checked = 0;
    for (std::size_t i = 0; i < v.size(); i += stride) {
        const float keep = v[i];
        v[i] = keep + h;
        const double up = loss();
        v[i] = keep - h;
        const double down = loss();
        v[i] = keep;
        const double numeric = (up - down) / (2.0 * h);
        INFO(what << " index " << i << ": analytic " << grad[i] << ", numeric " << numeric);
        CHECK(std::abs(grad[i] - numeric) <= 1e-2 * std::abs(numeric) + 2e-3);
        ++checked;
    }
    CHECK(checked > 0);
}

// Same length and every element within atol + rtol * |reference|.
void check_close(const char* what, const std::vector<float>& got, const std::vector<float>& want, double rtol = 1e-4,
                 double atol = 1e-5) {
    REQUIRE(got.size() == want.size());
    double worst = 0.0;
    std::size_t at = 0;
    for (std::size_t i = 0; i < got.size(); ++i) {
        const double excess = std::abs(got[i] - want[i]) - (atol + rtol * std::abs(want[i]));
        if (excess > worst) worst = excess, at = i;
    }
    INFO(what << ": worst at " << at << ": " << got[at] << " vs " << want[at]);
    CHECK(worst == 0.0);
}

const ConvShape kConv{2, 3, 7, 6, 4, 3};  // N=2 C=3 H=7 W=6 K=4 R=3 -> P=5 Q=4

}  // namespace

TEST_SUITE("train") {

TEST_CASE("cpu-scalar convolution: forward by hand - backward against finite differences") {
    const CpuLayerOps& ops = scalar_layer_ops();
    // One 3x3 input, one 2x2 filter: each output is the sum of the window times the taps, plus bias.
    const ConvShape one{1, 1, 3, 3, 1, 2};
    const std::vector<float> x{1, 2, 3, 4, 5, 6, 7, 8, 9}, w{1, 0, 0, -1}, b{0.5f};
    std::vector<float> y(4);
    ops.conv_forward(one, x.data(), w.data(), b.data(), y.data());
    CHECK(y == std::vector<float>{1 - 5 + 0.5f, 2 - 6 + 0.5f, 4 - 8 + 0.5f, 5 - 9 + 0.5f});

    const ConvShape& s = kConv;
    std::vector<float> in = random_vector(s.n * s.c * s.h * s.w, 1), wt = random_vector(s.k * s.c * 9, 2),
                       bias = random_vector(s.k, 3), g = random_vector(s.n * s.k * s.p() * s.q(), 4);
    std::vector<float> dx(in.size()), dw(wt.size()), db(bias.size()), out(g.size());
    ops.conv_backward_data(s, g.data(), wt.data(), dx.data());
    ops.conv_backward_weights(s, in.data(), g.data(), dw.data(), db.data());
    auto loss = [&]() {
        ops.conv_forward(s, in.data(), wt.data(), bias.data(), out.data());
        return dot(out, g);
    };
    check_gradient("conv dx", in, dx, loss, 7);
    check_gradient("conv dw", wt, dw, loss, 3);
    check_gradient("conv db", bias, db, loss);
}

TEST_CASE("cpu-scalar ReLU - max pooling - dense and loss against finite differences") {
    const CpuLayerOps& ops = scalar_layer_ops();
    SUBCASE("ReLU") {
        std::vector<float> x = random_vector(50, 5), g = random_vector(50, 6), y(50), dx(50);
        for (float& v : x) v += v > 0 ? 0.1f : -0.1f;  // keep away from the kink at 0
        ops.relu_forward(50, x.data(), y.data());
        ops.relu_backward(50, y.data(), g.data(), dx.data());
        check_gradient("relu", x, dx, [&]() {
            ops.relu_forward(50, x.data(), y.data());
            return dot(y, g);
        }, 1, 1e-3f);
    }
    SUBCASE("max pooling, odd sizes drop the last row and column") {
        const std::int64_t planes = 3, h = 5, w = 7;  // -> 2 x 3
        std::vector<float> x = random_vector(planes * h * w, 7), g = random_vector(planes * 6, 8), y(planes * 6),
                           dx(x.size());
        ops.maxpool_forward(planes, h, w, x.data(), y.data());
        ops.maxpool_backward(planes, h, w, x.data(), g.data(), dx.data());
        check_gradient("pool", x, dx, [&]() {
            ops.maxpool_forward(planes, h, w, x.data(), y.data());
            return dot(y, g);
        }, 1, 1e-3f);
        // Ties go to the first maximum in row-major order.
        const std::vector<float> flat(4, 2.0f), one{1.0f};
        std::vector<float> d(4);
        ops.maxpool_backward(1, 2, 2, flat.data(), one.data(), d.data());
        CHECK(d == std::vector<float>{1, 0, 0, 0});
    }
    SUBCASE("dense") {
        const std::int64_t n = 3, in = 7, out = 5;
        std::vector<float> x = random_vector(n * in, 9), w = random_vector(out * in, 10), b = random_vector(out, 11),
                           g = random_vector(n * out, 12), y(n * out), dx(x.size()), dw(w.size()), db(b.size());
        ops.dense_backward_data(n, in, out, g.data(), w.data(), dx.data());
        ops.dense_backward_weights(n, in, out, x.data(), g.data(), dw.data(), db.data());
        auto loss = [&]() {
            ops.dense_forward(n, in, out, x.data(), w.data(), b.data(), y.data());
            return dot(y, g);
        };
        check_gradient("dense dx", x, dx, loss);
        check_gradient("dense dw", w, dw, loss);
        check_gradient("dense db", b, db, loss);
    }
    SUBCASE("softmax cross-entropy") {
        const std::int64_t n = 4, classes = 10;
        std::vector<float> logits = random_vector(n * classes, 13, -3.0f, 3.0f), d(logits.size());
        const std::vector<std::uint8_t> labels{0, 9, 3, 3};
        const BatchResult r = ops.softmax_cross_entropy(n, classes, logits.data(), labels.data(), d.data());
        CHECK(r.loss > 0.0);
        std::vector<float> scratch(d.size());
        check_gradient("softmax", logits, d, [&]() {
            return ops.softmax_cross_entropy(n, classes, logits.data(), labels.data(), scratch.data()).loss;
        }, 1, 1e-3f);
        // Equal logits: loss log(10), nothing right or wrong by more than a tie.
        const std::vector<float> flat(classes, 0.5f);
        const std::uint8_t label = 4;
        CHECK(ops.softmax_cross_entropy(1, classes, flat.data(), &label, scratch.data()).loss ==
              doctest::Approx(std::log(10.0)));
    }
    SUBCASE("SGD with momentum") {
        std::vector<float> w{1.0f}, v{0.5f};
        const std::vector<float> g{2.0f};
        ops.sgd_momentum(1, Sgd{0.1f, 0.9f}, w.data(), v.data(), g.data());
        CHECK(v[0] == doctest::Approx(0.9 * 0.5 - 0.1 * 2.0));
        CHECK(w[0] == doctest::Approx(1.0 + 0.25));
    }
}

TEST_CASE("the training matrix product equals a triple loop - odd sizes and strided A - every ISA") {
    // Blocks are 12 x 32 on AVX-512, 6 x 16 on AVX2, 6 x 8 on SSE2: the sizes leave every kind of
    // row and column remainder (one-register column block, zero-padded last columns) on each.
    for (const auto& [rows, cols, k] :
         {std::tuple{1, 1, 1}, {7, 17, 5}, {13, 33, 40}, {6, 16, 3}, {64, 9, 676}, {25, 71, 19}, {12, 48, 2}}) {
        for (const gpulab::cpu::SimdIsa isa : gpulab::cpu::usable_simd_isas()) {
            const std::vector<float> a = random_vector(rows * k, 20), b = random_vector(k * cols, 21);
            std::vector<float> c = random_vector(rows * cols, 22), want = c;
            for (int transposed = 0; transposed < 2; ++transposed) {
                for (const bool accumulate : {false, true}) {
                    std::vector<float> got = c;
                    // Row-major A (rows x k), or the same numbers stored transposed (k x rows).
                    std::vector<float> at(a.size());
                    for (int i = 0; i < rows; ++i)
                        for (int m = 0; m < k; ++m) at[m * rows + i] = a[i * k + m];
                    if (transposed)
                        gemm_with(isa, rows, cols, k, at.data(), 1, rows, b.data(), cols, got.data(), cols, accumulate);
                    else
                        gemm_with(isa, rows, cols, k, a.data(), k, 1, b.data(), cols, got.data(), cols, accumulate);
                    for (int i = 0; i < rows; ++i)
                        for (int j = 0; j < cols; ++j) {
                            double s = accumulate ? c[i * cols + j] : 0.0;
                            for (int m = 0; m < k; ++m) s += static_cast<double>(a[i * k + m]) * b[m * cols + j];
                            want[i * cols + j] = static_cast<float>(s);
                        }
                    INFO(gpulab::cpu::simd_isa_name(isa) << " " << rows << "x" << cols << "x" << k << " transposed "
                                                         << transposed << " accumulate " << accumulate);
                    check_close("gemm", got, want, 1e-4, 1e-4);
                }
            }
        }
    }
    CHECK(std::string(gemm_isa()).size() > 0);
}

TEST_CASE("cpu-parallel layers equal cpu-scalar's within 1e-4 relative") {
    const CpuLayerOps& ref = scalar_layer_ops();
    const CpuLayerOps& par = parallel_layer_ops();
    // The shapes of the default model's convolutions (batch 5), and the small odd one.
    for (const ConvShape& s : {kConv, ConvShape{5, 1, 28, 28, 32, 3}, ConvShape{5, 32, 13, 13, 64, 3},
                               ConvShape{5, 64, 5, 5, 64, 3}}) {
        INFO("conv N=" << s.n << " C=" << s.c << " H=" << s.h << " K=" << s.k);
        const std::vector<float> x = random_vector(s.n * s.c * s.h * s.w, 30), w = random_vector(s.k * s.c * 9, 31),
                                 b = random_vector(s.k, 32), g = random_vector(s.n * s.k * s.p() * s.q(), 33);
        std::vector<float> y1(g.size()), y2(g.size()), dx1(x.size()), dx2(x.size()), dw1(w.size()), dw2(w.size()),
            db1(b.size()), db2(b.size());
        ref.conv_forward(s, x.data(), w.data(), b.data(), y1.data());
        par.conv_forward(s, x.data(), w.data(), b.data(), y2.data());
        check_close("conv forward", y2, y1);
        ref.conv_backward_data(s, g.data(), w.data(), dx1.data());
        par.conv_backward_data(s, g.data(), w.data(), dx2.data());
        check_close("conv backward-data", dx2, dx1);
        ref.conv_backward_weights(s, x.data(), g.data(), dw1.data(), db1.data());
        par.conv_backward_weights(s, x.data(), g.data(), dw2.data(), db2.data());
        check_close("conv backward-weights", dw2, dw1, 1e-4, 1e-4);
        check_close("conv backward-bias", db2, db1, 1e-4, 1e-4);
    }
    const std::int64_t n = 37, in = 576, out = 64;
    const std::vector<float> x = random_vector(n * in, 40), w = random_vector(out * in, 41), b = random_vector(out, 42),
                             g = random_vector(n * out, 43);
    std::vector<float> y1(n * out), y2(n * out), dx1(x.size()), dx2(x.size()), dw1(w.size()), dw2(w.size()),
        db1(out), db2(out);
    ref.dense_forward(n, in, out, x.data(), w.data(), b.data(), y1.data());
    par.dense_forward(n, in, out, x.data(), w.data(), b.data(), y2.data());
    check_close("dense forward", y2, y1);
    ref.dense_backward_data(n, in, out, g.data(), w.data(), dx1.data());
    par.dense_backward_data(n, in, out, g.data(), w.data(), dx2.data());
    check_close("dense backward-data", dx2, dx1);
    ref.dense_backward_weights(n, in, out, x.data(), g.data(), dw1.data(), db1.data());
    par.dense_backward_weights(n, in, out, x.data(), g.data(), dw2.data(), db2.data());
    check_close("dense backward-weights", dw2, dw1, 1e-4, 1e-4);
    check_close("dense backward-bias", db2, db1, 1e-4, 1e-4);

    // ReLU, pooling and SGD do the same float operations in both: equal exactly.
    const std::int64_t planes = 70, h = 11, wd = 11;
    const std::vector<float> px = random_vector(planes * h * wd, 50), pg = random_vector(planes * 25, 51);
    std::vector<float> p1(planes * 25), p2(planes * 25), pd1(px.size()), pd2(px.size());
    ref.maxpool_forward(planes, h, wd, px.data(), p1.data());
    par.maxpool_forward(planes, h, wd, px.data(), p2.data());
    CHECK(p1 == p2);
    ref.maxpool_backward(planes, h, wd, px.data(), pg.data(), pd1.data());
    par.maxpool_backward(planes, h, wd, px.data(), pg.data(), pd2.data());
    CHECK(pd1 == pd2);
    std::vector<float> r1(px.size()), r2(px.size());
    ref.relu_forward(static_cast<std::int64_t>(px.size()), px.data(), r1.data());
    par.relu_forward(static_cast<std::int64_t>(px.size()), px.data(), r2.data());
    CHECK(r1 == r2);
    std::vector<float> w1 = px, w2 = px, v1(px.size(), 0.1f), v2 = v1;
    ref.sgd_momentum(static_cast<std::int64_t>(px.size()), Sgd{}, w1.data(), v1.data(), px.data());
    par.sgd_momentum(static_cast<std::int64_t>(px.size()), Sgd{}, w2.data(), v2.data(), px.data());
    CHECK(w1 == w2);
}

}  // TEST_SUITE
