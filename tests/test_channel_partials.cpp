// How one output map of a trained layer is made (core/train/channel_partials.h): the partial maps
// of one filter, added in channel order, plus the bias, equal the engines' own convolution forward
// (cpu-scalar's loops and cpu-parallel's) within float tolerance; the forward chain the lesson uses
// for conv2's input is the cpu-parallel engine's own (same logits); the file of learned parameters
// round-trips, and a corrupt, truncated, half-written or foreign file is refused with a sentence and
// trained again; an unwritable cache folder is a sentence, not a failure.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <vector>

#include "io/image_io.h"
#include "train/channel_partials.h"
#include "train/cpu_layers.h"
#include "train/engine.h"

using namespace gpulab;
using namespace gpulab::train;
namespace fs = std::filesystem;

namespace {

ModelDesc lesson_model() { return make_model(kDefaultModelSpec, {1, 28, 28}, 10); }

// He weights from a seed, with non-zero biases so the bias term is tested too.
std::vector<float> params_with_bias(const ModelDesc& m, std::uint64_t seed) {
    std::vector<float> p = init_params(m, seed);
    std::mt19937 rng(static_cast<unsigned>(seed));
    std::uniform_real_distribution<float> u(-0.3f, 0.3f);
    for (const Layer& l : m.layers)
        for (std::int64_t i = 0; i < l.bias_count; ++i) p[static_cast<std::size_t>(l.bias_offset + i)] = u(rng);
    return p;
}

std::vector<float> picture(unsigned seed) {
    std::vector<float> img(28 * 28);
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    for (int y = 0; y < 28; ++y)
        for (int x = 0; x < 28; ++x)  // a bright blob on noise: conv1's ReLU keeps some of it
            img[static_cast<std::size_t>(y * 28 + x)] =
                std::min(1.0f, 0.2f * u(rng) + ((y - 14) * (y - 14) + (x - 12) * (x - 12) < 60 ? 0.8f : 0.0f));
    return img;
}

// A 28x28 toy data set: class c is a bright square at one of 10 places, on noise.
Dataset toy_data(std::int64_t train_n, std::int64_t test_n) {
    auto make = [](std::int64_t count, unsigned seed) {
        ImageSet s;
        s.count = count;
        s.rows = s.cols = 28;
        std::mt19937 rng(seed);
        for (std::int64_t i = 0; i < count; ++i) {
            const int label = static_cast<int>(rng() % 10);
            s.labels.push_back(static_cast<std::uint8_t>(label));
            std::vector<std::uint8_t> px(28 * 28);
            for (auto& v : px) v = static_cast<std::uint8_t>(rng() % 40);
            const int y0 = 2 + (label / 5) * 14, x0 = 2 + (label % 5) * 5;
            for (int y = y0; y < y0 + 6; ++y)
                for (int x = x0; x < x0 + 4; ++x) px[static_cast<std::size_t>(y * 28 + x)] = 230;
            s.pixels.insert(s.pixels.end(), px.begin(), px.end());
        }
        return s;
    };
    Dataset d;
    d.folder = "toy";
    d.train = make(train_n, 1);
    d.test = make(test_n, 2);
    return d;
}

fs::path fresh_dir(const std::string& name) {
    const fs::path dir = fs::temp_directory_path() / ("gpulab_test_channel_partials_" + name);
    std::error_code ec;
    fs::remove_all(dir, ec);
    return dir;
}

ObtainConfig small_config(const fs::path& dir) {
    ObtainConfig c;
    c.cache_dir = dir.string();
    c.train_images = 96;
    c.test_images = 32;
    c.batch = 32;
    c.engine = "cpu-scalar";
    return c;
}

}  // namespace

TEST_SUITE("channel_partials") {
    TEST_CASE("the partial maps of conv2 plus the bias are the layer's forward output (scalar and parallel)") {
        const ModelDesc m = lesson_model();
        const std::vector<float> params = params_with_bias(m, 7);
        const std::vector<float> img = picture(3);
        const int conv2 = conv_layer_index(m, 1);
        REQUIRE(conv2 >= 0);
        const Layer& l = m.layers[static_cast<std::size_t>(conv2)];
        CHECK(l.in.c == 32);
        CHECK(l.in.h == 13);
        CHECK(l.out.h == 11);
        const std::vector<float> in = forward_to(m, params, img.data(), static_cast<std::size_t>(conv2));
        REQUIRE(static_cast<std::int64_t>(in.size()) == 32 * 13 * 13);
        // The layer's own forward on the same input, by both CPU engines' layer functions.
        const ConvShape s{1, l.in.c, l.in.h, l.in.w, l.out.c, l.kernel};
        std::vector<float> y_scalar(static_cast<std::size_t>(l.out.size())), y_parallel(y_scalar.size());
        scalar_layer_ops().conv_forward(s, in.data(), params.data() + l.weight_offset, params.data() + l.bias_offset,
                                        y_scalar.data());
        parallel_layer_ops().conv_forward(s, in.data(), params.data() + l.weight_offset,
                                          params.data() + l.bias_offset, y_parallel.data());
        // The same map one layer on, through the chain: forward_to(conv2 + 1) is conv2's output.
        const std::vector<float> chain = forward_to(m, params, img.data(), static_cast<std::size_t>(conv2) + 1);
        for (std::int64_t k : {std::int64_t{0}, std::int64_t{17}, std::int64_t{63}}) {
            const ChannelPartials cp = channel_partials(m, params, static_cast<std::size_t>(conv2), in, k);
            CHECK(cp.channels == 32);
            CHECK(cp.plane() == 121);
            CHECK(cp.bias == params[static_cast<std::size_t>(l.bias_offset + k)]);
            for (std::int64_t i = 0; i < cp.plane(); ++i) {
                // The sum of the 32 partial maps, added here directly, and the running sum's last map.
                double sum = 0.0, magnitude = std::fabs(cp.bias);
                for (std::int64_t c = 0; c < cp.channels; ++c) {
                    sum += cp.partials[static_cast<std::size_t>(c * cp.plane() + i)];
                    magnitude += std::fabs(cp.partials[static_cast<std::size_t>(c * cp.plane() + i)]);
                }
                const double tol = 1e-5 * magnitude + 1e-6;
                const std::size_t at = static_cast<std::size_t>(k * cp.plane() + i);
                CHECK(std::fabs(sum + cp.bias - y_scalar[at]) <= tol);
                CHECK(std::fabs(cp.output[static_cast<std::size_t>(i)] - y_scalar[at]) <= tol);
                CHECK(std::fabs(cp.output[static_cast<std::size_t>(i)] - y_parallel[at]) <= tol);
                CHECK(std::fabs(cp.output[static_cast<std::size_t>(i)] - chain[at]) <= tol);
                CHECK(cp.relu[static_cast<std::size_t>(i)] == std::max(cp.output[static_cast<std::size_t>(i)], 0.0f));
            }
        }
    }

    TEST_CASE("a partial map is the slice slid over its channel alone") {
        const ModelDesc m = lesson_model();
        const std::vector<float> params = params_with_bias(m, 11);
        const int conv2 = conv_layer_index(m, 1);
        const std::vector<float> in = forward_to(m, params, picture(5).data(), static_cast<std::size_t>(conv2));
        const ChannelPartials cp = channel_partials(m, params, static_cast<std::size_t>(conv2), in, 5);
        const Layer& l = m.layers[static_cast<std::size_t>(conv2)];
        // Channel 9, output (4, 6), by hand from the K,C,R,S weights.
        const std::int64_t c = 9, p = 4, q = 6;
        double expect = 0.0;
        for (int r = 0; r < 3; ++r)
            for (int t = 0; t < 3; ++t)
                expect += params[static_cast<std::size_t>(l.weight_offset + ((5 * 32 + c) * 3 + r) * 3 + t)] *
                          in[static_cast<std::size_t>(c * 169 + (p + r) * 13 + q + t)];
        CHECK(cp.partials[static_cast<std::size_t>(c * 121 + p * 11 + q)] == doctest::Approx(expect).epsilon(1e-5));
        CHECK(cp.running[static_cast<std::size_t>(0 * 121 + p * 11 + q)] == cp.partials[static_cast<std::size_t>(p * 11 + q)]);
    }

    TEST_CASE("the forward chain is the cpu-parallel engine's: same logits") {
        const ModelDesc m = lesson_model();
        const std::vector<float> params = params_with_bias(m, 13);
        const std::vector<float> img = picture(9);
        auto engine = make_train_engine("cpu-parallel");
        REQUIRE(engine);
        engine->setup(m, params, 1);
        engine->forward(img.data(), 1);
        const std::vector<float> logits = engine->logits();
        const std::vector<float> mine = forward_to(m, params, img.data(), m.layers.size());
        REQUIRE(mine.size() == logits.size());
        for (std::size_t i = 0; i < mine.size(); ++i) CHECK(mine[i] == doctest::Approx(logits[i]).epsilon(1e-4));
    }

    TEST_CASE("the strongest filter holds the largest output value") {
        const ModelDesc m = lesson_model();
        const std::vector<float> params = params_with_bias(m, 17);
        const int conv2 = conv_layer_index(m, 1);
        const std::vector<float> in = forward_to(m, params, picture(1).data(), static_cast<std::size_t>(conv2));
        const std::int64_t best = strongest_filter(m, params, static_cast<std::size_t>(conv2), in);
        const ChannelPartials strongest = channel_partials(m, params, static_cast<std::size_t>(conv2), in, best);
        const float best_max = *std::max_element(strongest.output.begin(), strongest.output.end());
        for (std::int64_t k = 0; k < 64; ++k) {
            const ChannelPartials cp = channel_partials(m, params, static_cast<std::size_t>(conv2), in, k);
            CHECK(*std::max_element(cp.output.begin(), cp.output.end()) <= best_max + 1e-6f);
        }
    }

    TEST_CASE("bad arguments are refused with a sentence") {
        const ModelDesc m = lesson_model();
        const std::vector<float> params = init_params(m, 1);
        const int conv2 = conv_layer_index(m, 1);
        const std::vector<float> in(32 * 13 * 13, 0.5f);
        CHECK_THROWS_AS(channel_partials(m, params, static_cast<std::size_t>(conv2), in, 64), core::InputError);
        CHECK_THROWS_AS(channel_partials(m, params, 1, in, 0), core::InputError);  // relu1
        CHECK_THROWS_AS(channel_partials(m, params, static_cast<std::size_t>(conv2), std::vector<float>(5), 0),
                        core::InputError);
        CHECK_THROWS_AS(forward_to(m, std::vector<float>(3), in.data(), 1), core::InputError);
        CHECK(conv_layer_index(m, 3) == -1);
    }

    TEST_CASE("the file of learned parameters round-trips") {
        const ModelDesc m = lesson_model();
        const fs::path dir = fresh_dir("roundtrip");
        LearnedParams l;
        l.params = params_with_bias(m, 21);
        l.record.engine = "cpu-parallel";
        l.record.train_images = 6000;
        l.record.batches = 94;
        l.record.batch = 64;
        l.record.epochs = 1;
        l.record.whole_epoch = true;
        l.record.test_images = 2000;
        l.record.test_accuracy = 0.8125;
        l.record.trained_unix_s = 1700000000;
        CHECK(save_learned_params(dir.string(), m, l) == "");
        CHECK(fs::exists(params_file_path(dir.string(), m)));
        CHECK(fs::path(params_file_path(dir.string(), m)).filename().string() ==
              "trained-params-" + model_hash(m) + ".npy");
        for (const auto& e : fs::directory_iterator(dir))  // no temporary file left behind
            CHECK(e.path().string().find(".tmp.") == std::string::npos);
        const LearnedParams back = load_learned_params(dir.string(), m);
        CHECK(back.params == l.params);
        CHECK(back.record.train_images == 6000);
        CHECK(back.record.batches == 94);
        CHECK(back.record.whole_epoch);
        CHECK(back.record.test_images == 2000);
        CHECK(back.record.test_accuracy == doctest::Approx(0.8125));
        CHECK(back.record.trained_unix_s == 1700000000);
        CHECK(back.record.describe(true) ==
              "learned just now from 6,000 Fashion-MNIST pictures, 1 epoch, test accuracy 81.2 % (2,000 test pictures)");
        CHECK(back.record.describe(false).rfind("learned on 2023-11-1", 0) == 0);  // the 14th or 15th: time zone
        // Read through core's own .npy reader: a float32 array of one dimension.
        CHECK(core::read_npy(params_file_path(dir.string(), m)).shape == std::vector<int64_t>{m.parameter_count});
        // Another model's file name differs, and its record is refused if copied over.
        const ModelDesc other = make_model("conv8,pool,dense10", {1, 28, 28}, 10);
        CHECK(model_hash(other) != model_hash(m));
        fs::copy_file(params_record_path(dir.string(), m), params_record_path(dir.string(), other));
        fs::copy_file(params_file_path(dir.string(), m), params_file_path(dir.string(), other));
        CHECK_THROWS_WITH_AS(load_learned_params(dir.string(), other), doctest::Contains("belong to model"),
                             core::InputError);
        fs::remove_all(dir);
    }

    TEST_CASE("a corrupt or half-written file is refused with a sentence and trained again") {
        const ModelDesc m = lesson_model();
        const Dataset data = toy_data(96, 32);
        const fs::path dir = fresh_dir("corrupt");
        const ObtainConfig config = small_config(dir);

        // Nothing there: trains one epoch and saves.
        const ObtainedParams first = obtain_learned_params(data, m, config);
        REQUIRE(first.ok);
        CHECK(first.trained_now);
        CHECK(first.refused == "");
        CHECK(first.save_note == "");
        CHECK(first.learned.record.whole_epoch);
        CHECK(first.learned.record.train_images == 96);
        CHECK(first.learned.record.batches == 3);
        CHECK(first.learned.record.test_images == 32);
        CHECK(first.learned.params != init_params(m, 1));  // they moved

        // There now: loaded, not trained.
        const ObtainedParams second = obtain_learned_params(data, m, config);
        REQUIRE(second.ok);
        CHECK_FALSE(second.trained_now);
        CHECK(second.learned.params == first.learned.params);

        // Garbage in place of the .npy: refused with a sentence, trained again, and saved good.
        { std::ofstream(params_file_path(dir.string(), m), std::ios::binary) << "not an array"; }
        CHECK_THROWS_WITH_AS(load_learned_params(dir.string(), m), doctest::Contains("not a .npy file"),
                             core::InputError);
        const ObtainedParams third = obtain_learned_params(data, m, config);
        REQUIRE(third.ok);
        CHECK(third.trained_now);
        CHECK(third.refused.find("refused") != std::string::npos);
        CHECK(third.refused.find("trained again") != std::string::npos);
        CHECK(third.learned.params == first.learned.params);  // same seed, same batches: the same numbers
        CHECK_NOTHROW(load_learned_params(dir.string(), m));

        // One number changed (a half-written or edited file): the checksum refuses it.
        {
            core::Tensor t = core::read_npy(params_file_path(dir.string(), m));
            t.data[100] += 1.0f;
            core::write_npy(params_file_path(dir.string(), m), t);
        }
        CHECK_THROWS_WITH_AS(load_learned_params(dir.string(), m), doctest::Contains("checksum"), core::InputError);
        // A truncated .npy, and a record without its numbers.
        {
            const std::string npy = params_file_path(dir.string(), m);
            fs::resize_file(npy, fs::file_size(npy) / 2);
        }
        CHECK_THROWS_AS(load_learned_params(dir.string(), m), core::InputError);
        fs::remove(params_file_path(dir.string(), m));
        CHECK_THROWS_AS(load_learned_params(dir.string(), m), core::InputError);
        const ObtainedParams fourth = obtain_learned_params(data, m, config);
        CHECK(fourth.ok);
        CHECK(fourth.trained_now);
        CHECK(fourth.refused != "");
        fs::remove_all(dir);
    }

    TEST_CASE("a record whose counts are out of range is refused before any cast (issue 43)") {
        const ModelDesc m = lesson_model();
        const fs::path dir = fresh_dir("record_range");
        REQUIRE(obtain_learned_params(toy_data(96, 32), m, small_config(dir)).ok);
        const std::string txt = params_record_path(dir.string(), m);
        std::string good;
        {
            std::ifstream in(txt);
            std::ostringstream all;
            all << in.rdbuf();
            good = all.str();
        }
        for (const char* bad : {"epochs = 1e300", "epochs = -1", "epochs = 2.5", "epochs = nan"}) {
            std::string text = good;
            const std::size_t at = text.find("epochs = ");
            REQUIRE(at != std::string::npos);
            text.replace(at, text.find('\n', at) - at, bad);
            { std::ofstream(txt, std::ios::binary) << text; }
            CHECK_THROWS_AS_MESSAGE(load_learned_params(dir.string(), m), core::InputError, bad);
        }
        fs::remove_all(dir);
    }

    TEST_CASE("an unwritable cache folder is a sentence, not a failure") {
        const ModelDesc m = lesson_model();
        const Dataset data = toy_data(64, 32);
        const fs::path dir = fresh_dir("unwritable");
        fs::create_directories(dir);
        { std::ofstream(dir / "a-file") << "x"; }
        ObtainConfig config = small_config(dir / "a-file" / "gpulab");  // a folder under a file cannot exist
        config.train_images = 64;
        const ObtainedParams r = obtain_learned_params(data, m, config);
        CHECK(r.ok);
        CHECK(r.trained_now);
        CHECK(r.save_note.rfind("not saved (cannot create", 0) == 0);
        CHECK(r.file == "");
        fs::remove_all(dir);
    }

    TEST_CASE("a few batches (headless --quick) are labelled so and never saved") {
        const ModelDesc m = lesson_model();
        const Dataset data = toy_data(96, 32);
        const fs::path dir = fresh_dir("quick");
        ObtainConfig config = small_config(dir);
        config.max_batches = 2;
        const ObtainedParams r = obtain_learned_params(data, m, config);
        REQUIRE(r.ok);
        CHECK_FALSE(r.learned.record.whole_epoch);
        CHECK(r.learned.record.batches == 2);
        CHECK(r.learned.record.train_images == 64);
        CHECK(r.learned.record.describe(true).rfind("filters after 2 batches (64 Fashion-MNIST pictures", 0) == 0);
        CHECK(r.save_note == "not saved: part of an epoch only");
        CHECK_FALSE(fs::exists(params_file_path(dir.string(), m)));
        // Stopped by the caller: no parameters, nothing saved.
        config.max_batches = 0;
        const ObtainedParams stopped =
            obtain_learned_params(data, m, config, [](const LaneResult&, const BatchProgress&) { return false; });
        CHECK_FALSE(stopped.ok);
        CHECK(stopped.stopped);
        CHECK_FALSE(fs::exists(params_file_path(dir.string(), m)));
        fs::remove_all(dir);
    }

    TEST_CASE("the cache folder follows XDG_CACHE_HOME, else HOME") {
        const char* old_xdg = std::getenv("XDG_CACHE_HOME");
        const std::string saved = old_xdg ? old_xdg : "";
        ::setenv("XDG_CACHE_HOME", "/somewhere/cache", 1);
        CHECK(params_cache_dir() == "/somewhere/cache/gpulab");
        ::setenv("XDG_CACHE_HOME", "relative/ignored", 1);  // the spec says relative paths are invalid
        const char* home = std::getenv("HOME");
        if (home && home[0]) CHECK(params_cache_dir() == std::string(home) + "/.cache/gpulab");
        if (old_xdg)
            ::setenv("XDG_CACHE_HOME", saved.c_str(), 1);
        else
            ::unsetenv("XDG_CACHE_HOME");
    }
}
