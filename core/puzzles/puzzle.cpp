#include "puzzle.h"

#include <toml++/toml.h>

#include <algorithm>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

namespace gpulab::puzzles {

namespace fs = std::filesystem;

namespace {

// Sizes a case may ask for: puzzles are small on purpose (the simulator checks every access), and
// an absurd size in a puzzle file must be a sentence, not an allocation of the machine's memory.
constexpr int64_t kMaxElements = int64_t{1} << 24;

const std::set<std::string> kTopKeys = {"id", "title", "order", "statement", "teaches", "picture", "kernel",
                                        "params", "block", "grid", "tolerance", "limit_divergence", "buffers",
                                        "cases"};
const std::set<std::string> kPictures = {"map", "grid2d", "blocks", "reduce", "scan", "stencil", "matmul", "pool",
                                         "divergence"};

struct Errors {
    std::string file;
    std::vector<std::string>* out;
    bool any = false;
    void add(const toml::source_region& where, const std::string& message) {
        out->push_back(file + ":" + std::to_string(where.begin.line) + ": " + message);
        any = true;
    }
    void add_file(const std::string& message) {
        out->push_back(file + ": " + message);
        any = true;
    }
};

std::string read_text(const fs::path& p, bool& ok) {
    std::ifstream in(p, std::ios::binary);
    ok = static_cast<bool>(in);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

std::string str(const toml::table& t, const char* key, Errors& e, bool required) {
    const toml::node* n = t.get(key);
    if (n == nullptr) {
        if (required) e.add(t.source(), std::string("missing required key '") + key + "'");
        return "";
    }
    if (!n->is_string()) {
        e.add(n->source(), std::string("'") + key + "' must be a string");
        return "";
    }
    // As for lesson files (core/lesson/lesson.cpp): no longer than the window can draw.
    const std::size_t limit = std::string(key) == "statement" ? 8000 : 200;
    if (n->value<std::string>()->size() > limit) {
        e.add(n->source(), std::string("'") + key + "' is " + std::to_string(n->value<std::string>()->size()) +
                               " characters long; at most " + std::to_string(limit) + " fit on the screen");
        return "";
    }
    return *n->value<std::string>();
}

// "const float* a" -> type "const float*", name "a". Types a puzzle's host side can fill.
bool parse_param(const std::string& text, Param& p, std::string& why) {
    static const std::regex re(R"(^\s*(const\s+)?(float|int)\s*(\*)?\s*([A-Za-z_][A-Za-z0-9_]*)\s*$)");
    std::smatch m;
    if (!std::regex_match(text, m, re)) {
        why = "parameter \"" + text + "\" is not one of: const float* x, float* x, const int* x, int* x, int x, float x";
        return false;
    }
    p.is_const = m[1].matched;
    p.elem = m[2] == "float" ? ElemType::F32 : ElemType::I32;
    p.pointer = m[3].matched;
    p.name = m[4];
    if (p.is_const && !p.pointer) {
        why = "parameter \"" + text + "\": write a scalar without const";
        return false;
    }
    p.type = std::string(p.is_const ? "const " : "") + (p.elem == ElemType::F32 ? "float" : "int") + (p.pointer ? "*" : "");
    return true;
}

std::vector<std::string> dims(const toml::table& t, const char* key, Errors& e) {
    std::vector<std::string> out;
    const toml::node* n = t.get(key);
    if (n == nullptr) {
        e.add(t.source(), std::string("missing required key '") + key + "' (an array of 1-3 expressions)");
        return out;
    }
    const toml::array* a = n->as_array();
    if (a == nullptr || a->empty() || a->size() > 3) {
        e.add(n->source(), std::string("'") + key + "' must be an array of 1-3 expressions, e.g. [\"(n + 255) / 256\"]");
        return out;
    }
    for (const toml::node& d : *a) {
        if (d.is_integer()) out.push_back(std::to_string(*d.value<int64_t>()));
        else if (d.is_string()) out.push_back(*d.value<std::string>());
        else e.add(d.source(), std::string("each entry of '") + key + "' must be an integer or an expression string");
    }
    return out;
}

Fill parse_fill(const std::string& s, bool& ok) {
    ok = true;
    if (s == "none") return Fill::None;
    if (s == "zeros") return Fill::Zeros;
    if (s == "random") return Fill::Random;
    if (s == "ramp") return Fill::Ramp;
    if (s == "random-int") return Fill::RandomInt;
    ok = false;
    return Fill::None;
}

void load_one(const fs::path& folder, PuzzleLoad& load) {
    const fs::path file = folder / "puzzle.toml";
    Errors e{file.string(), &load.errors};
    toml::table t;
    try {
        t = toml::parse_file(file.string());
    } catch (const toml::parse_error& err) {
        load.errors.push_back(file.string() + ":" + std::to_string(err.source().begin.line) + ": " +
                              std::string(err.description()));
        return;
    }
    for (auto&& [k, v] : t) {
        if (!kTopKeys.count(std::string(k.str()))) {
            std::string list;
            for (const auto& a : kTopKeys) list += (list.empty() ? "" : ", ") + a;
            e.add(v.source(), "unknown key '" + std::string(k.str()) + "' (expected one of: " + list + ")");
        }
    }
    Puzzle p;
    p.folder = folder;
    p.id = str(t, "id", e, true);
    if (!p.id.empty() && p.id != folder.filename().string()) {
        e.add(t.get("id")->source(), "id \"" + p.id + "\" must equal the folder's name \"" + folder.filename().string() + "\"");
    }
    if (!p.id.empty() && !std::regex_match(p.id, std::regex("[a-z0-9-]+"))) {
        e.add(t.get("id")->source(), "id \"" + p.id + "\" may hold only a-z, 0-9 and -");
    }
    p.title = str(t, "title", e, true);
    p.statement = str(t, "statement", e, true);
    p.teaches = str(t, "teaches", e, false);
    p.picture = str(t, "picture", e, false);
    if (p.picture.empty()) p.picture = "map";
    if (!kPictures.count(p.picture)) {
        std::string list;
        for (const auto& a : kPictures) list += (list.empty() ? "" : ", ") + a;
        e.add(t.get("picture")->source(), "unknown picture \"" + p.picture + "\" (expected one of: " + list + ")");
    }
    p.kernel = str(t, "kernel", e, true);
    if (!p.kernel.empty() && !std::regex_match(p.kernel, std::regex("[A-Za-z_][A-Za-z0-9_]*"))) {
        e.add(t.get("kernel")->source(), "kernel \"" + p.kernel + "\" is not a C++ name");
    }
    if (const toml::node* n = t.get("order")) {
        if (!n->is_integer() || std::llabs(*n->value<int64_t>()) > 1000000) e.add(n->source(), "'order' must be an integer from -1000000 to 1000000");
        else p.order = static_cast<int>(*n->value<int64_t>());
    }
    if (const toml::node* n = t.get("tolerance")) {
        const auto v = n->value<double>();
        if (!v || !(*v >= 0.0 && *v <= 1.0)) e.add(n->source(), "'tolerance' must be a number from 0 to 1");
        else p.tolerance = *v;
    }
    if (const toml::node* n = t.get("limit_divergence")) {
        if (!n->is_boolean()) e.add(n->source(), "'limit_divergence' must be true or false");
        else p.limit_divergence = *n->value<bool>();
    }
    if (const toml::array* a = t.get_as<toml::array>("params")) {
        for (const toml::node& n : *a) {
            Param param;
            std::string why;
            if (!n.is_string()) e.add(n.source(), "each entry of 'params' must be a string such as \"const float* a\"");
            else if (!parse_param(*n.value<std::string>(), param, why)) e.add(n.source(), why);
            else p.params.push_back(param);
        }
    } else {
        e.add(t.source(), "missing required key 'params' (the kernel's parameters, e.g. [\"const float* a\", \"float* out\", \"int n\"])");
    }
    p.block = dims(t, "block", e);
    p.grid = dims(t, "grid", e);
    // Buffers: one table per pointer parameter.
    const toml::table* buffers = t.get_as<toml::table>("buffers");
    for (const Param& param : p.params) {
        if (!param.pointer) continue;
        const toml::table* b = buffers != nullptr ? buffers->get_as<toml::table>(param.name) : nullptr;
        if (b == nullptr) {
            e.add(t.source(), "pointer parameter '" + param.name + "' needs a [buffers." + param.name + "] table (count, fill)");
            continue;
        }
        BufferSpec spec;
        spec.name = param.name;
        spec.count = str(*b, "count", e, true);
        bool ok = true;
        const std::string fill = str(*b, "fill", e, false);
        spec.fill = parse_fill(fill.empty() ? (param.is_const ? "random" : "none") : fill, ok);
        if (!ok) e.add(b->source(), "fill \"" + fill + "\" is not one of none, zeros, random, random-int, ramp");
        spec.output = !param.is_const;
        if (const toml::node* o = b->get("output")) {
            if (!o->is_boolean()) e.add(o->source(), "'output' must be true or false");
            else spec.output = *o->value<bool>();
        }
        p.buffers.push_back(spec);
    }
    if (buffers != nullptr) {
        for (auto&& [k, v] : *buffers) {
            const bool known = std::any_of(p.params.begin(), p.params.end(),
                                           [&](const Param& q) { return q.pointer && q.name == k.str(); });
            if (!known) e.add(v.source(), "[buffers." + std::string(k.str()) + "] names no pointer parameter");
        }
    }
    // Cases: at least one, the first visible one is the statement's example.
    if (const toml::array* cases = t.get_as<toml::array>("cases")) {
        for (const toml::node& n : *cases) {
            const toml::table* c = n.as_table();
            if (c == nullptr) {
                e.add(n.source(), "each [[cases]] entry must be a table");
                continue;
            }
            Case k;
            k.name = str(*c, "name", e, true);
            for (auto&& [key, v] : *c) {
                const std::string name(key.str());
                if (name == "name") continue;
                if (name == "visible") {
                    if (!v.is_boolean()) e.add(v.source(), "'visible' must be true or false");
                    else k.visible = *v.value<bool>();
                    continue;
                }
                if (!v.is_integer()) {
                    e.add(v.source(), "case variable '" + name + "' must be an integer");
                    continue;
                }
                k.vars[name] = *v.value<int64_t>();
            }
            // Every expression must evaluate, and sizes must be sane, for every case.
            for (const auto& spec : p.buffers) {
                const ExprResult r = evaluate(spec.count, k.vars);
                if (!r.value) e.add(c->source(), "case \"" + k.name + "\": buffer '" + spec.name + "': " + r.error);
                else if (*r.value < 1 || *r.value > kMaxElements)
                    e.add(c->source(), "case \"" + k.name + "\": buffer '" + spec.name + "' would hold " +
                                           std::to_string(*r.value) + " elements; 1 to " + std::to_string(kMaxElements) + " are allowed");
            }
            for (const auto* list : {&p.block, &p.grid}) {
                for (const std::string& d : *list) {
                    const ExprResult r = evaluate(d, k.vars);
                    if (!r.value) e.add(c->source(), "case \"" + k.name + "\": " + r.error);
                    else if (*r.value < 1 || *r.value > 65535)
                        e.add(c->source(), "case \"" + k.name + "\": launch dimension '" + d + "' is " +
                                               std::to_string(*r.value) + "; 1 to 65535 are allowed");
                }
            }
            for (const Param& param : p.params) {
                if (!param.pointer && !k.vars.count(param.name))
                    e.add(c->source(), "case \"" + k.name + "\" must set '" + param.name + "' (a kernel parameter)");
            }
            p.cases.push_back(k);
        }
    }
    if (p.cases.empty()) e.add(t.source(), "a puzzle needs at least one [[cases]] entry");
    else if (std::none_of(p.cases.begin(), p.cases.end(), [](const Case& c) { return c.visible; })) p.cases.front().visible = true;
    bool ok = true;
    p.skeleton = read_text(folder / "skeleton.cu", ok);
    if (!ok) e.add_file("skeleton.cu is missing beside puzzle.toml");
    p.solution = read_text(folder / "solution.cu", ok);
    if (!ok) e.add_file("solution.cu (the reference solution) is missing beside puzzle.toml");
    std::error_code ec;
    if (fs::is_directory(folder / "wrong", ec)) {
        for (const auto& entry : fs::directory_iterator(folder / "wrong", ec))
            if (entry.path().extension() == ".cu") p.wrong.push_back(entry.path());
        std::sort(p.wrong.begin(), p.wrong.end());
    }
    if (!e.any) load.puzzles.push_back(std::move(p));
}

void sort_puzzles(PuzzleLoad& load) {
    std::sort(load.puzzles.begin(), load.puzzles.end(), [](const Puzzle& a, const Puzzle& b) {
        return a.order != b.order ? a.order < b.order : a.id < b.id;
    });
}

}  // namespace

std::string Puzzle::signature() const {
    std::string s = "__global__ void " + kernel + "(";
    for (std::size_t i = 0; i < params.size(); ++i) s += (i ? ", " : "") + params[i].type + " " + params[i].name;
    return s + ")";
}

PuzzleLoad load_puzzle(const fs::path& folder) {
    PuzzleLoad load;
    std::error_code ec;
    if (!fs::exists(folder / "puzzle.toml", ec)) {
        load.errors.push_back(folder.string() + ": no puzzle.toml in this folder");
        return load;
    }
    load_one(folder, load);
    return load;
}

PuzzleLoad load_puzzles(const fs::path& root) {
    PuzzleLoad load;
    std::error_code ec;
    if (!fs::is_directory(root, ec)) {
        load.errors.push_back(root.string() + ": not a folder of puzzles");
        return load;
    }
    std::vector<fs::path> folders;
    for (const auto& entry : fs::directory_iterator(root, ec))
        if (entry.is_directory() && fs::exists(entry.path() / "puzzle.toml")) folders.push_back(entry.path());
    std::sort(folders.begin(), folders.end());
    std::set<std::string> ids;
    for (const fs::path& f : folders) {
        const std::size_t before = load.puzzles.size();
        load_one(f, load);
        if (load.puzzles.size() > before && !ids.insert(load.puzzles.back().id).second) {
            load.errors.push_back((f / "puzzle.toml").string() + ": id \"" + load.puzzles.back().id + "\" is used twice");
            load.puzzles.pop_back();
        }
    }
    sort_puzzles(load);
    return load;
}

}  // namespace gpulab::puzzles
