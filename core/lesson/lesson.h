// The lesson model: lessons are data files (lessons/<id>.toml) parsed with toml++. A broken file
// gives "file:line: message" errors and never stops the app from loading the other lessons.
// The format is documented in lessons/README.md; tests/test_lesson.cpp covers good and bad files.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace gpulab::core {

using ParamValue = std::variant<bool, int64_t, double, std::string>;

// A predict-then-run question: the student commits to an answer, the step's run reveals the live one.
struct PredictPrompt {
    std::string question;              // "At 1,000 elements, which is faster?"
    std::vector<std::string> choices;  // "CPU", "GPU (counting copies)"
    std::string reveal;                // which live result answers it, e.g. "faster-at:1000" (workload-defined)
};

struct LessonStep {
    std::string title;
    std::string body;                          // small Markdown subset: paragraphs, **bold**, - bullets, `code`
    std::map<std::string, ParamValue> params;  // applied when the step is entered
    std::string action;                        // "", "run", "animate"
    std::string notes;                         // speaker notes (presenter view)
    std::optional<PredictPrompt> predict;
    // What presenter mode puts beside the step text: "canvas" (the lesson's pictures) and/or
    // "timing" (its plots), in the lesson file as show = ["timing"]. Empty: both. Letting a step
    // give the whole projector to the one thing the room should read is the point.
    std::vector<std::string> show;
    bool shows(std::string_view panel) const;
};

// The panel names a step's `show` accepts.
const std::vector<std::string>& presenter_panel_names();

struct Lesson {
    std::string id;        // stable: "elementwise-activations"
    std::string title;
    std::string summary;
    std::string workload;  // "activation", "conv2d", "simd-mimd", "latency"
    bool coming = false;   // listed, but its workload is not built yet
    int order = 100;       // position in the lesson list
    std::vector<LessonStep> steps;
    std::string source;    // the file it came from
    int id_line = 1;       // where `id` is written, for "id already used" messages
};

struct LessonError {
    std::string file;
    int line = 0;  // 1-based; 0 when the problem concerns the whole file
    int column = 0;
    std::string message;
    std::string to_string() const;  // "lessons/x.toml:12: unknown key 'titel' in [[steps]]"
};

struct LessonLoad {
    std::optional<Lesson> lesson;     // set when there were no errors
    std::vector<LessonError> errors;
};

LessonLoad parse_lesson_text(std::string_view text, const std::string& source_name);
LessonLoad parse_lesson_file(const std::string& path);

struct LessonCatalog {
    std::vector<Lesson> lessons;         // sorted by order, then id
    std::vector<LessonError> errors;     // every broken file, each with file:line
    const Lesson* find(std::string_view id) const;
};

// Loads every *.toml in each directory (later directories may add lessons; a duplicate id is an error).
LessonCatalog load_lessons(const std::vector<std::string>& directories);

// Parameters a workload accepts, with their types; the parser refuses anything else.
// Returns nullptr for an unknown workload.
struct ParamSpec {
    std::string name;
    enum class Type { Bool, Int, Float, String } type;
    double min = 0, max = 0;                 // for numbers (inclusive); min == max means no range
    std::vector<std::string> choices;        // for strings; empty means any
    std::string help;
};
const std::vector<ParamSpec>* workload_params(std::string_view workload);
std::vector<std::string> known_workloads();

// The settings step `index` is entered with, from the lesson file alone, whichever step the student
// came from: every setting the steps up to it give, the later one winning, and a setting the file
// gives only in later steps at the first value it gives. Before this, a step inherited whatever the
// last visited step had set (the convolution lesson's step 3 after step 5 measured 1024 x 1024, not
// 512 x 512), so what a step showed depended on the path taken to it. Settings the file never
// gives keep the student's own choice. `index` is clamped to the steps.
std::map<std::string, ParamValue> step_settings(const Lesson& lesson, int index);

// A predict choice that names a band of percent: "less than X %" gives [0, X), "X to Y %" gives
// [X, Y), "more than X %" gives [X, 100]. False for any other text.
bool choice_percent_band(const std::string& choice, double& lo, double& hi);

// Typed access with defaults, for the workload that applies a step.
int64_t param_int(const std::map<std::string, ParamValue>& p, const std::string& key, int64_t fallback);
double param_float(const std::map<std::string, ParamValue>& p, const std::string& key, double fallback);
std::string param_string(const std::map<std::string, ParamValue>& p, const std::string& key, std::string fallback);
bool param_bool(const std::map<std::string, ParamValue>& p, const std::string& key, bool fallback);

}  // namespace gpulab::core
