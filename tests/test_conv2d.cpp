// The convolution lesson's core: hand-computed tiny cases for the reference, every CPU backend
// (and every SIMD instruction set this CPU has) equivalent to cpu-scalar on odd shapes within the
// workload's stated tolerance (conv2d_tolerance: abs 1e-5 * C*R*S * max|in| * max|filter|,
// rel 1e-5), named and custom filters, max pooling, the workload run, and refusals with messages;
// the per-channel (R, G, B as N=3, C=1) input equals the grayscale path applied to each plane.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "ops/tensor_compare.h"
#include "ops/conv2d.h"
#include "backends/conv2d/cpu_conv2d.h"
#include "backends/cpu_parallel.h"
#include "backends/cpu_scalar.h"
#include "io/image_io.h"
#include "lesson/lesson.h"
#include "backends/simd/simd_math.h"
#include "workloads/conv2d_workload.h"

using namespace gpulab;
using core::Conv2dDesc;
using core::Padding;
using core::Tensor;

namespace {

Tensor tensor_of(std::vector<int64_t> shape, std::vector<float> values) {
    Tensor t = Tensor::zeros(std::move(shape));
    REQUIRE(static_cast<int64_t>(values.size()) == t.size());
    std::copy(values.begin(), values.end(), t.data.begin());
    return t;
}

Tensor reference(const Conv2dDesc& d, const Tensor& in, const Tensor& f) {
    Tensor out = Tensor::zeros({d.batch, d.filters, d.out_height(), d.out_width()});
    cpu::conv2d_reference(d, in.ptr(), f.ptr(), out.ptr());
    return out;
}

Conv2dDesc desc_of(int64_t n, int64_t c, int64_t h, int64_t w, int64_t k, int64_t r, Padding pad, int64_t stride) {
    Conv2dDesc d;
    d.batch = n, d.channels = c, d.height = h, d.width = w, d.filters = k, d.kernel = r, d.padding = pad;
    d.stride = stride;
    return d;
}

// 1..9 in a 3x3 image; the filter weights 1..9 too, so every tap is visible in the sums.
const std::vector<float> kNine = {1, 2, 3, 4, 5, 6, 7, 8, 9};

std::string temp_path(const std::string& name) {
    return (std::filesystem::temp_directory_path() / ("gpulab_test_conv2d_" + name)).string();
}

}  // namespace

TEST_SUITE("conv2d") {

TEST_CASE("hand computed 3x3 input and 3x3 kernel with zero padding and stride 1") {
    const Conv2dDesc d = desc_of(1, 1, 3, 3, 1, 3, Padding::Zero, 1);
    Tensor out = reference(d, tensor_of({1, 1, 3, 3}, kNine), tensor_of({1, 1, 3, 3}, kNine));
    // out[p][q] = sum in[p+r-1][q+s-1] * f[r][s]; e.g. the centre is 1*1+2*2+...+9*9 = 285 and
    // the top-left corner sees in[0..1][0..1] under f[1..2][1..2]: 1*5+2*6+4*8+5*9 = 94.
    const std::vector<float> expect = {94, 154, 106, 186, 285, 186, 106, 154, 94};
    REQUIRE(out.size() == 9);
    for (int i = 0; i < 9; ++i) CHECK(out.data[i] == doctest::Approx(expect[i]));
}

TEST_CASE("hand computed 3x3 input and 3x3 kernel without padding") {
    const Conv2dDesc d = desc_of(1, 1, 3, 3, 1, 3, Padding::None, 1);
    CHECK(d.out_height() == 1);
    CHECK(d.out_width() == 1);
    Tensor out = reference(d, tensor_of({1, 1, 3, 3}, kNine), tensor_of({1, 1, 3, 3}, kNine));
    REQUIRE(out.size() == 1);
    CHECK(out.data[0] == doctest::Approx(285.0));
}

TEST_CASE("hand computed 3x3 input and 3x3 kernel with zero padding and stride 2") {
    const Conv2dDesc d = desc_of(1, 1, 3, 3, 1, 3, Padding::Zero, 2);
    CHECK(d.out_height() == 2);
    CHECK(d.out_width() == 2);
    Tensor out = reference(d, tensor_of({1, 1, 3, 3}, kNine), tensor_of({1, 1, 3, 3}, kNine));
    // Windows centred on input (0,0), (0,2), (2,0), (2,2): the four corners of the zero-padded case.
    const std::vector<float> expect = {94, 106, 106, 94};
    REQUIRE(out.size() == 4);
    for (int i = 0; i < 4; ++i) CHECK(out.data[i] == doctest::Approx(expect[i]));
}

TEST_CASE("the filter is not flipped") {
    // Cross-correlation: a filter with a single 1 at the right reads the right-hand neighbour.
    const Conv2dDesc d = desc_of(1, 1, 1, 3, 1, 3, Padding::Zero, 1);
    Tensor out = reference(d, tensor_of({1, 1, 1, 3}, {1, 2, 3}), tensor_of({1, 1, 3, 3}, {0, 0, 0, 0, 0, 1, 0, 0, 0}));
    CHECK(out.data[0] == 2.0f);
    CHECK(out.data[1] == 3.0f);
    CHECK(out.data[2] == 0.0f);
}

TEST_CASE("every CPU backend equals cpu-scalar on odd shapes") {
    core::BackendList backends = core::make_cpu_backends();
    struct Shape {
        int64_t n, c, h, w, k;
    };
    // {2, 5, 9, 23, 32} and {1, 3, 3, 5, 64} take the output-channel kernel (K a multiple of 16 and
    // 32, C > 1): odd widths split into uneven pixel blocks, and a 3x5 image smaller than a 7x7
    // filter; with stride 2 they take im2col + GEMM, as does {2, 1, 11, 29, 17} (one channel, 17
    // filters: a row block and a column block left over on every ISA).
    // {3, 4, 20, 21, 32} has more output rows than one chunk per thread: chunks then start at every
    // row phase modulo R, each with its own freshly zeroed scratch ring. {2, 3, 4, 16, 32} and
    // {1, 2, 3, 32, 5} have rows of whole vectors: the ring fills then store no partial last vector.
    const Shape shapes[] = {{1, 1, 1, 1, 1},  {1, 1, 5, 7, 1},   {1, 1, 33, 65, 1}, {2, 3, 11, 13, 4},
                            {1, 2, 9, 70, 6}, {2, 5, 9, 23, 32}, {1, 3, 3, 5, 64},  {2, 1, 11, 29, 17},
                            {3, 4, 20, 21, 32}, {2, 3, 4, 16, 32}, {1, 2, 3, 32, 5}};
    int ran = 0, staged_runs = 0;
    for (const Shape& s : shapes) {
        for (int64_t r : {1, 3, 5, 7}) {
            for (Padding pad : {Padding::Zero, Padding::None}) {
                for (int64_t stride : {1, 2}) {
                    const Conv2dDesc d = desc_of(s.n, s.c, s.h, s.w, s.k, r, pad, stride);
                    if (!d.validate().empty()) continue;  // e.g. 7x7 without padding on a 5x7 input
                    Tensor in = core::make_random_tensor({s.n, s.c, s.h, s.w}, 7);
                    Tensor f = core::make_random_tensor({s.k, s.c, r, r}, 8);
                    Tensor ref = reference(d, in, f);
                    const core::Tolerance tol = core::conv2d_tolerance(d, in, f);
                    for (auto& b : backends) {
                        if (!b->availability().ok || !b->supports_conv2d(d)) continue;
                        Tensor out = Tensor::zeros(ref.shape);
                        core::RunResult r2 = b->run_conv2d(d, in, f, out);
                        INFO(std::string(b->name()) << " " << d.to_string());
                        REQUIRE(r2.ok);
                        core::Comparison c = core::compare(ref, out, tol);
                        CHECK_MESSAGE(c.pass, c.verdict);
                        ++ran;
                    }
                    for (cpu::SimdIsa isa : cpu::usable_simd_isas()) {
                        Tensor out = Tensor::zeros(ref.shape);
                        REQUIRE(cpu::conv2d_parallel_with(isa, d, in.ptr(), f.ptr(), out.ptr()));
                        INFO(std::string(cpu::simd_isa_name(isa)) << " " << d.to_string());
                        core::Comparison c = core::compare(ref, out, tol);
                        CHECK_MESSAGE(c.pass, c.verdict);
                        // The same filters packed once (as the timed lesson runs do) give the same
                        // output, bit for bit.
                        cpu::Conv2dFilters prepared;
                        REQUIRE(cpu::prepare_filters(isa, d, f.ptr(), prepared));
                        Tensor again = Tensor::zeros(ref.shape);
                        cpu::conv2d_parallel_prepared(prepared, in.ptr(), again.ptr());
                        CHECK(again.data == out.data);
                        // And so do the staged layouts (cpu-parallel's timed runs): same taps, same
                        // order, only the input's border and the output's layout differ.
                        if (cpu::conv2d_can_stage(isa, d)) {
                            cpu::Conv2dStaged staged;
                            cpu::conv2d_stage_input(prepared, in.ptr(), staged);
                            cpu::conv2d_parallel_staged(prepared, staged);
                            Tensor unstaged = Tensor::zeros(ref.shape);
                            cpu::conv2d_unstage_output(prepared, staged, unstaged.ptr());
                            CHECK(unstaged.data == out.data);
                            ++staged_runs;
                        }
                    }
                }
            }
        }
    }
    CHECK(ran > 100);
    // The channel kernel (and with it the staged form) exists wherever AVX2 or AVX-512 does.
    if (cpu::usable_simd_isas().size() > 1) CHECK(staged_runs > 20);
}

TEST_CASE("cpu-parallel's implementation line says when its layouts were converted outside the clock") {
    // A CNN layer takes the channel kernel, timed in staged layouts as oneDNN is; one channel does not.
    const Conv2dDesc layer = desc_of(2, 32, 8, 8, 32, 3, Padding::Zero, 1);
    const Conv2dDesc picture = desc_of(1, 1, 8, 8, 1, 3, Padding::Zero, 1);
    for (cpu::SimdIsa isa : cpu::usable_simd_isas()) {
        auto backend = cpu::make_parallel_backend(isa);
        INFO(cpu::simd_isa_name(isa));
        const bool staged = backend->conv2d_implementation(layer).find("layouts converted untimed") != std::string::npos;
        CHECK(staged == cpu::conv2d_can_stage(isa, layer));
        CHECK(staged == (isa != cpu::SimdIsa::Baseline));  // the channel kernel exists for AVX2 and AVX-512
        CHECK(backend->conv2d_implementation(picture).find("untimed") == std::string::npos);
        // And the run itself is right: same numbers as cpu-scalar.
        Tensor in = core::make_random_tensor({2, 32, 8, 8}, 3), f = core::make_random_tensor({32, 32, 3, 3}, 4);
        Tensor ref = reference(layer, in, f), out = Tensor::zeros(ref.shape);
        REQUIRE(backend->run_conv2d(layer, in, f, out).ok);
        const core::Comparison c = core::compare(ref, out, core::conv2d_tolerance(layer, in, f));
        CHECK_MESSAGE(c.pass, c.verdict);
    }
}

TEST_CASE("1x1 input with padding sees only the centre tap") {
    const Conv2dDesc d = desc_of(1, 1, 1, 1, 1, 7, Padding::Zero, 1);
    CHECK(d.validate().empty());
    Tensor f = core::make_random_tensor({1, 1, 7, 7}, 3);
    Tensor out = reference(d, tensor_of({1, 1, 1, 1}, {2.0f}), f);
    REQUIRE(out.size() == 1);
    CHECK(out.data[0] == doctest::Approx(2.0f * f.data[24]));
}

TEST_CASE("named filters have the documented weights") {
    CHECK(core::named_filters().size() == 8);
    for (const std::string& name : core::named_filters()) {
        Tensor f = core::make_named_filter(name, 5);
        CHECK(f.shape.size() == 4);
        CHECK(f.shape[2] == f.shape[3]);
    }
    Tensor g = core::make_named_filter("gaussian", 5);
    double sum = 0.0;
    for (float v : g.data) sum += v;
    CHECK(sum == doctest::Approx(1.0));
    CHECK(g.data[12] > g.data[0]);  // peaked in the middle
    Tensor b = core::make_named_filter("box", 3);
    CHECK(b.data[0] == doctest::Approx(1.0 / 9.0));
    Tensor sx = core::make_named_filter("sobel-x", 3);
    CHECK(sx.data[0] == -1.0f);
    CHECK(sx.data[5] == 2.0f);
    CHECK_THROWS_WITH_AS(core::make_named_filter("blurry"), doctest::Contains("unknown filter 'blurry'"),
                         core::InputError);
    CHECK_THROWS_WITH_AS(core::make_named_filter("box", 4), doctest::Contains("odd"), core::InputError);
    CHECK_THROWS_AS(core::make_named_filter("gaussian", 9), core::InputError);
}

TEST_CASE("the identity filter returns the test image") {
    Tensor img = core::make_test_image(37, 53);
    for (float v : img.data) REQUIRE((v >= 0.0f && v <= 1.0f));
    Tensor again = core::make_test_image(37, 53);
    CHECK(core::compare(img, again, {0.0, 0.0}).pass);  // deterministic
    const Conv2dDesc d = desc_of(1, 1, 37, 53, 1, 3, Padding::Zero, 1);
    Tensor out = reference(d, img, core::make_named_filter("identity"));
    out.shape = img.shape;
    CHECK(core::compare(img, out, {0.0, 0.0}).pass);
}

TEST_CASE("max pooling 2x2 keeps the largest of each block and drops odd edges") {
    Tensor in = tensor_of({3, 5}, {1, 5, 2, 0, 9, 3, 4, 8, 7, 9, 6, 6, 6, 6, 6});
    Tensor out = core::max_pool_2x2(in);
    REQUIRE(out.shape == std::vector<int64_t>{1, 2});
    CHECK(out.data[0] == 5.0f);
    CHECK(out.data[1] == 8.0f);
    Tensor batch = core::make_random_tensor({2, 3, 7, 9}, 4);
    Tensor pooled = core::max_pool_2x2(batch);
    REQUIRE(pooled.shape == std::vector<int64_t>{2, 3, 3, 4});
    // plane 5, row 2, column 3 pools input rows 4..5, columns 6..7 of plane 5
    const float* p = batch.ptr() + 5 * 63;
    const float expect = std::max(std::max(p[4 * 9 + 6], p[4 * 9 + 7]), std::max(p[5 * 9 + 6], p[5 * 9 + 7]));
    CHECK(pooled.data[5 * 12 + 2 * 4 + 3] == expect);
    CHECK_THROWS_WITH_AS(core::max_pool_2x2(tensor_of({1, 3}, {1, 2, 3})), doctest::Contains("at least 2x2"),
                         core::InputError);
}

TEST_CASE("validate names the problem") {
    CHECK(desc_of(1, 1, 8, 8, 1, 3, Padding::Zero, 1).validate().empty());
    CHECK(desc_of(1, 1, 8, 8, 1, 4, Padding::Zero, 1).validate().find("odd") != std::string::npos);
    CHECK(desc_of(1, 1, 64, 64, 1, 17, Padding::Zero, 1).validate().find("largest allowed is 15x15") !=
          std::string::npos);
    CHECK(desc_of(1, 1, 8, 8, 1, 3, Padding::Zero, 0).validate().find("stride must be at least 1") !=
          std::string::npos);
    CHECK(desc_of(1, 1, 4, 8, 1, 5, Padding::None, 1).validate().find("does not fit in a 4x8 input") !=
          std::string::npos);
    CHECK(desc_of(1, 1, 4, 8, 1, 5, Padding::Zero, 1).validate().empty());  // padding makes room
    CHECK(desc_of(1, 1, 0, 8, 1, 3, Padding::Zero, 1).validate().find("at least 1x1") != std::string::npos);
    CHECK(desc_of(1, 0, 8, 8, 1, 3, Padding::Zero, 1).validate().find("at least 1") != std::string::npos);
    CHECK(desc_of(1, 1, 512, 512, 1, 3, Padding::Zero, 1).to_string() ==
          "N=1 C=1 H=512 W=512 K=1 R=S=3 pad=zero stride=1 -> P=512 Q=512");
}

TEST_CASE("backends refuse bad shapes with a message") {
    core::BackendList backends = core::make_cpu_backends();
    const Conv2dDesc even = desc_of(1, 1, 8, 8, 1, 4, Padding::Zero, 1);
    Tensor in = Tensor::zeros({1, 1, 8, 8}), f = Tensor::zeros({1, 1, 4, 4}), out = Tensor::zeros({1, 1, 8, 8});
    for (auto& b : backends) {
        CHECK_FALSE(b->supports_conv2d(even));
        core::RunResult r = b->run_conv2d(even, in, f, out);
        CHECK_FALSE(r.ok);
        CHECK_FALSE(r.error.empty());
    }
    const Conv2dDesc good = desc_of(1, 1, 8, 8, 1, 3, Padding::Zero, 1);
    Tensor wrong = Tensor::zeros({1, 1, 5, 5});
    for (auto& b : backends) {
        if (!b->availability().ok) continue;
        core::RunResult r = b->run_conv2d(good, in, wrong, out);
        CHECK_FALSE(r.ok);
        CHECK(r.error.find("filters have 25 elements") != std::string::npos);
    }
}

TEST_CASE("custom filter files are checked") {
    const std::string ok = temp_path("ok.npy"), even = temp_path("even.npy"), bad = temp_path("bad.npy"),
                      rect = temp_path("rect.npy");
    core::write_npy(ok, core::make_random_tensor({2, 1, 5, 5}, 1));
    core::write_npy(even, Tensor::zeros({4, 4}));
    core::write_npy(rect, Tensor::zeros({3, 5}));
    {
        std::ofstream f(bad, std::ios::binary);
        f << "this is not numpy";
    }
    Tensor t = core::load_filter_file(ok);
    CHECK(t.shape == std::vector<int64_t>{2, 1, 5, 5});
    CHECK_THROWS_WITH_AS(core::load_filter_file(even), doctest::Contains("odd size"), core::InputError);
    CHECK_THROWS_WITH_AS(core::load_filter_file(rect), doctest::Contains("square"), core::InputError);
    CHECK_THROWS_AS(core::load_filter_file(bad), core::InputError);
    CHECK_THROWS_AS(core::load_filter_file(temp_path("missing.npy")), core::InputError);
    for (const std::string& p : {ok, even, bad, rect}) std::remove(p.c_str());
}

TEST_CASE("the workload runs every backend and reports GFLOP/s") {
    core::BackendList list = core::make_cpu_backends();
    std::vector<core::Backend*> backends;
    for (auto& b : list) backends.push_back(b.get());
    core::MeasureConfig config;
    config.warmup = 1, config.min_samples = 2, config.max_samples = 2, config.time_budget_ns = 0;
    config.measure_limits = false;

    core::Conv2dParams image;
    image.filter = "gaussian";
    image.kernel = 5;
    image.height = 40, image.width = 70;
    core::Conv2dRun run = core::run_conv2d(image, backends, config);
    REQUIRE_MESSAGE(run.ok, run.error);
    CHECK(run.input.shape == std::vector<int64_t>{1, 1, 40, 70});
    CHECK(run.reference_backend == "cpu-scalar");
    for (const auto& r : run.reports) {
        if (!r.availability.ok) continue;
        INFO(r.backend);
        CHECK(r.ran);
        CHECK(r.gflops > 0.0);
        CHECK(r.check.pass);
        CHECK_FALSE(r.implementation.empty());
    }

    core::Conv2dParams layer;
    layer.layer_mode = true;
    layer.batch = 2, layer.channels = 3, layer.filters = 4, layer.height = 13, layer.width = 17;
    layer.stride = 2;
    run = core::run_conv2d(layer, backends, config);
    REQUIRE_MESSAGE(run.ok, run.error);
    CHECK(run.reference_output.shape == std::vector<int64_t>{2, 4, 7, 9});
    for (const auto& r : run.reports) CHECK((!r.availability.ok || r.check.pass));
}

TEST_CASE("the workload refuses bad input with one sentence") {
    core::BackendList list = core::make_cpu_backends();
    std::vector<core::Backend*> backends;
    for (auto& b : list) backends.push_back(b.get());
    core::MeasureConfig config;
    config.min_samples = 1, config.max_samples = 1, config.measure_limits = false;

    core::Conv2dParams p;
    p.stride = 0;
    core::Conv2dRun run = core::run_conv2d(p, backends, config);
    CHECK_FALSE(run.ok);
    CHECK(run.error.find("stride") != std::string::npos);

    p = {};
    p.filter = "box";
    p.kernel = 5;
    p.padding = Padding::None;
    p.height = 3, p.width = 3;
    run = core::run_conv2d(p, backends, config);
    CHECK_FALSE(run.ok);
    CHECK(run.error.find("does not fit") != std::string::npos);

    p = {};
    p.layer_mode = true;
    p.height = p.width = 1 << 20;
    p.channels = 64;
    run = core::run_conv2d(p, backends, config);
    CHECK_FALSE(run.ok);
    CHECK(run.error.find("refused") != std::string::npos);

    const std::string not_image = temp_path("not_an_image.png");
    {
        std::ofstream f(not_image, std::ios::binary);
        f << "not a picture at all";
    }
    p = {};
    p.image_path = not_image;
    run = core::run_conv2d(p, backends, config);
    CHECK_FALSE(run.ok);
    CHECK(run.error.find("cannot decode image") != std::string::npos);
    std::remove(not_image.c_str());

    p = {};
    p.filter = "custom";
    p.filter_path = temp_path("absent.npy");
    run = core::run_conv2d(p, backends, config);
    CHECK_FALSE(run.ok);
    CHECK_FALSE(run.error.empty());
}

TEST_CASE("lesson params apply on top of the base") {
    std::map<std::string, core::ParamValue> params = {{"filter", std::string("laplacian")},
                                                      {"padding", std::string("none")},
                                                      {"stride", int64_t{2}},
                                                      {"layer_mode", true},
                                                      {"channels", int64_t{16}}};
    core::Conv2dParams p = core::conv2d_params_from(params, {});
    CHECK(p.filter == "laplacian");
    CHECK(p.padding == Padding::None);
    CHECK(p.stride == 2);
    CHECK(p.layer_mode);
    CHECK(p.channels == 16);
    CHECK(p.height == 512);
}

TEST_CASE("the colour test image has three deterministic planes in range") {
    Tensor rgb = core::make_test_image_rgb(41, 67);
    REQUIRE(rgb.shape == std::vector<int64_t>{3, 41, 67});
    for (float v : rgb.data) REQUIRE((v >= 0.0f && v <= 1.0f));
    CHECK(core::compare(rgb, core::make_test_image_rgb(41, 67), {0.0, 0.0}).pass);
    // Tinted regions make the planes differ: red and blue must not be the same picture.
    const int64_t plane = 41 * 67;
    double diff = 0.0;
    for (int64_t i = 0; i < plane; ++i) diff += std::fabs(rgb.data[i] - rgb.data[2 * plane + i]);
    CHECK(diff / static_cast<double>(plane) > 0.05);
    CHECK_THROWS_AS(core::make_test_image_rgb(0, 4), core::InputError);
}

TEST_CASE("load_image_rgb gives three planes and names a bad file") {
    const std::string png = std::string(GPULAB_TEST_DATA_DIR) + "/gradient.png";
    Tensor gray = core::load_image_gray(png);
    Tensor rgb = core::load_image_rgb(png);
    REQUIRE(gray.shape.size() == 2);
    REQUIRE(rgb.shape == std::vector<int64_t>{3, gray.shape[0], gray.shape[1]});
    for (float v : rgb.data) REQUIRE((v >= 0.0f && v <= 1.0f));

    const std::string not_image = temp_path("rgb_not_an_image.png");
    {
        std::ofstream f(not_image, std::ios::binary);
        f << "plain text, no pixels";
    }
    try {
        core::load_image_rgb(not_image);
        FAIL("load_image_rgb accepted a text file");
    } catch (const core::InputError& e) {
        const std::string msg = e.what();
        CHECK(msg.find(not_image) != std::string::npos);
        CHECK(msg.find("cannot decode image") != std::string::npos);
    }
    std::remove(not_image.c_str());
    CHECK_THROWS_AS(core::load_image_rgb(temp_path("absent.png")), core::InputError);
}

TEST_CASE("per channel output plane n equals the grayscale convolution of plane n") {
    core::BackendList list = core::make_cpu_backends();
    std::vector<core::Backend*> backends;
    for (auto& b : list) backends.push_back(b.get());
    core::MeasureConfig config;
    config.warmup = 0, config.min_samples = 1, config.max_samples = 1, config.time_budget_ns = 0;
    config.measure_limits = false;

    core::Conv2dParams p;
    p.filter = "sobel-x";
    p.height = 29, p.width = 45;
    p.per_channel = true;
    core::Conv2dRun run = core::run_conv2d(p, backends, config);
    REQUIRE_MESSAGE(run.ok, run.error);
    CHECK(run.desc.batch == 3);
    CHECK(run.desc.channels == 1);
    REQUIRE(run.input.shape == std::vector<int64_t>{3, 1, 29, 45});
    REQUIRE(run.reference_output.shape == std::vector<int64_t>{3, 1, 29, 45});
    for (const auto& r : run.reports) {
        INFO(r.backend);
        CHECK((!r.availability.ok || r.check.pass));
    }
    const Tensor rgb = core::make_test_image_rgb(29, 45);
    CHECK(core::compare(rgb, Tensor{{3, 29, 45}, run.input.data}, {0.0, 0.0}).pass);

    // Each plane through the one-picture path (N=1, C=1) must give the same numbers.
    const int64_t plane = 29 * 45;
    const Conv2dDesc one = desc_of(1, 1, 29, 45, 1, 3, Padding::Zero, 1);
    for (int64_t n = 0; n < 3; ++n) {
        INFO("plane " << n);
        Tensor in = Tensor::zeros({1, 1, 29, 45});
        std::copy(rgb.data.begin() + n * plane, rgb.data.begin() + (n + 1) * plane, in.data.begin());
        Tensor expect = reference(one, in, run.filters);
        Tensor got = Tensor::zeros({1, 1, 29, 45});
        std::copy(run.reference_output.data.begin() + n * plane, run.reference_output.data.begin() + (n + 1) * plane,
                  got.data.begin());
        CHECK(core::compare(expect, got, {0.0, 0.0}).pass);
    }

    // A picture file goes through load_image_rgb; grayscale mode is unchanged (N=1).
    p.image_path = std::string(GPULAB_TEST_DATA_DIR) + "/gradient.png";
    run = core::run_conv2d(p, backends, config);
    REQUIRE_MESSAGE(run.ok, run.error);
    CHECK(run.input.shape[0] == 3);
    p.per_channel = false;
    run = core::run_conv2d(p, backends, config);
    REQUIRE_MESSAGE(run.ok, run.error);
    CHECK(run.input.shape[0] == 1);

    // Layer mode ignores the picture settings, per_channel included.
    p = {};
    p.per_channel = true;
    p.layer_mode = true;
    p.batch = 1, p.channels = 2, p.filters = 2, p.height = 9, p.width = 9;
    run = core::run_conv2d(p, backends, config);
    REQUIRE_MESSAGE(run.ok, run.error);
    CHECK(run.input.shape == std::vector<int64_t>{1, 2, 9, 9});
}

TEST_CASE("per_channel is parsed from step params and type checked by the lesson parser") {
    std::map<std::string, core::ParamValue> params = {{"per_channel", true}};
    CHECK(core::conv2d_params_from(params, {}).per_channel);
    CHECK_FALSE(core::conv2d_params_from({}, {}).per_channel);

    const std::string head =
        "id = \"c\"\ntitle = \"C\"\nworkload = \"conv2d\"\n[[steps]]\ntitle = \"s\"\nbody = \"b\"\n[steps.params]\n";
    core::LessonLoad good = core::parse_lesson_text(head + "per_channel = true\n", "c.toml");
    REQUIRE(good.lesson);
    CHECK(core::param_bool(good.lesson->steps[0].params, "per_channel", false));
    core::LessonLoad bad = core::parse_lesson_text(head + "per_channel = \"yes\"\n", "c.toml");
    CHECK_FALSE(bad.lesson);
    REQUIRE_FALSE(bad.errors.empty());
    CHECK(bad.errors[0].message.find("per_channel") != std::string::npos);
}

}  // TEST_SUITE("conv2d")
