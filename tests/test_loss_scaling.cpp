// FP16 mixed precision on the CPU engines and its dynamic loss scaling (core/train/loss_scaling.h,
// core/train/cpu_engine.cpp, issue 29 part 5): the scaler's policy step by step, the fixed scales
// the command line accepts, an overflow that skips its update, loss scaling keeping gradients that
// FP16 alone flushes to zero, and cpu-scalar against cpu-parallel in FP16 mixed.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "gpu_train_engines.h"
#include "io/image_io.h"
#include "train/engine.h"
#include "train/loss_scaling.h"
#include "toy_pictures.h"
#include "train/model.h"

using namespace gpulab;
using namespace gpulab::train;

namespace {

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST_SUITE("loss-scaling") {
    TEST_CASE("the scaler starts at 2^16 - halves and skips on overflow - doubles after 200 good steps") {
        LossScaler s;
        CHECK(s.scale == 65536.0f);
        CHECK_FALSE(s.after_backward(false));
        CHECK(s.scale == 32768.0f);
        CHECK(s.skipped_steps == 1);
        for (int i = 0; i < LossScaler::kGrowthInterval - 1; ++i) CHECK(s.after_backward(true));
        CHECK(s.scale == 32768.0f);
        CHECK(s.after_backward(true));
        CHECK(s.scale == 65536.0f);
        CHECK(s.steps == LossScaler::kGrowthInterval + 1);
        CHECK(describe_loss_scale(s) == "loss scale 2^16 (dynamic), 1 of 201 updates skipped");
        // Never below 1, never above 2^24; a fixed scale never moves.
        LossScaler low;
        low.scale = 1.0f;
        low.after_backward(false);
        CHECK(low.scale == 1.0f);
        LossScaler high;
        high.scale = LossScaler::kMaxScale;
        for (int i = 0; i < LossScaler::kGrowthInterval; ++i) high.after_backward(true);
        CHECK(high.scale == LossScaler::kMaxScale);
        LossScaler fixed;
        fixed.dynamic = false;
        fixed.after_backward(false);
        for (int i = 0; i < 500; ++i) fixed.after_backward(true);
        CHECK(fixed.scale == 65536.0f);
        CHECK(contains(describe_loss_scale(fixed), "(fixed)"));
    }

    TEST_CASE("a fixed loss scale is 0 or a power of two from 1 to 2^24 - anything else is refused") {
        for (float ok : {0.0f, 1.0f, 2.0f, 1024.0f, 16777216.0f}) CHECK(check_loss_scale(ok) == ok);
        for (float bad : {3.0f, 0.5f, -4.0f, 33554432.0f, 1000.0f})
            CHECK_THROWS_WITH_AS(check_loss_scale(bad), doctest::Contains("a power of two from 1 to 16,777,216"),
                                 core::InputError);
        CHECK(all_finite(std::vector<float>{1, 2, 3}.data(), 3));
        CHECK_FALSE(all_finite(std::vector<float>{1, INFINITY, 3}.data(), 3));
        CHECK_FALSE(all_finite(std::vector<float>{NAN}.data(), 1));
    }

    TEST_CASE("engines without loss scaling refuse a fixed scale - FP16 mixed is refused where it is not modelled") {
        auto onednn = make_train_engine("cpu-onednn");
        REQUIRE(onednn);
        CHECK_NOTHROW(onednn->set_loss_scale(0.0f));
        CHECK_THROWS_WITH_AS(onednn->set_loss_scale(8.0f), doctest::Contains("has no loss scaling"), core::InputError);
        CHECK_THROWS_WITH_AS(onednn->set_compute_precision(ComputePrecision::Fp16Mixed),
                             doctest::Contains("FP16 mixed (FP16 products, FP32 master weights, loss scaling) runs on "
                                               "cpu-scalar and cpu-parallel (modelled by rounding) and on cudnn"),
                             core::InputError);
        CHECK(parse_compute_precision("fp16-mixed") == ComputePrecision::Fp16Mixed);
        // cudnn scales the loss too (built or not, it answers alike): a fixed power of two is taken.
        auto cudnn = gpu::make_gpu_train_engine("cudnn");
        REQUIRE(cudnn);
        CHECK_NOTHROW(cudnn->set_compute_precision(ComputePrecision::Fp16Mixed));
        CHECK_NOTHROW(cudnn->set_loss_scale(4.0f));
        CHECK_THROWS_AS(cudnn->set_loss_scale(3.0f), core::InputError);
    }

    TEST_CASE("a batch whose scaled gradients overflow FP16 is not applied - the count says so") {
        // The loss gradient of a batch of 8 is up to 1/8 per logit; times 2^24 it passes FP16's
        // 65,504 and becomes infinity where it is rounded to FP16 at the last dense layer.
        const ModelDesc m = make_model(kDefaultModelSpec, {1, 28, 28});
        std::vector<std::uint8_t> labels;
        const std::vector<float> images = test::toy_pictures(8, labels, 3);
        const std::vector<float> params = init_params(m, 4);
        auto e = make_train_engine("cpu-scalar");
        e->set_compute_precision(ComputePrecision::Fp16Mixed);
        e->set_loss_scale(16777216.0f);
        e->setup(m, params, 8);
        e->forward(images.data(), 8);
        e->backward(labels.data());
        e->step(Sgd{});
        CHECK(e->params() == params);
        CHECK(contains(e->precision(), "loss scale 2^24 (fixed), 1 of 1 updates skipped"));
        // The dynamic default (2^16) does not overflow on the same batch, and the weights move.
        auto d = make_train_engine("cpu-scalar");
        d->set_compute_precision(ComputePrecision::Fp16Mixed);
        d->setup(m, params, 8);
        d->forward(images.data(), 8);
        d->backward(labels.data());
        d->step(Sgd{});
        CHECK(d->params() != params);
        CHECK(contains(d->precision(), "loss scale 2^16 (dynamic), 0 of 1 updates skipped"));
    }

    TEST_CASE("loss scaling keeps gradients that FP16 without it flushes to zero") {
        // FP16 holds nothing below 2^-24 and only a few bits below 2^-14. Once the network has
        // learnt the pictures, the loss and with it every gradient is small: without a scale many
        // vanish or lose their digits while they pass through FP16; with one they are kept (the
        // gradients() read back are unscaled in both). 20 FP32 steps on the square pictures first
        // (the loss falls to about 1e-6: unscaled, about nine in ten weight gradients come back 0).
        const ModelDesc m = make_model(kDefaultModelSpec, {1, 28, 28});
        std::vector<std::uint8_t> labels;
        const std::vector<float> images = test::toy_pictures(64, labels, 5);
        std::vector<float> params = init_params(m, 6);
        {
            auto pre = make_train_engine("cpu-parallel");
            pre->setup(m, params, 64);
            for (int step = 0; step < 20; ++step) {
                pre->forward(images.data(), 64);
                pre->backward(labels.data());
                pre->step(Sgd{});
            }
            params = pre->params();
        }
        auto gradients_with = [&](float scale) {
            auto e = make_train_engine("cpu-parallel");
            e->set_compute_precision(ComputePrecision::Fp16Mixed);
            e->set_loss_scale(scale);
            e->setup(m, params, 64);
            e->forward(images.data(), 64);
            e->backward(labels.data());
            return e->gradients();
        };
        auto fp32 = make_train_engine("cpu-parallel");
        fp32->setup(m, params, 64);
        fp32->forward(images.data(), 64);
        fp32->backward(labels.data());
        const std::vector<float> g32 = fp32->gradients(), g1 = gradients_with(1.0f), g16 = gradients_with(65536.0f);
        std::int64_t nonzero = 0, lost1 = 0, lost16 = 0;
        double err1 = 0, err16 = 0, norm = 0;
        for (std::size_t i = 0; i < g32.size(); ++i) {
            if (g32[i] == 0.0f) continue;
            ++nonzero;
            lost1 += g1[i] == 0.0f;
            lost16 += g16[i] == 0.0f;
            err1 += std::abs(g1[i] - g32[i]);
            err16 += std::abs(g16[i] - g32[i]);
            norm += std::abs(g32[i]);
        }
        MESSAGE("weight gradients lost to zero: " << lost1 << " of " << nonzero << " unscaled, " << lost16
                                                  << " with 2^16; relative L1 error " << err1 / norm << " and " << err16 / norm);
        CHECK(lost1 > 5 * lost16);
        CHECK(err16 < 0.1 * err1);
        CHECK(err16 / norm < 1e-2);
    }

    TEST_CASE("cpu-scalar and cpu-parallel agree in FP16 mixed - and differ from FP32") {
        // As the TF32 case in test_mixed_precision_train.cpp (FP16 keeps the same 10 mantissa bits):
        // rounding ties met in a different summation order move a value one FP16 step, so the
        // engines agree within about two steps per product layer, not bit for bit.
        const ModelDesc m = make_model(kDefaultModelSpec, {1, 28, 28});
        std::vector<std::uint8_t> labels;
        const std::vector<float> images = test::toy_pictures(6, labels, 21);
        const std::vector<float> params = init_params(m, 7);
        auto scalar = make_train_engine("cpu-scalar");
        auto parallel = make_train_engine("cpu-parallel");
        auto fp32 = make_train_engine("cpu-scalar");
        for (auto* e : {scalar.get(), parallel.get()}) e->set_compute_precision(ComputePrecision::Fp16Mixed);
        for (auto* e : {scalar.get(), parallel.get(), fp32.get()}) e->setup(m, params, 6);
        for (int step = 0; step < 3; ++step) {
            CAPTURE(step);
            // Each step starts cpu-parallel from cpu-scalar's weights: what the two engines compare is
            // one step's arithmetic. Left to run on, the two trajectories drift apart, since
            // weights one rounding apart can flip a max-pool or ReLU decision and send a gradient
            // elsewhere: under GPULAB_ISA=baseline (no FMA) the TF32 case (test_mixed_precision_train.cpp) drifted 0.0024 in 3 steps and
            // the third step's conv3 gradients differed by 40 % of their largest, while from the same
            // weights they agree to 1e-4 (issue 38: a test passed only on some instruction sets).
            if (step > 0)
                parallel->setup(m, scalar->params(), 6);
            for (auto* e : {scalar.get(), parallel.get(), fp32.get()}) e->forward(images.data(), 6);
            const std::vector<float> l1 = scalar->logits(), l2 = parallel->logits(), l0 = fp32->logits();
            double d12 = 0, d10 = 0;
            for (std::size_t i = 0; i < l1.size(); ++i) {
                CHECK(l2[i] == doctest::Approx(l1[i]).epsilon(2e-3).scale(1.0));
                CHECK(l1[i] == doctest::Approx(l0[i]).epsilon(1e-2).scale(1.0));
                d12 = std::max(d12, static_cast<double>(std::abs(l1[i] - l2[i])));
                d10 = std::max(d10, static_cast<double>(std::abs(l1[i] - l0[i])));
            }
            CHECK(d10 > 0.0);
            CHECK(d12 < d10);
            const BatchResult r1 = scalar->backward(labels.data()), r2 = parallel->backward(labels.data());
            fp32->backward(labels.data());
            CHECK(r2.loss == doctest::Approx(r1.loss).epsilon(2e-3));
            const std::vector<float> g1 = scalar->gradients(), g2 = parallel->gradients();
            float top = 0.0f;
            for (float g : g1) top = std::max(top, std::abs(g));
            for (std::size_t i = 0; i < g1.size(); ++i) CHECK(std::abs(g2[i] - g1[i]) <= 1e-2f * std::abs(g1[i]) + 2e-3f * top);
            for (auto* e : {scalar.get(), parallel.get(), fp32.get()}) e->step(Sgd{});
        }
        CHECK(contains(scalar->precision(), "0 of 3 updates skipped"));
    }
}
