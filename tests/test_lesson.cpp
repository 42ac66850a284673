// Lesson files: every shipped lesson parses, and broken files are refused with file:line messages.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include "lesson.h"

using namespace gpulab::core;

namespace {
bool any_error_contains(const std::vector<LessonError>& errors, const std::string& needle, int line = -1) {
    for (const auto& e : errors) {
        if (e.to_string().find(needle) != std::string::npos && (line < 0 || e.line == line)) return true;
    }
    return false;
}
std::string all(const std::vector<LessonError>& errors) {
    std::string s;
    for (const auto& e : errors) s += e.to_string() + "\n";
    return s;
}
}  // namespace

TEST_SUITE("lesson") {
    TEST_CASE("the shipped lessons all parse and the four required ones are listed") {
        LessonCatalog cat = load_lessons({std::string(GPULAB_SOURCE_DIR) + "/lessons"});
        INFO(all(cat.errors));
        CHECK(cat.errors.empty());
        for (const char* id : {"elementwise-activations", "conv-sliding-window", "simd-vs-mimd", "latency-vs-throughput"}) {
            CAPTURE(id);
            CHECK(cat.find(id) != nullptr);
        }
        const Lesson* act = cat.find("elementwise-activations");
        REQUIRE(act);
        CHECK_FALSE(act->coming);
        CHECK(act->workload == "activation");
        CHECK(act->steps.size() >= 4);
        CHECK(cat.lessons.front().id == "elementwise-activations");  // order = 1
        CHECK_FALSE(cat.find("simd-vs-mimd")->coming);
        CHECK_FALSE(cat.find("conv-sliding-window")->coming);
    }

    TEST_CASE("step parameters are typed") {
        LessonLoad l = parse_lesson_text(R"(
id = "t"
title = "T"
workload = "activation"
[[steps]]
title = "s"
body = "b"
action = "run"
[steps.params]
activation = "gelu"
elements = 4096
leaky_alpha = 0.2
)", "t.toml");
        INFO(all(l.errors));
        REQUIRE(l.lesson);
        const auto& p = l.lesson->steps[0].params;
        CHECK(param_string(p, "activation", "") == "gelu");
        CHECK(param_int(p, "elements", 0) == 4096);
        CHECK(param_float(p, "leaky_alpha", 0) == doctest::Approx(0.2));
        CHECK(param_int(p, "missing", 7) == 7);
        CHECK(l.lesson->steps[0].action == "run");
    }

    TEST_CASE("a predict prompt parses and a malformed one is refused") {
        LessonLoad good = parse_lesson_text(R"(
id = "p"
title = "P"
workload = "latency"
[[steps]]
title = "s"
body = "b"
action = "sweep"
[steps.predict]
question = "Which is faster?"
choices = ["CPU", "GPU"]
reveal = "faster-at:1000"
)", "p.toml");
        INFO(all(good.errors));
        REQUIRE(good.lesson);
        REQUIRE(good.lesson->steps[0].predict);
        CHECK(good.lesson->steps[0].predict->choices.size() == 2);
        CHECK(good.lesson->steps[0].predict->reveal == "faster-at:1000");

        LessonLoad bad = parse_lesson_text("id = \"q\"\ntitle = \"Q\"\nworkload = \"latency\"\n[[steps]]\ntitle = \"s\"\n"
                                           "body = \"b\"\n[steps.predict]\nchoices = [1, 2]\nanswer = \"x\"\n",
                                           "q.toml");
        CHECK_FALSE(bad.lesson);
        INFO(all(bad.errors));
        CHECK(any_error_contains(bad.errors, "missing required key 'question'"));
        CHECK(any_error_contains(bad.errors, "q.toml:8: each choice must be a string"));
        CHECK(any_error_contains(bad.errors, "q.toml:9: unknown key 'answer'"));
    }

    TEST_CASE("a step's show key picks the presenter panels and bad names are refused") {
        LessonLoad good = parse_lesson_text(R"(
id = "s"
title = "S"
workload = "latency"
[[steps]]
title = "plots only"
body = "b"
show = ["timing"]
[[steps]]
title = "both by default"
body = "b"
)", "s.toml");
        INFO(all(good.errors));
        REQUIRE(good.lesson);
        const LessonStep& only = good.lesson->steps[0];
        CHECK(only.shows("timing"));
        CHECK_FALSE(only.shows("canvas"));
        CHECK(good.lesson->steps[1].shows("canvas"));
        CHECK(good.lesson->steps[1].shows("timing"));

        LessonLoad bad = parse_lesson_text("id = \"b\"\ntitle = \"B\"\nworkload = \"latency\"\n[[steps]]\ntitle = \"s\"\n"
                                           "body = \"b\"\nshow = [\"plots\", 3, \"canvas\", \"canvas\"]\n"
                                           "[[steps]]\ntitle = \"t\"\nbody = \"b\"\nshow = []\n",
                                           "b.toml");
        CHECK_FALSE(bad.lesson);
        INFO(all(bad.errors));
        CHECK(any_error_contains(bad.errors, "b.toml:7: unknown panel \"plots\" in 'show' (expected one of: canvas, timing)"));
        CHECK(any_error_contains(bad.errors, "b.toml:7: each entry of 'show' must be a string, not an integer"));
        CHECK(any_error_contains(bad.errors, "b.toml:7: panel \"canvas\" is listed twice"));
        CHECK(any_error_contains(bad.errors, "b.toml:11: 'show' must be a non-empty array"));
    }

    TEST_CASE("an unknown key is refused with its line") {
        LessonLoad l = parse_lesson_file(std::string(GPULAB_TEST_DATA_DIR) + "/lessons-bad/unknown-key.toml");
        CHECK_FALSE(l.lesson);
        INFO(all(l.errors));
        CHECK(any_error_contains(l.errors, "unknown-key.toml:6: unknown key 'titel'"));
        CHECK(any_error_contains(l.errors, "missing required key 'title'"));
    }

    TEST_CASE("a TOML syntax error gives file:line") {
        LessonLoad l = parse_lesson_file(std::string(GPULAB_TEST_DATA_DIR) + "/lessons-bad/syntax-error.toml");
        CHECK_FALSE(l.lesson);
        REQUIRE(l.errors.size() == 1);
        CHECK(l.errors[0].line == 2);
        CHECK(l.errors[0].to_string().rfind("", 0) == 0);
        CHECK(l.errors[0].to_string().find("syntax-error.toml:2: ") != std::string::npos);
    }

    TEST_CASE("parameters out of range or not among the choices are refused") {
        LessonLoad l = parse_lesson_file(std::string(GPULAB_TEST_DATA_DIR) + "/lessons-bad/bad-param.toml");
        CHECK_FALSE(l.lesson);
        INFO(all(l.errors));
        CHECK(any_error_contains(l.errors, "bad-param.toml:9: parameter 'elements' = 3 is out of range"));
        CHECK(any_error_contains(l.errors, "bad-param.toml:10: parameter 'activation' = \"softmax\" is not one of"));
    }

    TEST_CASE("unknown workload / wrong types / missing steps / id vs file name") {
        LessonLoad l = parse_lesson_text("id = \"x\"\ntitle = 3\nworkload = \"matmul\"\n", "y.toml");
        CHECK_FALSE(l.lesson);
        INFO(all(l.errors));
        CHECK(any_error_contains(l.errors, "y.toml:2: 'title' must be a string, not an integer"));
        CHECK(any_error_contains(l.errors, "y.toml:3: unknown workload 'matmul'"));
        CHECK(any_error_contains(l.errors, "missing required [[steps]]"));
        CHECK(any_error_contains(l.errors, "does not match the file name"));
    }

    TEST_CASE("a broken file does not stop the other lessons from loading") {
        LessonCatalog cat = load_lessons({std::string(GPULAB_SOURCE_DIR) + "/lessons",
                                          std::string(GPULAB_TEST_DATA_DIR) + "/lessons-bad"});
        CHECK(cat.find("elementwise-activations") != nullptr);
        CHECK(cat.lessons.size() == 4);
        CHECK(cat.errors.size() >= 3);
    }

    TEST_CASE("a missing lesson folder is an error and not a crash") {
        LessonCatalog cat = load_lessons({"/nonexistent/lessons"});
        CHECK(cat.lessons.empty());
        REQUIRE(cat.errors.size() == 1);
        CHECK(cat.errors[0].message == "lesson folder not found");
    }
}
