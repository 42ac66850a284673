// The host side of the cudnn training engine (kernels/train/cudnn_train_plan.h), on every machine: the
// descriptor shapes it gives cuDNN for the article's model, the refusal of a batch beyond cuDNN's
// int sizes, which measured algorithm it keeps, and the cublasSgemm arguments of the dense layers
// run through the BLAS definition of sgemm against cpu-scalar's dense layers. Also the cuBLAS
// loader's "missing" sentence, and the engine's refusal where it cannot run.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <filesystem>
#include <random>
#include <vector>

#include "train/cudnn_train_engine.h"
#include "train/cudnn_train_plan.h"
#include "gpu_backends.h"
#include "gpu_train_engines.h"
#include "io/image_io.h"
#include "train/cpu_layers.h"
#include "train/model.h"

using namespace gpulab;
using namespace gpulab::cuda::train_plan;
using train::LayerKind;

namespace {

std::vector<float> random_floats(std::size_t count, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    std::vector<float> v(count);
    for (float& x : v) x = u(rng);
    return v;
}

AlgoResult algo(int id, bool ok, bool fma, std::size_t workspace) { return {id, ok, fma, true, workspace, 1.0f}; }

}  // namespace

TEST_SUITE("train") {

TEST_CASE("cudnn plan: the article's model as cuDNN descriptors - N C H W and K C R S - odd rows pooled away") {
    const train::ModelDesc m = train::make_model(train::kDefaultModelSpec, {1, 28, 28});
    const std::vector<LayerDescs> d = describe_layers(m, 150);
    REQUIRE(d.size() == m.layers.size());
    REQUIRE(d.size() == 11);  // conv relu pool conv relu pool conv relu dense relu dense
    CHECK(d[0].kind == LayerKind::Conv);
    CHECK(d[0].x == Dims4{150, 1, 28, 28});
    CHECK(d[0].y == Dims4{150, 32, 26, 26});
    CHECK(d[0].filter == Dims4{32, 1, 3, 3});
    CHECK(d[0].bias == Dims4{1, 32, 1, 1});
    CHECK(d[1].kind == LayerKind::Relu);
    CHECK(d[1].x == d[1].y);
    CHECK(d[1].filter == Dims4{});
    CHECK(d[2].y == Dims4{150, 32, 13, 13});
    CHECK(d[3].filter == Dims4{64, 32, 3, 3});
    CHECK(d[3].y == Dims4{150, 64, 11, 11});
    CHECK(d[5].y == Dims4{150, 64, 5, 5});  // 11x11 pools to 5x5: the last row and column dropped
    CHECK(d[6].y == Dims4{150, 64, 3, 3});
    // Dense layers see the flattened C,H,W features as N,features,1,1: the same memory.
    CHECK(d[8].kind == LayerKind::Dense);
    CHECK(d[8].x == Dims4{150, 576, 1, 1});
    CHECK(d[8].filter == Dims4{64, 576, 1, 1});
    CHECK(d[8].y == Dims4{150, 64, 1, 1});
    CHECK(d[9].x == Dims4{150, 64, 1, 1});
    CHECK(d[10].y == Dims4{150, 10, 1, 1});
    CHECK(d[10].bias == Dims4{1, 10, 1, 1});
    // A batch of one still describes every layer.
    CHECK(describe_layers(m, 1)[0].x == Dims4{1, 1, 28, 28});
}

TEST_CASE("cudnn plan: a batch beyond cuDNN's int sizes is refused with the largest that fits") {
    const train::ModelDesc m = train::make_model(train::kDefaultModelSpec, {1, 28, 28});
    // conv1's output, 32 x 26 x 26 = 21,632 floats per image, is the largest tensor.
    CHECK(max_batch_for_int_strides(m) == 2147483647LL / 21632);
    CHECK_NOTHROW(describe_layers(m, max_batch_for_int_strides(m)));
    CHECK_THROWS_WITH_AS(describe_layers(m, max_batch_for_int_strides(m) + 1),
                         doctest::Contains("the largest batch for this model is 99273"), core::InputError);
    CHECK_THROWS_AS(describe_layers(m, 0), core::InputError);
}

TEST_CASE("cudnn plan: the fastest FP32 algorithm that ran and fits is kept - else any that fits") {
    // Find's results come fastest first.
    CHECK(choose_algorithm({algo(1, true, false, 0), algo(2, true, true, 100), algo(0, true, true, 0)}, 1000) == 1);
    CHECK(choose_algorithm({algo(1, false, true, 0), algo(2, true, true, 5000), algo(0, true, true, 64)}, 1000) == 2);
    CHECK(choose_algorithm({algo(1, true, false, 10), algo(2, false, true, 0)}, 1000) == 0);  // no FMA: TF32 allowed
    CHECK(choose_algorithm({algo(1, true, true, 2000), algo(2, false, true, 0)}, 1000) == -1);
    CHECK(choose_algorithm({}, 1000) == -1);
    // Find returns each algorithm twice, in FMA and in default math (TF32 on sm_80+), fastest
    // first: with room for both (the engine asks for two results per algorithm), the TF32 ones that
    // come first are passed over for the fastest FMA one.
    CHECK(choose_algorithm({algo(1, true, false, 0), algo(0, true, false, 0), algo(1, true, true, 0),
                            algo(0, true, true, 0)},
                           1000) == 2);
}

TEST_CASE("cudnn plan: in TF32 the fastest algorithm that ran and fits is kept - whatever its math - never an FP16 conversion") {
    // Default math (TF32 permitted on sm_80+) first and fastest: kept, where FP32 would pass it over.
    CHECK(choose_algorithm({algo(1, true, false, 0), algo(0, true, true, 0)}, 1000, true) == 0);
    CHECK(choose_algorithm({algo(1, true, false, 0), algo(0, true, true, 0)}, 1000, false) == 1);
    // An FMA result that is fastest is kept too: TF32 is permitted, not forced.
    CHECK(choose_algorithm({algo(0, true, true, 0), algo(1, true, false, 0)}, 1000, true) == 0);
    // Failures, oversize workspaces and FP16-converting results are passed over.
    AlgoResult converting = algo(2, true, false, 0);
    converting.converts = true;
    CHECK(choose_algorithm({algo(1, false, false, 0), algo(1, true, false, 5000), converting, algo(0, true, true, 0)},
                           1000, true) == 3);
    CHECK(choose_algorithm({converting}, 1000, true) == -1);
    CHECK(choose_algorithm({}, 1000, true) == -1);
}

TEST_CASE("cudnn plan: precisions - FP32 and TF32 run - BF16 refused with a sentence - what precision() says for TF32") {
    CHECK_NOTHROW(check_cudnn_precision(train::ComputePrecision::Fp32));
    CHECK_NOTHROW(check_cudnn_precision(train::ComputePrecision::Tf32));
    CHECK_THROWS_WITH_AS(check_cudnn_precision(train::ComputePrecision::Bf16Mixed),
                         doctest::Contains("cudnn multiplies in FP32, TF32 or FP16 (mixed) only: BF16 mixed (BF16 "
                                           "products, FP32 master weights) runs on cpu-scalar and cpu-parallel"),
                         core::InputError);
    CHECK_THROWS_AS(check_cudnn_precision(train::ComputePrecision::Bf16Pure), core::InputError);
    CHECK_FALSE(has_tf32_tensor_cores(7));  // Volta 7.0, Turing 7.5: tensor cores, but no TF32
    CHECK(has_tf32_tensor_cores(8));        // Ampere 8.0 / 8.6 (the article's RTX 3070), Hopper 9.0
    // The race's precision column shows the first word: TF32 where it is permitted, FP32 where not.
    const std::string h100 = tf32_precision_text(9, 0, 8, 5);
    CHECK(h100.rfind("TF32 permitted on compute capability 9.0", 0) == 0);
    CHECK(h100.find("in 5 of 8 convolution directions") != std::string::npos);
    CHECK(h100.find("cuBLAS sgemm in TF32 tensor-op math") != std::string::npos);
    CHECK(h100.find("FP32 sums and weights") != std::string::npos);
    CHECK(tf32_precision_text(8, 6, 0, 0).find("no convolutions") != std::string::npos);
    const std::string turing = tf32_precision_text(7, 5, 8, 0);
    CHECK(turing.rfind("FP32 ", 0) == 0);
    CHECK(turing.find("compute capability 7.5 has no TF32 tensor cores") != std::string::npos);
    CHECK(tf32_precision_text(-1, 0, 0, 0).rfind("TF32 asked for", 0) == 0);
    // The engine (built or absent) takes the same rule, before any device is touched.
    auto e = gpu::make_cudnn_train_engine();
    CHECK_NOTHROW(e->set_compute_precision(train::ComputePrecision::Tf32));
    CHECK(e->precision().rfind("TF32 asked for", 0) == 0);
    CHECK_THROWS_WITH_AS(e->set_compute_precision(train::ComputePrecision::Bf16Pure),
                         doctest::Contains("cudnn multiplies in FP32, TF32 or FP16 (mixed) only"), core::InputError);
    CHECK_NOTHROW(e->set_compute_precision(train::ComputePrecision::Fp32));
    CHECK(e->precision().rfind("FP32", 0) == 0);
}

TEST_CASE("cudnn plan: in FP16 mixed the fastest algorithm that converts to FP16 is kept - else the fastest that ran and fits") {
    AlgoResult converting = algo(2, true, false, 0);
    converting.converts = true;
    // Find's results come fastest first: a converting one after faster FMA and default-math ones is
    // still kept (FP16 is what was asked for), the fastest converting one among several.
    AlgoResult slower_converting = converting;
    slower_converting.algo = 6;
    CHECK(choose_fp16_algorithm({algo(1, true, true, 0), algo(0, true, false, 0), converting, slower_converting}, 1000) ==
          2);
    // One that failed or does not fit is passed over, converting or not.
    AlgoResult big = converting;
    big.workspace = 5000;
    AlgoResult failed = converting;
    failed.ok = false;
    CHECK(choose_fp16_algorithm({failed, big, algo(1, true, false, 0), converting}, 1000) == 3);
    // None converts (cuDNN offered no FP16 kernel for this shape): the fastest that ran and fits,
    // whatever its math type; FP16 is permitted, not forced.
    CHECK(choose_fp16_algorithm({algo(1, false, false, 0), algo(0, true, false, 0), algo(1, true, true, 0)}, 1000) == 1);
    CHECK(choose_fp16_algorithm({failed, big}, 1000) == -1);
    CHECK(choose_fp16_algorithm({}, 1000) == -1);
    // The FP32 and TF32 rules are unchanged by it: TF32 never takes a converting result.
    CHECK(choose_algorithm({converting, algo(0, true, true, 0)}, 1000, true) == 1);
}

TEST_CASE("cudnn plan: FP16 mixed runs on cudnn - what precision() says - loss scale and skipped steps - FP32 below compute capability 7.0") {
    CHECK_NOTHROW(check_cudnn_precision(train::ComputePrecision::Fp16Mixed));
    CHECK_FALSE(has_fp16_tensor_cores(6));  // Pascal 6.x: FP16 arithmetic, but no tensor cores
    CHECK(has_fp16_tensor_cores(7));        // Volta 7.0 and Turing 7.5: the first FP16 tensor cores
    CHECK(has_fp16_tensor_cores(9));
    CHECK(train::loss_scale_text(65536.0f) == "2^16");
    CHECK(train::loss_scale_text(1.0f) == "2^0");
    CHECK(train::loss_scale_text(0.5f) == "2^-1");
    CHECK(train::loss_scale_text(16777216.0f) == "2^24");
    CHECK(train::loss_scale_text(3.5f) == "3.5");
    // The race's precision column shows the first word: FP16 where it is permitted, FP32 where not.
    const std::string h100 = fp16_precision_text(9, 0, 8, 5, train::LossScaler{});
    CHECK(h100.rfind("FP16 permitted on compute capability 9.0's tensor cores", 0) == 0);
    CHECK(h100.find("cuDNN down-converts FP32 data to FP16 in 5 of 8 convolution directions") != std::string::npos);
    CHECK(h100.find("CUBLAS_COMPUTE_32F_FAST_16F") != std::string::npos);
    CHECK(h100.find("FP32 sums and master weights") != std::string::npos);
    // The scaler's words are the CPU engines' (core's describe_loss_scale).
    CHECK(h100.find("loss scale 2^16 (dynamic), 0 of 0 updates skipped") != std::string::npos);
    train::LossScaler overflowed;
    overflowed.after_backward(false);
    CHECK(fp16_precision_text(7, 0, 8, 8, overflowed).find("loss scale 2^15 (dynamic), 1 of 1 updates skipped") !=
          std::string::npos);
    CHECK(fp16_precision_text(8, 6, 0, 0, train::LossScaler{}).find("no convolutions") != std::string::npos);
    const std::string pascal = fp16_precision_text(6, 1, 8, 0, train::LossScaler{});
    CHECK(pascal.rfind("FP32 ", 0) == 0);
    CHECK(pascal.find("compute capability 6.1 has no FP16 tensor cores") != std::string::npos);
    CHECK(pascal.find("without loss scaling") != std::string::npos);
    const std::string before = fp16_precision_text(-1, 0, 0, 0, train::LossScaler{});
    CHECK(before.rfind("FP16 mixed asked for", 0) == 0);
    CHECK(before.find("loss scaling from 2^16") != std::string::npos);
    // The engine (built or absent) takes the same rule and says the same before any device is touched.
    auto e = gpu::make_cudnn_train_engine();
    CHECK_NOTHROW(e->set_compute_precision(train::ComputePrecision::Fp16Mixed));
    CHECK(e->precision() == before);
    CHECK_NOTHROW(e->set_compute_precision(train::ComputePrecision::Fp32));
    CHECK(e->precision().rfind("FP32", 0) == 0);
}

TEST_CASE("our kernels' engines refuse FP16 mixed with a sentence that says where it runs") {
    for (const char* name : {"cuda-kernel", "cuda-sim"}) {
        CAPTURE(name);
        auto kernels = gpu::make_gpu_train_engine(name);
        REQUIRE(kernels);
        const std::string refusal = std::string(name) +
                                    " runs our kernels, which multiply FP32 on the ordinary FP32 units, not on tensor "
                                    "cores: FP16 mixed precision (FP16 products, FP32 master weights, loss scaling) "
                                    "runs on cudnn (compute capability 7.0 or newer) and, modelled by rounding, on "
                                    "cpu-scalar and cpu-parallel";
        CHECK_THROWS_WITH_AS(kernels->set_compute_precision(train::ComputePrecision::Fp16Mixed), refusal.c_str(),
                             core::InputError);
        CHECK_NOTHROW(kernels->set_compute_precision(train::ComputePrecision::Fp32));
    }
}

TEST_CASE("cudnn plan: the dense layers' cublasSgemm arguments compute what cpu-scalar's dense layers do") {
    const std::int64_t n = 5, in = 7, out = 3;
    const std::vector<float> x = random_floats(n * in, 1), w = random_floats(out * in, 2), dy = random_floats(n * out, 3);
    const std::vector<float> zero_bias(out, 0.0f);
    const train::CpuLayerOps& ref = train::scalar_layer_ops();

    std::vector<float> y_ref(n * out), y(n * out);
    ref.dense_forward(n, in, out, x.data(), w.data(), zero_bias.data(), y_ref.data());
    const Gemm f = dense_forward(n, in, out);
    CHECK(f == Gemm{true, false, 3, 5, 7, 7, 7, 3});
    reference_sgemm(f, w.data(), x.data(), y.data());
    for (std::size_t i = 0; i < y.size(); ++i) CHECK(y[i] == doctest::Approx(y_ref[i]).epsilon(1e-5));

    std::vector<float> dx_ref(n * in), dx(n * in);
    ref.dense_backward_data(n, in, out, dy.data(), w.data(), dx_ref.data());
    reference_sgemm(dense_backward_data(n, in, out), w.data(), dy.data(), dx.data());
    for (std::size_t i = 0; i < dx.size(); ++i) CHECK(dx[i] == doctest::Approx(dx_ref[i]).epsilon(1e-5));

    std::vector<float> dw_ref(out * in), db_ref(out), dw(out * in);
    ref.dense_backward_weights(n, in, out, x.data(), dy.data(), dw_ref.data(), db_ref.data());
    reference_sgemm(dense_backward_weights(n, in, out), x.data(), dy.data(), dw.data());
    for (std::size_t i = 0; i < dw.size(); ++i) CHECK(dw[i] == doctest::Approx(dw_ref[i]).epsilon(1e-5));
}

}  // TEST_SUITE("train")

TEST_SUITE("backends") {

TEST_CASE("the cuBLAS loader says libcublas.so.13 is missing and how to point at it") {
    if (gpu::make_cudnn_train_engine()->description().find("(not built)") != std::string_view::npos) {
        // No loader in this build: the sentence is the build's reason.
        CHECK_FALSE(gpu::check_cublas_library("/usr/local/cuda/lib64").ok);
        return;
    }
    const auto dir = std::filesystem::temp_directory_path() / "gpulab-no-cublas";
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    const core::Availability av = gpu::check_cublas_library(dir.string());
    CHECK_FALSE(av.ok);
    CHECK(av.reason.find("libcublas.so.13 not found") != std::string::npos);
    CHECK(av.reason.find("GPULAB_CUBLAS_DIR") != std::string::npos);
    // The toolkit's own cuBLAS loads without a GPU (loading needs no driver) and names its version.
    if (std::filesystem::exists("/usr/local/cuda/lib64/libcublas.so.13")) {
        const core::Availability real = gpu::check_cublas_library("/usr/local/cuda/lib64");
        CHECK_MESSAGE(real.ok, real.reason);
        CHECK(real.reason.rfind("13.", 0) == 0);
    }
}

TEST_CASE("the cudnn training engine is listed everywhere and refuses to set up with a reason where it cannot run") {
    auto e = gpu::make_cudnn_train_engine();
    REQUIRE(e != nullptr);
    CHECK(e->name() == "cudnn");
    const core::Availability av = e->availability();
    if (av.ok) {
        MESSAGE("cudnn is available here: " << av.reason);
        return;
    }
    CHECK_FALSE(av.reason.empty());
    const train::ModelDesc m = train::make_model(train::kDefaultModelSpec, {1, 28, 28});
    CHECK_THROWS_WITH_AS(e->setup(m, train::init_params(m, 1), 8), doctest::Contains("cudnn is not available"),
                         core::InputError);
}

}  // TEST_SUITE("backends")

TEST_CASE("cudnn engine: every layer's parameters start on a 256-byte boundary on the device (issue 30, item 2)") {
    // conv5 and dense7: sizes that are not multiples of 4, where packed offsets are misaligned.
    const train::ModelDesc m = train::make_model("conv5,pool,conv3,dense7,dense10", {1, 12, 12}, 10);
    const DeviceParams d = device_params(m);
    std::int64_t packed_misaligned = 0;
    REQUIRE(d.slices.size() == 8);  // weights and biases of four layers
    for (std::size_t i = 0; i < d.slices.size(); ++i) {
        CHECK(d.slices[i].device % DeviceParams::kAlignFloats == 0);
        if (i + 1 < d.slices.size()) CHECK(d.slices[i].device + d.slices[i].count <= d.slices[i + 1].device);
        packed_misaligned += d.slices[i].host % 4 != 0 ? 1 : 0;
    }
    CHECK(packed_misaligned > 0);  // the case the padding is for
    CHECK(d.count % DeviceParams::kAlignFloats == 0);
    CHECK(d.count >= m.parameter_count);
    const std::vector<float> p = random_floats(static_cast<std::size_t>(m.parameter_count), 7);
    const std::vector<float> padded = d.scatter(p);
    CHECK(padded.size() == static_cast<std::size_t>(d.count));
    CHECK(d.gather(padded) == p);
    // The padding is zero: its gradient is zero, so SGD never moves it.
    double padding = 0.0;
    std::vector<bool> used(padded.size(), false);
    for (const auto& s : d.slices)
        for (std::int64_t k = 0; k < s.count; ++k) used[static_cast<std::size_t>(s.device + k)] = true;
    for (std::size_t i = 0; i < padded.size(); ++i) padding += used[i] ? 0.0 : std::fabs(padded[i]);
    CHECK(padding == 0.0);
    CHECK(d.device_offset(m.layers.front().weight_offset) == 0);
    CHECK_THROWS(d.device_offset(1));
}
