// Lesson files: every shipped lesson parses, and broken files are refused with file:line messages.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include "lesson/lesson.h"

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

    TEST_CASE("text longer than the window can draw is refused with its line (issue 31, item 5)") {
        const std::string title(20000, 'x');
        LessonLoad load = parse_lesson_text("id = \"long\"\ntitle = \"Long\"\nworkload = \"activation\"\n"
                                            "[[steps]]\ntitle = \"" + title + "\"\nbody = \"b\"\n",
                                            "long.toml");
        CHECK(!load.lesson);
        REQUIRE(!load.errors.empty());
        CHECK(load.errors.front().line == 5);
        CHECK(load.errors.front().message.find("'title' is 20000 characters long; at most 200 fit") != std::string::npos);
        const std::string body(9000, 'b');
        load = parse_lesson_text("id = \"long\"\ntitle = \"Long\"\nworkload = \"activation\"\n"
                                 "[[steps]]\ntitle = \"t\"\nbody = \"" + body + "\"\n",
                                 "long.toml");
        CHECK(!load.lesson);
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

    TEST_CASE("an image parameter is read from the lesson file's folder and a missing one is refused") {
        const std::string data = GPULAB_TEST_DATA_DIR;
        const std::string text = "id = \"pic\"\ntitle = \"P\"\nworkload = \"conv2d\"\n[[steps]]\ntitle = \"s\"\n"
                                 "body = \"b\"\n[steps.params]\nimage = \"gradient.png\"\n";
        LessonLoad good = parse_lesson_text(text, data + "/pic.toml");
        INFO(all(good.errors));
        REQUIRE(good.lesson);
        const std::string image = param_string(good.lesson->steps[0].params, "image", "");
        CHECK(image == std::filesystem::path(data + "/gradient.png").lexically_normal().string());

        LessonLoad bad = parse_lesson_text(text, data + "/lessons-bad/pic.toml");
        CHECK_FALSE(bad.lesson);
        INFO(all(bad.errors));
        CHECK(any_error_contains(bad.errors, "pic.toml:8: parameter 'image' = \"gradient.png\": no such picture file"));
        CHECK(any_error_contains(bad.errors, "read from the lesson file's folder"));
    }

    TEST_CASE("a step's settings come from the lesson file alone - not from the step visited before") {
        LessonLoad l = parse_lesson_file(std::string(GPULAB_SOURCE_DIR) + "/lessons/conv-sliding-window.toml");
        REQUIRE(l.lesson);
        const Lesson& conv = *l.lesson;
        // Step 3 gives no size: it measures step 1's 512 x 512 even right after step 5's 1024 x 1024.
        const auto step3 = step_settings(conv, 2);
        CHECK(param_int(step3, "height", 0) == 512);
        CHECK(param_string(step3, "filter", "") == "sharpen");
        CHECK(param_int(conv.steps[4].params, "height", 0) == 1024);
        // layer_mode is first given by step 7 (false): the earlier steps start from that value, so
        // leaving step 9 (true) for step 4 does not keep the layer mode.
        CHECK(param_bool(step_settings(conv, 3), "layer_mode", true) == false);
        CHECK(param_bool(step_settings(conv, 8), "layer_mode", false) == true);
        // Each step's own settings win over the earlier ones; out-of-range indices are clamped.
        for (int i = 0; i < static_cast<int>(conv.steps.size()); ++i)
            for (const auto& [key, value] : conv.steps[static_cast<std::size_t>(i)].params)
                CHECK(step_settings(conv, i).at(key) == value);
        CHECK(step_settings(conv, 99) == step_settings(conv, static_cast<int>(conv.steps.size()) - 1));
        CHECK(step_settings(conv, -1) == step_settings(conv, 0));
        CHECK(step_settings(Lesson{}, 0).empty());
    }

    TEST_CASE("every shipped lesson's first step gives every setting its later steps change") {
        // Then no step starts from a value meant for a later one (lessons/README.md, "Steps").
        LessonCatalog cat = load_lessons({std::string(GPULAB_SOURCE_DIR) + "/lessons"});
        for (const Lesson& l : cat.lessons) {
            CAPTURE(l.id);
            REQUIRE_FALSE(l.steps.empty());
            for (const LessonStep& s : l.steps)
                for (const auto& kv : s.params) {
                    CAPTURE(kv.first);
                    CHECK(l.steps.front().params.count(kv.first) == 1);
                }
        }
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
        CHECK(cat.lessons.size() == 7);
        CHECK(cat.errors.size() >= 3);
    }

    TEST_CASE("the tensor-core lesson validates - its prompts reveal from the sweep - bad settings are refused") {
        LessonLoad l = parse_lesson_file(std::string(GPULAB_SOURCE_DIR) + "/lessons/tensor-cores.toml");
        INFO(all(l.errors));
        REQUIRE(l.errors.empty());
        REQUIRE(l.lesson);
        CHECK(l.lesson->workload == "tensor");
        int prompts = 0, gradient_prompts = 0, update_prompts = 0;
        for (const LessonStep& s : l.lesson->steps)
            if (s.predict) {
                ++prompts;
                gradient_prompts += s.predict->reveal == "gradients-thinned:fp16";
                update_prompts += s.predict->reveal == "updates-lost:bf16-pure";
                CHECK((s.predict->reveal.rfind("most-error:", 0) == 0 || s.predict->reveal == "gradients-thinned:fp16" ||
                       s.predict->reveal == "updates-lost:bf16-pure"));
            }
        CHECK(prompts == 4);
        CHECK(gradient_prompts == 1);
        CHECK(update_prompts == 1);
        const std::string head = "id = \"t\"\ntitle = \"T\"\nworkload = \"tensor\"\n[[steps]]\ntitle = \"S\"\nbody = \"B\"\n";
        LessonLoad bad = parse_lesson_text(head + "[steps.predict]\nquestion = \"Q\"\nreveal = \"most-error:fp64:4096\"\n", "t.toml");
        CHECK(any_error_contains(bad.errors, "is not one the tensor-core lesson knows"));
        bad = parse_lesson_text(head + "[steps.predict]\nquestion = \"Q\"\nreveal = \"most-error:narrow:1000\"\n", "t.toml");
        CHECK(any_error_contains(bad.errors, "K a power of two"));
        // The gradients prompt's choices must each name a band of percent.
        bad = parse_lesson_text(head + "[steps.predict]\nquestion = \"Q\"\nchoices = [\"a few\"]\nreveal = \"gradients-thinned:fp16\"\n", "t.toml");
        CHECK(any_error_contains(bad.errors, "names no band of percent"));
        bad = parse_lesson_text(head + "[steps.predict]\nquestion = \"Q\"\nreveal = \"gradients-thinned:int8\"\n", "t.toml");
        CHECK(any_error_contains(bad.errors, "names no format the gradients panel casts to"));
        // The training prompt names the lane that loses updates, and bands of percent.
        bad = parse_lesson_text(head + "[steps.predict]\nquestion = \"Q\"\nreveal = \"updates-lost:fp32\"\n", "t.toml");
        CHECK(any_error_contains(bad.errors, "names no lane that loses updates"));
        bad = parse_lesson_text(head + "[steps.predict]\nquestion = \"Q\"\nchoices = [\"most\"]\nreveal = \"updates-lost:bf16-pure\"\n", "t.toml");
        CHECK(any_error_contains(bad.errors, "names no band of percent"));
        bad = parse_lesson_text(head + "[steps.params]\ntrain_batches = 5\n", "t.toml");
        CHECK(any_error_contains(bad.errors, "parameter 'train_batches' = 5 is out of range"));
        bad = parse_lesson_text(head + "[steps.params]\npanel = \"training-ish\"\n", "t.toml");
        CHECK_FALSE(bad.errors.empty());
        bad = parse_lesson_text(head + "[steps.params]\nloss_scale = 30\n", "t.toml");
        CHECK_FALSE(bad.errors.empty());
        bad = parse_lesson_text(head + "[steps.params]\nmax_k = 5000\n", "t.toml");
        CHECK(any_error_contains(bad.errors, "must be a power of two"));
        bad = parse_lesson_text(head + "[steps.params]\nlane = 32\n", "t.toml");
        CHECK(any_error_contains(bad.errors, "parameter 'lane' = 32 is out of range"));
        LessonLoad good = parse_lesson_text(head + "[steps.params]\nvalue = nan\nmax_k = 1048576\n", "t.toml");
        INFO(all(good.errors));
        CHECK(good.errors.empty());
    }

    TEST_CASE("the kernel puzzles lesson validates: one puzzle per step, in the issue's order") {
        LessonLoad l = parse_lesson_file(std::string(GPULAB_SOURCE_DIR) + "/lessons/kernel-puzzles.toml");
        INFO(all(l.errors));
        REQUIRE(l.errors.empty());
        REQUIRE(l.lesson);
        CHECK(l.lesson->workload == "puzzles");
        const std::vector<std::string> ids = {"map",         "guard",      "map-2d",     "block-sum",
                                              "shared-tile", "stencil-1d", "dot",        "warp-sum",
                                              "prefix-sum",  "max-pool",   "matmul-tiled", "divergence"};
        REQUIRE(l.lesson->steps.size() == ids.size());
        for (std::size_t i = 0; i < ids.size(); ++i)
            CHECK(param_string(l.lesson->steps[i].params, "puzzle", "") == ids[i]);
        // A puzzles step takes `puzzle` and nothing else.
        LessonLoad bad = parse_lesson_text("id = \"p\"\ntitle = \"P\"\nworkload = \"puzzles\"\n[[steps]]\ntitle = \"a\"\n"
                                           "body = \"b\"\n[steps.params]\nelements = 4\n",
                                           "p.toml");
        CHECK_FALSE(bad.lesson);
        CHECK(any_error_contains(bad.errors, "unknown parameter 'elements' for workload 'puzzles'"));
    }

    TEST_CASE("the training lesson validates - and its reveal and parameters are checked") {
        LessonLoad l = parse_lesson_file(std::string(GPULAB_SOURCE_DIR) + "/lessons/train-small-cnn.toml");
        INFO(all(l.errors));
        REQUIRE(l.errors.empty());
        REQUIRE(l.lesson);
        CHECK(l.lesson->workload == "train");
        CHECK(l.lesson->steps.size() == 8);
        bool prompt = false;
        for (const auto& st : l.lesson->steps)
            if (st.predict) prompt = st.predict->reveal == "epoch-speedup" && !st.predict->question.empty();
        CHECK(prompt);
        const std::string head = "id = \"t\"\ntitle = \"T\"\nworkload = \"train\"\n[[steps]]\ntitle = \"s\"\nbody = \"b\"\n";
        LessonLoad bad = parse_lesson_text(head + "[steps.predict]\nquestion = \"q\"\nreveal = \"speedup\"\n", "t.toml");
        CHECK(any_error_contains(bad.errors, "reveal \"speedup\" is not one the training lesson knows"));
        LessonLoad range = parse_lesson_text(head + "[steps.params]\nbatch = 4096\npanel = \"loss\"\n", "t.toml");
        CHECK(range.errors.size() == 2);
    }

    TEST_CASE("a missing lesson folder is an error and not a crash") {
        LessonCatalog cat = load_lessons({"/nonexistent/lessons"});
        CHECK(cat.lessons.empty());
        REQUIRE(cat.errors.size() == 1);
        CHECK(cat.errors[0].message == "lesson folder not found");
    }

    TEST_CASE("a reveal the workload cannot answer is refused with its line") {
        const std::string head = "title = \"T\"\n[[steps]]\ntitle = \"s\"\nbody = \"b\"\n[steps.predict]\n"
                                 "question = \"q\"\n";
        LessonLoad lat = parse_lesson_text("id = \"l\"\nworkload = \"latency\"\n" + head + "reveal = \"faster-at:lots\"\n",
                                           "l.toml");
        INFO(all(lat.errors));
        CHECK(any_error_contains(lat.errors, "l.toml:9: reveal \"faster-at:lots\" is not one the latency lesson knows"));
        LessonLoad simd = parse_lesson_text("id = \"m\"\nworkload = \"simd-mimd\"\n" + head +
                                                "reveal = \"divergence:5-way\"\n", "m.toml");
        CHECK(any_error_contains(simd.errors, "m.toml:9: reveal \"divergence:5-way\" is not one the SIMD-vs-MIMD"));
        LessonLoad conv = parse_lesson_text("id = \"c\"\nworkload = \"conv2d\"\n" + head + "reveal = \"outputs\"\n",
                                            "c.toml");
        CHECK(any_error_contains(conv.errors, "c.toml:9: reveal \"outputs\" is not one the convolution lesson knows"));
        LessonLoad act = parse_lesson_text("id = \"a\"\nworkload = \"activation\"\n" + head +
                                               "reveal = \"faster-at:1000\"\n", "a.toml");
        CHECK(any_error_contains(act.errors, "a.toml:9: the activation workload has no live answer to reveal"));
        LessonLoad ok = parse_lesson_text("id = \"d\"\nworkload = \"simd-mimd\"\n" + head +
                                              "reveal = \"divergence:32-way\"\n", "d.toml");
        INFO(all(ok.errors));
        CHECK(ok.lesson);
    }

    TEST_CASE("parameters that clash with each other are refused once - at the step that sets them") {
        LessonLoad l = parse_lesson_text(R"(id = "k"
title = "K"
workload = "latency"
[[steps]]
title = "s"
body = "b"
[steps.params]
min_exp = 20
[[steps]]
title = "t"
body = "b"
[steps.params]
max_exp = 10
[[steps]]
title = "u"
body = "b"
)", "k.toml");
        INFO(all(l.errors));
        CHECK_FALSE(l.lesson);
        REQUIRE(l.errors.size() == 1);
        CHECK(l.errors[0].to_string() == "k.toml:13: min_exp = 20 is larger than max_exp = 10 (the sweep would be empty)");

        LessonLoad even = parse_lesson_text("id = \"e\"\ntitle = \"E\"\nworkload = \"conv2d\"\n[[steps]]\ntitle = \"s\"\n"
                                            "body = \"b\"\n[steps.params]\nkernel = 4\n", "e.toml");
        CHECK(any_error_contains(even.errors, "e.toml:8: parameter 'kernel' = 4 must be odd"));
    }

    TEST_CASE("empty titles - an order out of range - and errors in file order") {
        LessonLoad l = parse_lesson_text(R"(id = "o"
title = ""
workload = "activation"
order = 99999999999
[[steps]]
title = ""
body = "b"
[steps.params]
leaky_alpha = 3.0
elements = 12
)", "o.toml");
        INFO(all(l.errors));
        CHECK_FALSE(l.lesson);
        CHECK(any_error_contains(l.errors, "o.toml:2: 'title' must not be empty"));
        CHECK(any_error_contains(l.errors, "o.toml:4: 'order' = 99999999999 is out of range [-1000000, 1000000]"));
        CHECK(any_error_contains(l.errors, "o.toml:6: 'title' of [[steps]] #1 must not be empty"));
        // toml++ visits keys alphabetically (elements before leaky_alpha); the author reads top down.
        for (std::size_t i = 1; i < l.errors.size(); ++i) CHECK(l.errors[i - 1].line <= l.errors[i].line);
    }

    TEST_CASE("a folder given as a lesson file - and a folder that cannot be read - are named as such") {
        LessonLoad dir = parse_lesson_file(std::string(GPULAB_TEST_DATA_DIR) + "/lessons-bad");
        CHECK_FALSE(dir.lesson);
        REQUIRE(dir.errors.size() == 1);
        CHECK(dir.errors[0].message.find("is a folder, not a lesson file") == 0);

        LessonLoad missing = parse_lesson_file("/nonexistent/x.toml");
        REQUIRE(missing.errors.size() == 1);
        CHECK(missing.errors[0].to_string() == "/nonexistent/x.toml: cannot open file (No such file or directory)");

        // Permissions do not stop root, so the unreadable case is only checked as another user.
        const std::filesystem::path locked = std::filesystem::temp_directory_path() / "gpulab-test-locked-lessons";
        std::error_code ec;
        std::filesystem::create_directories(locked, ec);
        std::filesystem::permissions(locked, std::filesystem::perms::none, ec);
        std::filesystem::directory_iterator probe(locked, ec);
        if (ec) {
            LessonCatalog cat = load_lessons({locked.string()});
            REQUIRE(cat.errors.size() == 1);
            CHECK(cat.errors[0].message.find("cannot read lesson folder: ") == 0);
        }
        std::filesystem::permissions(locked, std::filesystem::perms::owner_all, ec);
        std::filesystem::remove_all(locked, ec);
    }

    TEST_CASE("a lesson whose id a built-in lesson already uses is refused - the built-in one kept") {
        LessonCatalog cat = load_lessons({std::string(GPULAB_SOURCE_DIR) + "/lessons",
                                          std::string(GPULAB_TEST_DATA_DIR) + "/lessons-clash"});
        INFO(all(cat.errors));
        REQUIRE(cat.errors.size() == 1);
        CHECK(cat.errors[0].to_string().find("lessons-clash/elementwise-activations.toml:2: lesson id "
                                             "'elementwise-activations' is already used by ") != std::string::npos);
        REQUIRE(cat.find("elementwise-activations"));
        CHECK(cat.find("elementwise-activations")->title == "Elementwise activations");
    }
}
