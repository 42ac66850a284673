// Lesson files -> core::Lesson, with every problem reported as "file:line: message".
// The file format is documented in lessons/README.md; tests/test_lesson.cpp feeds it good and
// broken files.
#include "lesson.h"

#include <toml++/toml.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <utility>

#include "io/file_io.h"
#include "io/image_io.h"
#include "ops/op_desc.h"

namespace gpulab::core {

namespace {

namespace fs = std::filesystem;

const std::vector<ParamSpec> kActivationParams = {
    {"activation", ParamSpec::Type::String, 0, 0, {"relu", "leaky-relu", "sigmoid", "tanh", "gelu"},
     "which activation to apply"},
    {"elements", ParamSpec::Type::Int, 1024, double(int64_t{1} << 30), {}, "number of elements (2^10 .. 2^30)"},
    {"leaky_alpha", ParamSpec::Type::Float, 0.0, 1.0, {}, "slope of leaky ReLU for negative inputs"},
    {"image", ParamSpec::Type::String, 0, 0, {}, "input picture (path relative to the lesson file); empty: generated"},
    {"animation", ParamSpec::Type::String, 0, 0, {"cpu", "gpu", "both"}, "which side of the element-grid animation plays"},
};
const std::vector<ParamSpec> kLatencyParams = {
    {"activation", ParamSpec::Type::String, 0, 0, {"relu", "leaky-relu", "sigmoid", "tanh", "gelu"},
     "the op swept over sizes"},
    {"min_exp", ParamSpec::Type::Int, 0, 30, {}, "smallest size of the sweep, as a power of two"},
    {"max_exp", ParamSpec::Type::Int, 0, 34, {}, "largest size of the sweep, as a power of two (memory permitting)"},
    {"breakdown_exp", ParamSpec::Type::Int, 0, 34, {}, "size whose phases the breakdown bars show, as a power of two"},
    {"panel", ParamSpec::Type::String, 0, 0, {"sweep", "breakdown", "one-task", "analogy", "launch"},
     "which view of the measurements the step puts in front"},
    {"transfers", ParamSpec::Type::Bool, 0, 0, {}, "count host-device copies in the GPU line (false: data resident)"},
};
const std::vector<ParamSpec> kSimdMimdParams = {
    {"panel", ParamSpec::Type::String, 0, 0, {"flynn", "cpu-simd", "cpu-mimd", "warp"},
     "which view the step puts in front"},
    {"pattern", ParamSpec::Type::String, 0, 0,
     {"uniform", "lane-parity", "4-way", "8-way", "32-way", "random", "per-warp"}, "branch pattern of the warp view"},
    {"activation", ParamSpec::Type::String, 0, 0, {"relu", "leaky-relu", "sigmoid", "tanh", "gelu"},
     "the loop timed scalar vs vectorised"},
    {"elements", ParamSpec::Type::Int, 1024, double(int64_t{1} << 28), {}, "size of the SIMD comparison"},
};
const std::vector<ParamSpec> kConv2dParams = {
    {"filter", ParamSpec::Type::String, 0, 0,
     {"identity", "box", "gaussian", "sharpen", "sobel-x", "sobel-y", "laplacian", "emboss", "custom"},
     "the filter that slides over the input"},
    {"kernel", ParamSpec::Type::Int, 1, 7, {}, "filter size for box / gaussian (odd)"},
    {"padding", ParamSpec::Type::String, 0, 0, {"zero", "none"}, "zero padding (same size) or none (valid only)"},
    {"stride", ParamSpec::Type::Int, 1, 2, {}, "step between filter positions"},
    {"image", ParamSpec::Type::String, 0, 0, {}, "input picture; empty: the built-in test image"},
    {"height", ParamSpec::Type::Int, 1, 16384, {}, "built-in image height"},
    {"width", ParamSpec::Type::Int, 1, 16384, {}, "built-in image width"},
    {"per_channel", ParamSpec::Type::Bool, 0, 0, {},
     "colour picture: the filter runs on the R, G and B planes separately (N=3, C=1)"},
    {"layer_mode", ParamSpec::Type::Bool, 0, 0, {}, "CNN layer: C input channels, K filters of C x R x S"},
    {"batch", ParamSpec::Type::Int, 1, 64, {}, "N in layer mode"},
    {"channels", ParamSpec::Type::Int, 1, 256, {}, "C in layer mode"},
    {"filters", ParamSpec::Type::Int, 1, 256, {}, "K in layer mode"},
    {"panel", ParamSpec::Type::String, 0, 0, {"sliding", "all-at-once", "channels", "pooling", "trained"},
     "the view the step puts in front"},
};
const std::vector<ParamSpec> kTrainParams = {
    {"panel", ParamSpec::Type::String, 0, 0, {"model", "samples", "train", "race", "roofline", "layers", "batch", "results"},
     "the view the step puts in front"},
    {"backend", ParamSpec::Type::String, 0, 0, {"cpu-scalar", "cpu-parallel", "cpu-onednn", "cuda-kernel", "cudnn", "cuda-sim"},
     "the engine the Train button uses"},
    {"images", ParamSpec::Type::Int, 100, 60000, {}, "training images per epoch (a subset of the 60,000)"},
    {"epochs", ParamSpec::Type::Int, 1, 20, {}, "epochs the Train button runs"},
    {"batch", ParamSpec::Type::Int, 1, 1024, {}, "images per training step"},
    {"budget_s", ParamSpec::Type::Int, 1, 120, {}, "seconds of training per engine in the race"},
    {"image", ParamSpec::Type::String, 0, 0, {}, "a picture to classify, as if dropped on the window"},
};
// The kernel puzzles (puzzles/<id>/, core/puzzles/puzzle.h): each step names the puzzle it opens.
// Any id is accepted here (core/lesson sits below core/puzzles); a step whose folder is missing
// says so in the app.
const std::vector<ParamSpec> kPuzzleParams = {
    {"puzzle", ParamSpec::Type::String, 0, 0, {}, "the puzzle the step opens: a folder name under puzzles/"},
};
// The tensor-core lesson (app/views/tensor/): which panel, the lane lit in the instruction's
// picture, its input type, the number typed into the formats panel, the dot-product sweep's size,
// the training panel's length.
const std::vector<ParamSpec> kTensorParams = {
    {"panel", ParamSpec::Type::String, 0, 0, {"fragments", "formats", "dot", "gradients", "master", "training", "speed", "ladder"},
     "the view the step puts in front"},
    {"train_batches", ParamSpec::Type::Int, 10, 2000, {}, "batches of 64 each precision of the training panel trains on"},
    {"loss_scale", ParamSpec::Type::Int, 0, 24, {}, "the loss scale's power of two the gradients panel applies (0: none)"},
    {"weight_step", ParamSpec::Type::Float, 1e-7, 0.1, {}, "the step the master-weights panel subtracts from a weight of 1"},
    {"lane", ParamSpec::Type::Int, 0, 31, {}, "the lane whose elements the instruction's picture lights up"},
    {"input", ParamSpec::Type::String, 0, 0, {"fp16", "bf16"}, "the instruction's input type"},
    {"value", ParamSpec::Type::Float, 0, 0, {}, "the number shown in every format (any number, inf or nan)"},
    {"max_k", ParamSpec::Type::Int, 256, double(int64_t{1} << 20), {}, "the longest dot product of the sweep (a power of two)"},
    {"trials", ParamSpec::Type::Int, 1, 64, {}, "vector pairs each error is averaged over"},
};
const std::vector<ParamSpec> kNoParams = {};
const std::set<std::string> kPredictKeys = {"question", "choices", "reveal"};

const std::set<std::string> kLessonKeys = {"id", "title", "summary", "workload", "order", "status", "steps"};
const std::set<std::string> kStepKeys = {"title", "body", "params", "action", "notes", "predict", "show"};
const std::set<std::string> kActions = {"", "run", "animate", "sweep"};
const std::vector<std::string> kPresenterPanels = {"canvas", "timing"};
// `order` is kept as an int; anything this far out only sorts first or last anyway.
constexpr int64_t kOrderLimit = 1000000;

class Collector {
public:
    explicit Collector(std::string file) : file_(std::move(file)) {}
    void add(const toml::source_region& where, std::string message) {
        errors_.push_back({file_, static_cast<int>(where.begin.line), static_cast<int>(where.begin.column),
                           std::move(message)});
    }
    void add_file(std::string message) { errors_.push_back({file_, 0, 0, std::move(message)}); }
    const std::string& file() const { return file_; }
    std::vector<LessonError>& errors() { return errors_; }

private:
    std::string file_;
    std::vector<LessonError> errors_;
};

std::string type_name(const toml::node& n) {
    switch (n.type()) {
        case toml::node_type::string: return "a string";
        case toml::node_type::integer: return "an integer";
        case toml::node_type::floating_point: return "a number";
        case toml::node_type::boolean: return "true/false";
        case toml::node_type::table: return "a table";
        case toml::node_type::array: return "an array";
        default: return "a date/time";
    }
}

// The longest text each key may hold (bytes of UTF-8), as much as the window can lay out: a heading
// on one or two lines, a body of a few screens. Beyond them Dear ImGui's draw list overflows its
// 16-bit vertex indices and the app aborts ("Too many vertices in ImDrawList", issue 31 item 5),
// so a file that passes `lessons --check` must stay within them. The built-in lessons use at most a
// fifth of each.
std::size_t max_text_bytes(const char* key) {
    const std::string k = key;
    if (k == "title") return 200;
    if (k == "summary" || k == "question") return 600;
    if (k == "body" || k == "notes") return 8000;
    return 200;  // ids, workloads, actions, choices, reveals
}

// Reads an optional string key; a non-string, or one longer than the window can show, is an error
// with the key's line.
std::string get_string(const toml::table& t, const char* key, Collector& c, bool required,
                       const toml::source_region& owner) {
    const toml::node* n = t.get(key);
    if (!n) {
        if (required) c.add(owner, std::string("missing required key '") + key + "'");
        return "";
    }
    if (auto s = n->value<std::string>(); s && n->is_string()) {
        if (s->size() > max_text_bytes(key)) {
            c.add(n->source(), std::string("'") + key + "' is " + std::to_string(s->size()) + " characters long; at most " +
                                   std::to_string(max_text_bytes(key)) + " fit on the screen");
            return "";
        }
        return *s;
    }
    c.add(n->source(), std::string("'") + key + "' must be a string, not " + type_name(*n));
    return "";
}

// `show = ["canvas", "timing"]`: a non-empty array of known panel names, each at most once.
void parse_show(const toml::node& n, LessonStep& step, Collector& c) {
    std::string names;
    for (const auto& name : kPresenterPanels) names += (names.empty() ? "" : ", ") + name;
    const toml::array* arr = n.as_array();
    if (!arr || arr->empty()) {
        c.add(n.source(), "'show' must be a non-empty array of panel names (" + names + "), e.g. show = [\"timing\"]");
        return;
    }
    for (const toml::node& item : *arr) {
        const auto name = item.value<std::string>();
        if (!item.is_string() || !name) {
            c.add(item.source(), "each entry of 'show' must be a string, not " + type_name(item));
        } else if (std::find(kPresenterPanels.begin(), kPresenterPanels.end(), *name) == kPresenterPanels.end()) {
            c.add(item.source(), "unknown panel \"" + *name + "\" in 'show' (expected one of: " + names + ")");
        } else if (std::find(step.show.begin(), step.show.end(), *name) != step.show.end()) {
            c.add(item.source(), "panel \"" + *name + "\" is listed twice in 'show'");
        } else {
            step.show.push_back(*name);
        }
    }
}

void check_unknown_keys(const toml::table& t, const std::set<std::string>& allowed, const std::string& where,
                        Collector& c) {
    for (auto&& [k, v] : t) {
        if (!allowed.count(std::string(k.str()))) {
            std::string list;
            for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
            c.add(k.source().begin.line ? k.source() : v.source(),
                  "unknown key '" + std::string(k.str()) + "' in " + where + " (expected one of: " + list + ")");
        }
    }
}

void parse_params(const toml::table& params, const std::string& workload, LessonStep& step, Collector& c) {
    const std::vector<ParamSpec>* specs = workload_params(workload);
    for (auto&& [k, v] : params) {
        const std::string key(k.str());
        const toml::source_region& where = k.source().begin.line ? k.source() : v.source();
        const ParamSpec* spec = nullptr;
        if (specs) {
            for (const auto& s : *specs) {
                if (s.name == key) spec = &s;
            }
        }
        if (!spec) {
            std::string list;
            if (specs) {
                for (const auto& s : *specs) list += (list.empty() ? "" : ", ") + s.name;
            }
            c.add(where, "unknown parameter '" + key + "' for workload '" + workload + "'" +
                             (list.empty() ? std::string(" (this workload takes no parameters yet)")
                                           : " (expected one of: " + list + ")"));
            continue;
        }
        switch (spec->type) {
            case ParamSpec::Type::Bool:
                if (!v.is_boolean()) {
                    c.add(where, "parameter '" + key + "' must be true/false, not " + type_name(v));
                    continue;
                }
                step.params[key] = *v.value<bool>();
                break;
            case ParamSpec::Type::Int: {
                if (!v.is_integer()) {
                    c.add(where, "parameter '" + key + "' must be an integer, not " + type_name(v));
                    continue;
                }
                int64_t x = *v.value<int64_t>();
                if (spec->min != spec->max && (x < spec->min || x > spec->max)) {
                    std::ostringstream m;
                    m << "parameter '" << key << "' = " << x << " is out of range [" << int64_t(spec->min) << ", "
                      << int64_t(spec->max) << "]";
                    c.add(where, m.str());
                    continue;
                }
                step.params[key] = x;
                break;
            }
            case ParamSpec::Type::Float: {
                if (!v.is_number()) {
                    c.add(where, "parameter '" + key + "' must be a number, not " + type_name(v));
                    continue;
                }
                double x = *v.value<double>();
                if (spec->min != spec->max && (x < spec->min || x > spec->max)) {
                    std::ostringstream m;
                    m << "parameter '" << key << "' = " << x << " is out of range [" << spec->min << ", " << spec->max
                      << "]";
                    c.add(where, m.str());
                    continue;
                }
                step.params[key] = x;
                break;
            }
            case ParamSpec::Type::String: {
                if (!v.is_string()) {
                    c.add(where, "parameter '" + key + "' must be a string, not " + type_name(v));
                    continue;
                }
                std::string s = *v.value<std::string>();
                if (!spec->choices.empty() &&
                    std::find(spec->choices.begin(), spec->choices.end(), s) == spec->choices.end()) {
                    std::string list;
                    for (const auto& ch : spec->choices) list += (list.empty() ? "" : ", ") + ch;
                    c.add(where, "parameter '" + key + "' = \"" + s + "\" is not one of: " + list);
                    continue;
                }
                if (key == "image" && !s.empty()) {
                    // Read from the lesson file's folder, so a folder of lessons and their pictures works
                    // wherever it is copied and whatever folder gpulab starts in.
                    std::filesystem::path picture(s);
                    if (picture.is_relative()) picture = std::filesystem::path(c.file()).parent_path() / picture;
                    std::error_code ec;
                    if (!std::filesystem::is_regular_file(picture, ec)) {
                        c.add(where, "parameter 'image' = \"" + s + "\": no such picture file (looked for " +
                                         picture.lexically_normal().string() +
                                         "; a relative path is read from the lesson file's folder)");
                        continue;
                    }
                    s = picture.lexically_normal().string();
                }
                step.params[key] = s;
                break;
            }
        }
    }
}

// `reveal` names the live result that answers a predict prompt, and each workload's view knows
// its own: catching a typo here beats a prompt that silently never reveals in front of a class.
std::string check_reveal(const std::string& workload, const std::string& reveal, const std::vector<std::string>& choices) {
    if (reveal.empty()) return "";
    auto starts = [&](const char* prefix) { return reveal.rfind(prefix, 0) == 0; };
    if (workload == "latency") {
        const std::string size = starts("faster-at:") ? reveal.substr(10) : "";
        char* end = nullptr;
        const double n = size.empty() ? 0.0 : std::strtod(size.c_str(), &end);
        if (n >= 1.0 && end && *end == '\0') return "";
        return "reveal \"" + reveal + "\" is not one the latency lesson knows (expected faster-at:<elements>, "
               "e.g. faster-at:1000)";
    }
    if (workload == "simd-mimd") {
        const auto spec = std::find_if(kSimdMimdParams.begin(), kSimdMimdParams.end(),
                                       [](const ParamSpec& p) { return p.name == "pattern"; });
        const std::vector<std::string>& patterns = spec->choices;
        const std::string pattern = starts("divergence:") ? reveal.substr(11) : "";
        if (std::find(patterns.begin(), patterns.end(), pattern) != patterns.end()) return "";
        std::string list;
        for (const auto& p : patterns) list += (list.empty() ? "" : ", ") + p;
        return "reveal \"" + reveal + "\" is not one the SIMD-vs-MIMD lesson knows (expected divergence:<pattern>, "
               "pattern one of: " + list + ")";
    }
    if (workload == "conv2d") {
        if (reveal == "independent-outputs") return "";
        return "reveal \"" + reveal + "\" is not one the convolution lesson knows (expected independent-outputs)";
    }
    if (workload == "train") {
        if (reveal == "epoch-speedup") return "";
        return "reveal \"" + reveal + "\" is not one the training lesson knows (expected epoch-speedup)";
    }
    if (workload == "tensor" && starts("updates-lost")) {
        // updates-lost:bf16-pure (the BF16-weight lane of "Training in BF16"), every choice a band of percent.
        if (reveal != "updates-lost:bf16-pure")
            return "reveal \"" + reveal + "\" names no lane that loses updates (updates-lost:bf16-pure)";
        for (const std::string& choice : choices) {
            double lo = 0, hi = 0;
            if (!choice_percent_band(choice, lo, hi))
                return "choice \"" + choice + "\" names no band of percent for " + reveal +
                       " (write \"less than 10 %\", \"10 to 50 %\" or \"more than 50 %\")";
        }
        return "";
    }
    if (workload == "tensor" && starts("gradients-thinned:")) {
        // gradients-thinned:<fp16|bf16>, every choice a band of percent (choice_percent_band).
        const std::string f = reveal.substr(18);
        if (f != "fp16" && f != "bf16")
            return "reveal \"" + reveal + "\" names no format the gradients panel casts to (gradients-thinned:fp16 or :bf16)";
        for (const std::string& choice : choices) {
            double lo = 0, hi = 0;
            if (!choice_percent_band(choice, lo, hi))
                return "choice \"" + choice + "\" names no band of percent for " + reveal +
                       " (write \"less than 1 %\", \"1 to 10 %\" or \"more than 10 %\")";
        }
        return "";
    }
    if (workload == "tensor") {
        // most-error:<fp32|narrow>:<K>, K a power of two the sweep can reach (16 .. 2^20).
        const std::string rest = starts("most-error:") ? reveal.substr(11) : "";
        const std::size_t colon = rest.find(':');
        const std::string acc = colon == std::string::npos ? "" : rest.substr(0, colon);
        const std::string k = colon == std::string::npos ? "" : rest.substr(colon + 1);
        char* end = nullptr;
        const long long kv = k.empty() ? 0 : std::strtoll(k.c_str(), &end, 10);
        if ((acc == "fp32" || acc == "narrow") && end && *end == '\0' && kv >= 16 && kv <= (1ll << 20) &&
            (kv & (kv - 1)) == 0)
            return "";
        return "reveal \"" + reveal + "\" is not one the tensor-core lesson knows (expected "
               "most-error:<fp32|narrow>:<K>, K a power of two from 16 to 1048576, e.g. most-error:narrow:4096)";
    }
    return "the " + workload + " workload has no live answer to reveal: leave 'reveal' out";
}

// Checks that need more than one parameter, on what a step sees: its own params over those of
// the steps before it (a step keeps earlier settings). Only a step that sets one of the keys
// involved is blamed, so one mistake gives one message. Returns the key to point at and why.
std::pair<std::string, std::string> check_param_combination(const std::string& workload,
                                                            const std::map<std::string, ParamValue>& seen,
                                                            const std::map<std::string, ParamValue>& own) {
    if (workload == "latency" && seen.count("min_exp") && seen.count("max_exp") &&
        (own.count("min_exp") || own.count("max_exp"))) {
        const int64_t lo = param_int(seen, "min_exp", 0), hi = param_int(seen, "max_exp", 0);
        if (lo > hi) {
            return {own.count("max_exp") ? "max_exp" : "min_exp",
                    "min_exp = " + std::to_string(lo) + " is larger than max_exp = " + std::to_string(hi) +
                        " (the sweep would be empty)"};
        }
    }
    if (workload == "tensor" && own.count("max_k")) {
        const int64_t k = param_int(own, "max_k", 256);
        if ((k & (k - 1)) != 0)
            return {"max_k", "parameter 'max_k' = " + std::to_string(k) +
                                 " must be a power of two (256, 512, ..., 1048576): the sweep doubles K each time"};
    }
    if (workload == "conv2d" && own.count("kernel") && param_int(own, "kernel", 1) % 2 == 0) {
        return {"kernel", "parameter 'kernel' = " + std::to_string(param_int(own, "kernel", 1)) +
                              " must be odd (1, 3, 5 or 7), so the filter has a centre pixel"};
    }
    return {};
}

LessonLoad build_lesson(const toml::table& root, const std::string& source, Collector& c) {
    toml::source_region top;
    top.begin = {1, 1};
    check_unknown_keys(root, kLessonKeys, "the lesson", c);

    Lesson lesson;
    lesson.source = source;
    lesson.id = get_string(root, "id", c, true, top);
    lesson.title = get_string(root, "title", c, true, top);
    if (const toml::node* t = root.get("title"); t && t->is_string() && lesson.title.empty())
        c.add(t->source(), "'title' must not be empty: the lesson list and the window show it");
    lesson.summary = get_string(root, "summary", c, false, top);
    lesson.workload = get_string(root, "workload", c, true, top);

    if (!lesson.id.empty()) {
        lesson.id_line = static_cast<int>(root.get("id")->source().begin.line);
        bool ok = std::all_of(lesson.id.begin(), lesson.id.end(),
                              [](char ch) { return (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '-'; });
        if (!ok) c.add(root.get("id")->source(), "id '" + lesson.id + "' may use only a-z, 0-9 and '-'");
        fs::path p(source);
        if (p.extension() == ".toml" && p.stem().string() != lesson.id) {
            c.add(root.get("id")->source(),
                  "id '" + lesson.id + "' does not match the file name (expected " + lesson.id + ".toml)");
        }
    }
    if (!lesson.workload.empty()) {
        auto known = known_workloads();
        if (std::find(known.begin(), known.end(), lesson.workload) == known.end()) {
            std::string list;
            for (const auto& w : known) list += (list.empty() ? "" : ", ") + w;
            c.add(root.get("workload")->source(), "unknown workload '" + lesson.workload + "' (expected one of: " + list + ")");
        }
    }
    if (const toml::node* n = root.get("order")) {
        if (!n->is_integer()) {
            c.add(n->source(), "'order' must be an integer, not " + type_name(*n));
        } else if (const int64_t order = *n->value<int64_t>(); order < -kOrderLimit || order > kOrderLimit) {
            c.add(n->source(), "'order' = " + std::to_string(order) + " is out of range [" +
                                   std::to_string(-kOrderLimit) + ", " + std::to_string(kOrderLimit) + "]");
        } else {
            lesson.order = static_cast<int>(order);
        }
    }
    const std::string status = get_string(root, "status", c, false, top);
    if (status == "coming") lesson.coming = true;
    else if (!status.empty() && status != "ready") c.add(root.get("status")->source(), "'status' must be \"ready\" or \"coming\", not \"" + status + "\"");

    const toml::node* steps = root.get("steps");
    if (!steps) {
        c.add(top, "missing required [[steps]]: a lesson needs at least one step");
    } else if (!steps->is_array_of_tables()) {
        c.add(steps->source(), "'steps' must be written as [[steps]] tables");
    } else {
        const toml::array& arr = *steps->as_array();
        if (arr.empty()) c.add(steps->source(), "a lesson needs at least one step");
        std::map<std::string, ParamValue> seen;  // the parameters in force, step after step
        for (const toml::node& sn : arr) {
            const toml::table& st = *sn.as_table();
            const std::string where = "[[steps]] #" + std::to_string(lesson.steps.size() + 1);
            check_unknown_keys(st, kStepKeys, where, c);
            LessonStep step;
            step.title = get_string(st, "title", c, true, st.source());
            if (const toml::node* t = st.get("title"); t && t->is_string() && step.title.empty())
                c.add(t->source(), "'title' of " + where + " must not be empty: it is the step's heading");
            step.body = get_string(st, "body", c, true, st.source());
            step.notes = get_string(st, "notes", c, false, st.source());
            step.action = get_string(st, "action", c, false, st.source());
            if (!kActions.count(step.action)) {
                c.add(st.get("action")->source(), "action \"" + step.action + "\" is not one of: run, animate, sweep");
            }
            if (const toml::node* pr = st.get("predict")) {
                if (!pr->is_table()) {
                    c.add(pr->source(), "'predict' must be a table ([steps.predict])");
                } else {
                    const toml::table& pt = *pr->as_table();
                    check_unknown_keys(pt, kPredictKeys, where + " predict", c);
                    PredictPrompt prompt;
                    prompt.question = get_string(pt, "question", c, true, pt.source());
                    prompt.reveal = get_string(pt, "reveal", c, false, pt.source());
                    if (const toml::node* ch = pt.get("choices")) {
                        const toml::array* arr = ch->as_array();
                        if (!arr || arr->empty()) {
                            c.add(ch->source(), "'choices' must be a non-empty array of strings");
                        } else {
                            for (const toml::node& item : *arr) {
                                if (!item.is_string()) c.add(item.source(), "each choice must be a string, not " + type_name(item));
                                else if (item.value<std::string>()->size() > 200)
                                    c.add(item.source(), "a choice is a button: at most 200 characters");
                                else prompt.choices.push_back(*item.value<std::string>());
                            }
                        }
                    }
                    // After the choices: a reveal may say how its choices must read.
                    if (const std::string why = check_reveal(lesson.workload, prompt.reveal, prompt.choices);
                        !why.empty() && !lesson.workload.empty() && workload_params(lesson.workload)) {
                        c.add(pt.get("reveal")->source(), why);
                    }
                    step.predict = std::move(prompt);
                }
            }
            if (const toml::node* sh = st.get("show")) parse_show(*sh, step, c);
            if (const toml::node* p = st.get("params")) {
                if (!p->is_table()) c.add(p->source(), "'params' must be a table ([steps.params])");
                else parse_params(*p->as_table(), lesson.workload, step, c);
                for (const auto& [key, value] : step.params) seen[key] = value;
                const auto [key, why] = check_param_combination(lesson.workload, seen, step.params);
                if (!why.empty()) c.add(p->as_table()->get(key)->source(), why);
            }
            lesson.steps.push_back(std::move(step));
        }
    }
    LessonLoad out;
    out.errors = std::move(c.errors());
    // toml++ walks tables in key order, not file order; an author fixes a file top to bottom.
    std::stable_sort(out.errors.begin(), out.errors.end(), [](const LessonError& a, const LessonError& b) {
        return a.line != b.line ? a.line < b.line : a.column < b.column;
    });
    if (out.errors.empty()) out.lesson = std::move(lesson);
    return out;
}

// [SECTION] refusing what would crash toml++
// toml++ 3.3 builds a dotted key or table header ("[a.b.c]") by recursion, one stack frame per
// part, with no limit: a header of ~50,000 parts overflows the stack and kills the app at start-up
// (issue 16). Lessons use two or three parts, so the text is scanned first and a key of more than
// kMaxKeyParts parts is refused with its line. The scan follows TOML's strings and comments so that
// dots in lesson text never count; outside them, a run of key characters, dots, blanks and quoted
// parts is one key, ended by anything else ("=", "]", ",", a newline), so numbers in arrays never
// add up either.
constexpr int kMaxKeyParts = 64;

struct DeepKey {
    int parts = 0;
    int line = 0;
};

DeepKey deepest_key(std::string_view text) {
    DeepKey worst;
    int line = 1, dots = 0;
    const auto is_key_char = [](char c) {
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
               c == ' ' || c == '\t';
    };
    const auto triple = [&](std::size_t i, char q) {
        return i + 2 < text.size() && text[i] == q && text[i + 1] == q && text[i + 2] == q;
    };
    std::size_t i = 0;
    while (i < text.size()) {
        const char c = text[i];
        if (c == '"' || c == '\'') {
            const bool multi = triple(i, c);
            const bool escapes = c == '"';
            i += multi ? 3 : 1;
            while (i < text.size()) {
                if (escapes && text[i] == '\\') {
                    if (i + 1 < text.size() && text[i + 1] == '\n') ++line;
                    i += 2;
                    continue;
                }
                if (text[i] == '\n') {
                    ++line;
                    if (!multi) break;  // an unterminated string: toml++ reports it
                }
                if (multi && triple(i, c)) {
                    std::size_t q = i;
                    while (q < text.size() && text[q] == c && q - i < 5) ++q;  // """" ends with the last three
                    i = q;
                    break;
                }
                if (!multi && text[i] == c) {
                    ++i;
                    break;
                }
                ++i;
            }
            continue;
        }
        if (c == '#') {
            while (i < text.size() && text[i] != '\n') ++i;
            continue;
        }
        if (c == '.') {
            if (++dots + 1 > worst.parts) worst = {dots + 1, line};
        } else if (!is_key_char(c)) {
            dots = 0;
            if (c == '\n') ++line;
        }
        ++i;
    }
    return worst;
}

}  // namespace

bool LessonStep::shows(std::string_view panel) const {
    return show.empty() || std::find(show.begin(), show.end(), panel) != show.end();
}

const std::vector<std::string>& presenter_panel_names() { return kPresenterPanels; }

std::string LessonError::to_string() const {
    std::string s = file;
    if (line > 0) s += ":" + std::to_string(line);
    return s + ": " + message;
}

const std::vector<ParamSpec>* workload_params(std::string_view workload) {
    if (workload == "activation") return &kActivationParams;
    if (workload == "latency") return &kLatencyParams;
    if (workload == "simd-mimd") return &kSimdMimdParams;
    if (workload == "conv2d") return &kConv2dParams;
    if (workload == "train") return &kTrainParams;
    if (workload == "puzzles") return &kPuzzleParams;
    if (workload == "tensor") return &kTensorParams;
    return nullptr;
}

std::vector<std::string> known_workloads() {
    return {"activation", "conv2d", "simd-mimd", "latency", "train", "puzzles", "tensor"};
}

LessonLoad parse_lesson_text(std::string_view text, const std::string& source_name) {
    Collector c(source_name);
    if (const DeepKey deep = deepest_key(text); deep.parts > kMaxKeyParts) {
        c.add_file("");
        c.errors().back() = {source_name, deep.line, 1,
                             "a key or table header of " + std::to_string(deep.parts) +
                                 " dotted parts (lesson files use a few; more than " + std::to_string(kMaxKeyParts) +
                                 " is refused): not a lesson file"};
        return {std::nullopt, std::move(c.errors())};
    }
    try {
        toml::table root = toml::parse(text, source_name);
        return build_lesson(root, source_name, c);
    } catch (const toml::parse_error& e) {
        c.add(e.source(), std::string(e.description()));
        return {std::nullopt, std::move(c.errors())};
    }
}

LessonLoad parse_lesson_file(const std::string& path) {
    std::error_code ec;
    if (fs::is_directory(path, ec)) {
        return {std::nullopt, {{path, 0, 0, "is a folder, not a lesson file (check its files: " +
                                                (fs::path(path) / "*.toml").string() + ")"}}};
    }
    // Regular files only, at most 1 MiB: a FIFO named x.toml would block and a symlink to
    // /dev/zero would grow without end (issue 16).
    std::string text;
    try {
        text = read_input_file(path, kMaxLessonFileBytes, "lesson file");
    } catch (const InputError& e) {
        std::string message = e.what();
        if (message.rfind(path + ": ", 0) == 0) message.erase(0, path.size() + 2);
        return {std::nullopt, {{path, 0, 0, message}}};
    }
    return parse_lesson_text(text, path);
}

const Lesson* LessonCatalog::find(std::string_view id) const {
    for (const auto& l : lessons) {
        if (l.id == id) return &l;
    }
    return nullptr;
}

LessonCatalog load_lessons(const std::vector<std::string>& directories) {
    LessonCatalog cat;
    for (const auto& dir : directories) {
        std::error_code ec;
        if (!fs::is_directory(dir, ec)) {
            cat.errors.push_back({dir, 0, 0, "lesson folder not found"});
            continue;
        }
        std::vector<fs::path> files;
        for (const auto& e : fs::directory_iterator(dir, ec)) {
            if (e.path().extension() == ".toml") files.push_back(e.path());
        }
        // An unreadable folder (no read permission) would otherwise look like an empty one.
        if (ec) {
            cat.errors.push_back({dir, 0, 0, "cannot read lesson folder: " + ec.message()});
            continue;
        }
        std::sort(files.begin(), files.end());
        for (const auto& file : files) {
            LessonLoad load = parse_lesson_file(file.string());
            for (auto& err : load.errors) cat.errors.push_back(std::move(err));
            if (!load.lesson) continue;
            if (const Lesson* dup = cat.find(load.lesson->id)) {
                cat.errors.push_back({file.string(), load.lesson->id_line, 1, "lesson id '" + load.lesson->id + "' is already used by " + dup->source});
                continue;
            }
            cat.lessons.push_back(std::move(*load.lesson));
        }
    }
    std::stable_sort(cat.lessons.begin(), cat.lessons.end(), [](const Lesson& a, const Lesson& b) {
        return a.order != b.order ? a.order < b.order : a.id < b.id;
    });
    return cat;
}

int64_t param_int(const std::map<std::string, ParamValue>& p, const std::string& key, int64_t fallback) {
    auto it = p.find(key);
    if (it == p.end()) return fallback;
    if (auto v = std::get_if<int64_t>(&it->second)) return *v;
    if (auto v = std::get_if<double>(&it->second)) return static_cast<int64_t>(*v);
    return fallback;
}

double param_float(const std::map<std::string, ParamValue>& p, const std::string& key, double fallback) {
    auto it = p.find(key);
    if (it == p.end()) return fallback;
    if (auto v = std::get_if<double>(&it->second)) return *v;
    if (auto v = std::get_if<int64_t>(&it->second)) return static_cast<double>(*v);
    return fallback;
}

std::string param_string(const std::map<std::string, ParamValue>& p, const std::string& key, std::string fallback) {
    auto it = p.find(key);
    if (it == p.end()) return fallback;
    if (auto v = std::get_if<std::string>(&it->second)) return *v;
    return fallback;
}

bool choice_percent_band(const std::string& choice, double& lo, double& hi) {
    double a = 0, b = 0;
    char tail[8] = {};
    if (std::sscanf(choice.c_str(), "less than %lf %7s", &a, tail) == 2 && std::string(tail) == "%") {
        lo = 0;
        hi = a;
        return a > 0 && a <= 100;
    }
    if (std::sscanf(choice.c_str(), "more than %lf %7s", &a, tail) == 2 && std::string(tail) == "%") {
        lo = a;
        hi = 100.0 + 1e-9;
        return a >= 0 && a < 100;
    }
    if (std::sscanf(choice.c_str(), "%lf to %lf %7s", &a, &b, tail) == 3 && std::string(tail) == "%") {
        lo = a;
        hi = b;
        return a >= 0 && b > a && b <= 100;
    }
    return false;
}

std::map<std::string, ParamValue> step_settings(const Lesson& lesson, int index) {
    std::map<std::string, ParamValue> settings;
    if (lesson.steps.empty()) return settings;
    const auto last = static_cast<std::size_t>(std::clamp(index, 0, static_cast<int>(lesson.steps.size()) - 1));
    for (std::size_t i = 0; i <= last; ++i)
        for (const auto& [key, value] : lesson.steps[i].params) settings[key] = value;
    for (std::size_t i = last + 1; i < lesson.steps.size(); ++i)
        for (const auto& [key, value] : lesson.steps[i].params) settings.emplace(key, value);  // first value only
    return settings;
}

bool param_bool(const std::map<std::string, ParamValue>& p, const std::string& key, bool fallback) {
    auto it = p.find(key);
    if (it == p.end()) return fallback;
    if (auto v = std::get_if<bool>(&it->second)) return *v;
    return fallback;
}

}  // namespace gpulab::core
