// The partial maps of one output filter, and the file of learned parameters. See channel_partials.h;
// verified by tests/test_channel_partials.cpp.
#include "channel_partials.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <sstream>

#include "measure/format.h"
#include "io/image_io.h"
#include "io/file_io.h"
#include "cpu_layers.h"
#include "engine.h"

namespace gpulab::train {

using core::InputError;

// [SECTION] the numbers of one output map

std::vector<float> forward_to(const ModelDesc& model, const std::vector<float>& params, const float* image,
                              std::size_t end_layer) {
    if (static_cast<std::int64_t>(params.size()) != model.parameter_count)
        throw InputError("the model needs " + core::format_count(model.parameter_count) + " parameters, not " +
                         core::format_count(static_cast<std::int64_t>(params.size())));
    if (end_layer > model.layers.size())
        throw InputError("the model has " + std::to_string(model.layers.size()) + " layers, not " +
                         std::to_string(end_layer));
    const CpuLayerOps& ops = scalar_layer_ops();
    std::vector<float> x(image, image + model.input.size());
    for (std::size_t i = 0; i < end_layer; ++i) {
        const Layer& l = model.layers[i];
        std::vector<float> y(static_cast<std::size_t>(l.out.size()));
        switch (l.kind) {
            case LayerKind::Conv: {
                const ConvShape s{1, l.in.c, l.in.h, l.in.w, l.out.c, l.kernel};
                ops.conv_forward(s, x.data(), params.data() + l.weight_offset, params.data() + l.bias_offset, y.data());
                break;
            }
            case LayerKind::Relu: ops.relu_forward(l.in.size(), x.data(), y.data()); break;
            case LayerKind::MaxPool: ops.maxpool_forward(l.in.c, l.in.h, l.in.w, x.data(), y.data()); break;
            case LayerKind::Dense:
                ops.dense_forward(1, l.in.size(), l.out.c, x.data(), params.data() + l.weight_offset,
                                  params.data() + l.bias_offset, y.data());
                break;
        }
        x = std::move(y);
    }
    return x;
}

int conv_layer_index(const ModelDesc& model, int nth) {
    int seen = 0;
    for (std::size_t i = 0; i < model.layers.size(); ++i)
        if (model.layers[i].kind == LayerKind::Conv && seen++ == nth) return static_cast<int>(i);
    return -1;
}

namespace {

const Layer& conv_layer(const ModelDesc& model, std::size_t index, const std::vector<float>& inputs) {
    if (index >= model.layers.size() || model.layers[index].kind != LayerKind::Conv)
        throw InputError("layer " + std::to_string(index) + " of the model is not a convolution");
    const Layer& l = model.layers[index];
    if (static_cast<std::int64_t>(inputs.size()) != l.in.size())
        throw InputError(l.name + " takes " + core::format_count(l.in.size()) + " input values, not " +
                         core::format_count(static_cast<std::int64_t>(inputs.size())));
    return l;
}

}  // namespace

// The teaching point, as a loop: output map k is built channel by channel. Partial map c is the
// R x S slice c of filter k slid over input channel c alone; adding the C partial maps and the bias
// gives exactly what the layer computes (the engines add the same products in another order, so the
// tests allow float rounding).
ChannelPartials channel_partials(const ModelDesc& model, const std::vector<float>& params, std::size_t conv_layer_at,
                                 const std::vector<float>& inputs, std::int64_t filter) {
    const Layer& l = conv_layer(model, conv_layer_at, inputs);
    if (filter < 0 || filter >= l.out.c)
        throw InputError(l.name + " has filters 0 to " + std::to_string(l.out.c - 1) + ", not " +
                         std::to_string(filter));
    ChannelPartials cp;
    cp.channels = l.in.c;
    cp.in_h = l.in.h;
    cp.in_w = l.in.w;
    cp.kernel = l.kernel;
    cp.out_h = l.out.h;
    cp.out_w = l.out.w;
    cp.filter = filter;
    cp.filters = l.out.c;
    cp.inputs = inputs;
    const std::int64_t C = cp.channels, R = cp.kernel, P = cp.out_h, Q = cp.out_w, H = cp.in_h, W = cp.in_w;
    const float* w = params.data() + l.weight_offset + filter * C * R * R;  // K,C,R,S
    cp.slices.assign(w, w + C * R * R);
    cp.bias = params[static_cast<std::size_t>(l.bias_offset + filter)];
    cp.partials.assign(static_cast<std::size_t>(C * P * Q), 0.0f);
    cp.running.assign(static_cast<std::size_t>(C * P * Q), 0.0f);
    for (std::int64_t c = 0; c < C; ++c) {
        const float* x = inputs.data() + c * H * W;
        const float* s = cp.slices.data() + c * R * R;
        float* part = cp.partials.data() + c * P * Q;
        float* run = cp.running.data() + c * P * Q;
        for (std::int64_t p = 0; p < P; ++p)
            for (std::int64_t q = 0; q < Q; ++q) {
                float acc = 0.0f;
                for (std::int64_t r = 0; r < R; ++r)
                    for (std::int64_t t = 0; t < R; ++t) acc += s[r * R + t] * x[(p + r) * W + (q + t)];
                part[p * Q + q] = acc;
                run[p * Q + q] = (c > 0 ? run[p * Q + q - P * Q] : 0.0f) + acc;
            }
    }
    cp.output.resize(static_cast<std::size_t>(P * Q));
    cp.relu.resize(static_cast<std::size_t>(P * Q));
    const float* last = cp.running.data() + (C - 1) * P * Q;
    for (std::int64_t i = 0; i < P * Q; ++i) {
        cp.output[static_cast<std::size_t>(i)] = last[i] + cp.bias;
        cp.relu[static_cast<std::size_t>(i)] = std::max(cp.output[static_cast<std::size_t>(i)], 0.0f);
    }
    return cp;
}

std::int64_t strongest_filter(const ModelDesc& model, const std::vector<float>& params, std::size_t conv_layer_at,
                              const std::vector<float>& inputs) {
    const Layer& l = conv_layer(model, conv_layer_at, inputs);
    std::vector<float> y(static_cast<std::size_t>(l.out.size()));
    const ConvShape s{1, l.in.c, l.in.h, l.in.w, l.out.c, l.kernel};
    scalar_layer_ops().conv_forward(s, inputs.data(), params.data() + l.weight_offset, params.data() + l.bias_offset,
                                    y.data());
    const std::int64_t plane = l.out.h * l.out.w;
    std::int64_t best = 0;
    float best_v = -INFINITY;
    for (std::int64_t k = 0; k < l.out.c; ++k)
        for (std::int64_t i = 0; i < plane; ++i)
            if (y[static_cast<std::size_t>(k * plane + i)] > best_v) {
                best_v = y[static_cast<std::size_t>(k * plane + i)];
                best = k;
            }
    return best;
}

// [SECTION] the file of learned parameters

namespace {

constexpr const char* kRecordMagic = "gpulab learned parameters 1";

std::uint64_t fnv1a(const void* data, std::size_t n, std::uint64_t h = 1469598103934665603ULL) {
    const auto* b = static_cast<const unsigned char*>(data);
    for (std::size_t i = 0; i < n; ++i) {
        h ^= b[i];
        h *= 1099511628211ULL;
    }
    return h;
}

std::string hex16(std::uint64_t v) {
    char buf[24];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
    return buf;
}

std::string checksum(const std::vector<float>& params) {
    return hex16(fnv1a(params.data(), params.size() * sizeof(float)));
}

std::string date_of(std::int64_t unix_s) {
    const std::time_t t = static_cast<std::time_t>(unix_s);
    std::tm tm{};
    if (!localtime_r(&t, &tm)) return "an unknown date";
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%d", &tm);
    return buf;
}

std::string percent(double fraction) { return core::format_fixed(fraction * 100.0, 1) + " %"; }

}  // namespace

std::string ParamsRecord::describe(bool just_now) const {
    const std::string when = just_now ? "just now" : "on " + date_of(trained_unix_s);
    const std::string accuracy = "test accuracy " + percent(test_accuracy) + " (" + core::format_count(test_images) +
                                 " test pictures)";
    if (!whole_epoch)
        return "filters after " + core::format_count(batches) + " batches (" + core::format_count(train_images) +
               " Fashion-MNIST pictures, part of 1 epoch), trained " + when + ", " + accuracy;
    return "learned " + when + " from " + core::format_count(train_images) + " Fashion-MNIST pictures, " +
           std::to_string(epochs) + (epochs == 1 ? " epoch" : " epochs") + ", " + accuracy;
}

std::string params_cache_dir() { return core::user_cache_folder(); }

std::string model_hash(const ModelDesc& model) {
    const std::string key = model.spec + "|" + std::to_string(model.input.c) + "x" + std::to_string(model.input.h) +
                            "x" + std::to_string(model.input.w) + "|" + std::to_string(model.classes);
    return hex16(fnv1a(key.data(), key.size()));
}

std::string params_file_path(const std::string& dir, const ModelDesc& model) {
    return (std::filesystem::path(dir) / ("trained-params-" + model_hash(model) + ".npy")).string();
}

std::string params_record_path(const std::string& dir, const ModelDesc& model) {
    return (std::filesystem::path(dir) / ("trained-params-" + model_hash(model) + ".txt")).string();
}

std::string save_learned_params(const std::string& dir, const ModelDesc& model, const LearnedParams& learned) {
    if (dir.empty()) return "no cache folder is known (neither XDG_CACHE_HOME nor HOME is set)";
    if (static_cast<std::int64_t>(learned.params.size()) != model.parameter_count)
        return "the parameters do not fit the model";
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) return "cannot create " + dir + ": " + ec.message();
    const std::string npy = params_file_path(dir, model), txt = params_record_path(dir, model);
    const std::string suffix = ".tmp." + std::to_string(static_cast<long long>(::getpid()));
    const ParamsRecord& r = learned.record;
    std::ostringstream o;
    o << kRecordMagic << "\n"
      << "model = " << model.spec << "\n"
      << "input = " << model.input.c << "x" << model.input.h << "x" << model.input.w << "\n"
      << "parameters = " << model.parameter_count << "\n"
      << "checksum = " << checksum(learned.params) << "\n"
      << "engine = " << r.engine << "\n"
      << "train_images = " << r.train_images << "\n"
      << "batches = " << r.batches << "\n"
      << "batch = " << r.batch << "\n"
      << "epochs = " << r.epochs << "\n"
      << "whole_epoch = " << (r.whole_epoch ? 1 : 0) << "\n"
      << "test_images = " << r.test_images << "\n"
      << "test_accuracy = " << core::format_fixed(r.test_accuracy, 6) << "\n"
      << "trained_unix_s = " << r.trained_unix_s << "\n";
    core::Tensor t = core::Tensor::zeros({model.parameter_count});
    std::copy(learned.params.begin(), learned.params.end(), t.data.begin());
    auto drop_temps = [&] {
        std::error_code ignored;
        std::filesystem::remove(npy + suffix, ignored);
        std::filesystem::remove(txt + suffix, ignored);
    };
    try {
        core::write_npy(npy + suffix, t);
    } catch (const std::exception& e) {
        drop_temps();
        return e.what();
    }
    if (std::string err = core::write_output_file(txt + suffix, o.str()); !err.empty()) {
        drop_temps();
        return err;
    }
    // The numbers first, then their record: a reader that finds a record also finds the numbers it
    // describes, and a mismatched pair (a crash between the renames) fails the checksum.
    std::filesystem::rename(npy + suffix, npy, ec);
    if (!ec) std::filesystem::rename(txt + suffix, txt, ec);
    if (ec) {
        drop_temps();
        return "cannot move the learned parameters into " + dir + ": " + ec.message();
    }
    return "";
}

LearnedParams load_learned_params(const std::string& dir, const ModelDesc& model) {
    const std::string npy = params_file_path(dir, model), txt = params_record_path(dir, model);
    const std::string text = core::read_input_file(txt, 1 << 16, "record of learned parameters");
    std::istringstream in(text);
    std::string line;
    if (!std::getline(in, line) || line != kRecordMagic)
        throw InputError(txt + ": not a record of gpulab's learned parameters");
    std::vector<std::pair<std::string, std::string>> kv;
    while (std::getline(in, line)) {
        const auto eq = line.find(" = ");
        if (eq != std::string::npos) kv.emplace_back(line.substr(0, eq), line.substr(eq + 3));
    }
    auto get = [&](const std::string& key) -> std::string {
        for (const auto& [k, v] : kv)
            if (k == key) return v;
        throw InputError(txt + ": the record has no '" + key + "'");
    };
    auto number = [&](const std::string& key) -> double {
        const std::string v = get(key);
        char* end = nullptr;
        const double d = std::strtod(v.c_str(), &end);
        if (v.empty() || *end != '\0' || !std::isfinite(d)) throw InputError(txt + ": '" + key + "' is not a number");
        return d;
    };
    // Counts are whole numbers within what training can produce, checked before any cast: a double
    // of 1e300 cast to int is undefined behaviour, and once showed as "-2147483648 epochs" (issue 43).
    auto whole = [&](const std::string& key, double most) -> std::int64_t {
        const double d = number(key);
        if (d != std::floor(d) || d < 0.0 || d > most)
            throw InputError(txt + ": '" + key + "' is " + get(key).substr(0, 40) + ", not a count from 0 to " + core::format_count(static_cast<std::int64_t>(most)));
        return static_cast<std::int64_t>(d);
    };
    if (get("model") != model.spec)
        throw InputError(txt + ": the parameters belong to model '" + get("model") + "', not '" + model.spec + "'");
    if (whole("parameters", 1e12) != model.parameter_count)
        throw InputError(txt + ": the record is for another number of parameters");
    LearnedParams l;
    ParamsRecord& r = l.record;
    r.model_spec = model.spec;
    r.engine = get("engine");
    r.train_images = whole("train_images", 1e9);
    r.batches = whole("batches", 1e12);
    r.batch = whole("batch", 1e6);
    r.epochs = static_cast<int>(whole("epochs", 1e6));
    r.whole_epoch = whole("whole_epoch", 1) != 0;
    r.test_images = whole("test_images", 1e9);
    r.test_accuracy = number("test_accuracy");
    r.trained_unix_s = whole("trained_unix_s", 1e11);
    if (r.train_images <= 0 || r.test_images <= 0 || r.test_accuracy < 0.0 || r.test_accuracy > 1.0)
        throw InputError(txt + ": the record's counts or accuracy are out of range");
    const core::Tensor t = core::read_npy(npy);
    if (t.size() != model.parameter_count)
        throw InputError(npy + ": holds " + core::format_count(t.size()) + " numbers, the model has " +
                         core::format_count(model.parameter_count) + " parameters");
    l.params.assign(t.data.begin(), t.data.end());
    for (float v : l.params)
        if (!std::isfinite(v)) throw InputError(npy + ": holds a number that is not finite");
    if (checksum(l.params) != get("checksum"))
        throw InputError(npy + ": its numbers do not match the checksum in " +
                         std::filesystem::path(txt).filename().string() + " (changed or half written)");
    return l;
}

// [SECTION] getting learned parameters

ObtainedParams obtain_learned_params(const Dataset& data, const ModelDesc& model, const ObtainConfig& config,
                                     const LaneCallback& on_batch) {
    ObtainedParams out;
    const bool have_file = !config.cache_dir.empty() &&
                           (std::filesystem::exists(params_file_path(config.cache_dir, model)) ||
                            std::filesystem::exists(params_record_path(config.cache_dir, model)));
    if (have_file) {
        try {
            out.learned = load_learned_params(config.cache_dir, model);
            out.ok = true;
            out.file = params_file_path(config.cache_dir, model);
            return out;
        } catch (const std::exception& e) {
            out.refused = std::string("the saved filters were refused (") + e.what() + "), so they were trained again";
        }
    }
    auto engine = make_train_engine(config.engine);
    if (!engine) {
        out.reason = "no training engine named " + config.engine;
        return out;
    }
    BudgetConfig bc;
    bc.train.model_spec = model.spec;
    bc.train.batch = config.batch;
    bc.train.seed = config.seed;
    bc.max_epochs = 1;
    bc.max_batches = config.max_batches;
    const Dataset sub = subset(data, config.train_images, config.test_images);
    const LaneResult lane = train_with_budget(*engine, sub, bc, on_batch);
    if (!lane.ran || lane.params.empty()) {
        out.reason = lane.reason.empty() ? std::string("training did not run") : lane.reason;
        return out;
    }
    if (lane.stopped) {
        out.stopped = true;
        out.reason = "training was stopped";
        return out;
    }
    ParamsRecord& r = out.learned.record;
    r.model_spec = model.spec;
    r.engine = lane.engine;
    r.batch = config.batch;
    r.batches = static_cast<std::int64_t>(lane.batch_loss.size());
    r.train_images = lane.images;
    r.epochs = 1;
    r.whole_epoch = lane.images >= sub.train.count;
    r.test_images = sub.test.count;
    r.test_accuracy = lane.final_test_accuracy();
    r.trained_unix_s = static_cast<std::int64_t>(std::time(nullptr));
    out.learned.params = lane.params;
    out.ok = true;
    out.trained_now = true;
    if (!r.whole_epoch) {
        out.save_note = "not saved: part of an epoch only";
    } else if (config.cache_dir.empty()) {
        out.save_note = "not saved: no cache folder is known (neither XDG_CACHE_HOME nor HOME is set)";
    } else if (std::string err = save_learned_params(config.cache_dir, model, out.learned); !err.empty()) {
        out.save_note = "not saved (" + err + "), so the next start trains again";
    } else {
        out.file = params_file_path(config.cache_dir, model);
    }
    return out;
}

}  // namespace gpulab::train
