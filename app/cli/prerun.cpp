// `gpulab prerun`: the instructor's run before class (issue 25). Each chosen lesson is opened in a
// headless Shell and walked step by step exactly as Lesson > Measure every step now walks it in the
// window (shell/measure_every_step.cpp), with the results store on, so every step's measurement is
// written to disk; in class the window finds them and shows each step at once, saying when it was
// measured. Also: --out copies the stored results to a folder, --import loads such a folder from
// another computer (shown in the window as "measured on <machine>").
#include <imgui.h>
#include <imgui_impl_opengl3.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <thread>

#include "app_entry.h"
#include "shell/lesson_directories.h"
#include "shell/shell.h"
#include "views/stored_results.h"
#include "render/offscreen_context.h"
#include "lesson/lesson.h"
#include "measure/clock.h"
#include "measure/format.h"

namespace gpulab::app {

namespace {

// The workloads whose views keep their results in the store (views/stored_results.h): every lesson
// but the puzzles, which are the student's own runs. The training lesson's walk trains, races and
// sweeps the batch sizes (about two minutes on a 2-core laptop), so class starts with all of it.
bool workload_stores_results(const std::string& workload) {
    for (const char* w : {"activation", "conv2d", "latency", "simd-mimd", "tensor", "train"})
        if (workload == w) return true;
    return false;
}

int import_results(const PrerunOptions& o, core::ResultStore* store) {
    if (!store) {
        std::fprintf(stderr, "gpulab prerun: there is no results folder to import into (%s)\n",
                     core::shared_result_folder().empty() ? "neither XDG_CACHE_HOME nor HOME is set, or GPULAB_RESULTS_DIR is off"
                                                          : "it cannot be used");
        return 1;
    }
    const core::TransferReport r = store->import_from(o.import_dir);
    for (const std::string& s : r.skipped) std::printf("  passed over %s\n", s.c_str());
    if (!r.error.empty()) {
        std::fprintf(stderr, "gpulab prerun: %s\n", r.error.c_str());
        return 1;
    }
    if (r.copied == 0 && !r.skipped.empty()) {
        std::fprintf(stderr, "gpulab prerun: none of the %zu results in %s could be imported (each is listed above with why)\n",
                     r.skipped.size(), o.import_dir.c_str());
        return 1;
    }
    if (r.copied == 0) {
        std::fprintf(stderr, "gpulab prerun: no results to import in %s (a folder `gpulab prerun --out` wrote on another "
                             "computer holds *.result files)\n", o.import_dir.c_str());
        return 1;
    }
    std::printf("gpulab prerun: imported %d result%s from %s into %s: the window shows them as measured on that "
                "computer until you measure here (R)\n",
                r.copied, r.copied == 1 ? "" : "s", o.import_dir.c_str(), (store->folder() / "imported").c_str());
    return 0;
}

// Walks one lesson's steps; false when a step's run failed (said on stderr).
bool walk_lesson(const PrerunOptions& o, const core::Lesson& lesson) {
    auto shell = std::make_unique<Shell>();
    std::string error;
    if (!shell->init({o.lesson_dirs, lesson.id}, error)) {
        std::fprintf(stderr, "gpulab prerun: %s\n", error.c_str());
        return false;
    }
    std::printf("%s (%d steps)\n", lesson.title.c_str(), shell->step_count());
    std::fflush(stdout);
    const std::int64_t start = core::now_ns();
    shell->set_print_walk_summary(false);
    shell->start_measuring_every_step();
    int step = shell->step_index();
    int measurements_before = shell->measurements();
    std::int64_t step_start = core::now_ns();
    auto report_step = [&](int index) {
        const core::LessonStep& s = lesson.steps[static_cast<std::size_t>(index)];
        // A step that only read its stored result (or a data set) measured nothing new.
        const bool measured = shell->measurements() != measurements_before;
        std::printf("  step %d of %d, %s: %s\n", index + 1, shell->step_count(), s.title.c_str(),
                    measured ? ("measured in " + core::format_duration(core::now_ns() - step_start)).c_str()
                             : "nothing new to measure");
        std::fflush(stdout);
        measurements_before = shell->measurements();
        step_start = core::now_ns();
    };
    while (shell->measuring_every_step()) {
        shell->update(1.0f / 60.0f);
        if (shell->measuring_every_step() && shell->step_index() != step) {
            report_step(step);
            step = shell->step_index();
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    if (!shell->error_message().empty()) {
        std::fprintf(stderr, "gpulab prerun: %s: %s\n", lesson.id.c_str(), shell->error_message().c_str());
        return false;
    }
    report_step(step);
    std::printf("  %s in %s\n", lesson.id.c_str(), core::format_duration(core::now_ns() - start).c_str());
    return true;
}

}  // namespace

int run_prerun(const PrerunOptions& o) {
    enable_stored_results(true, /*read=*/!o.fresh);
    core::ResultStore* store = stored_results();
    if (!o.import_dir.empty()) return import_results(o, store);
    if (!store) {
        std::fprintf(stderr, "gpulab prerun: results cannot be kept: %s\n",
                     core::shared_result_folder().empty()
                         ? "neither XDG_CACHE_HOME nor HOME is set (or GPULAB_RESULTS_DIR is off), so there is no cache folder"
                         : "the cache folder cannot be used");
        return 1;
    }
    const core::LessonCatalog catalog = core::load_lessons(lesson_directories(o.lesson_dirs));
    std::vector<const core::Lesson*> lessons;
    for (const std::string& id : o.lesson_ids) {
        const core::Lesson* l = catalog.find(id);
        if (!l) {
            std::fprintf(stderr, "gpulab prerun: no lesson '%s' (gpulab lessons lists them)\n", id.c_str());
            return 2;
        }
        if (!workload_stores_results(l->workload)) {
            std::fprintf(stderr, "gpulab prerun: the lesson '%s' has nothing to pre-run: it runs the student's own kernels in class\n",
                         id.c_str());
            return 2;
        }
        lessons.push_back(l);
    }
    if (o.lesson_ids.empty())
        for (const core::Lesson& l : catalog.lessons)
            if (!l.coming && workload_stores_results(l.workload)) lessons.push_back(&l);

    // The views' GL objects need a context, as in headless export; nothing is drawn.
    std::string why;
    std::unique_ptr<OffscreenContext> gl = OffscreenContext::create(why);
    if (!gl) {
        std::fprintf(stderr, "gpulab prerun: no offscreen OpenGL context: %s\n", why.c_str());
        return 1;
    }
    gl->make_current();
    ImGui::CreateContext();
    ImGui::GetIO().IniFilename = nullptr;
    ImGui_ImplOpenGL3_Init("#version 330");
    std::printf("gpulab prerun: measuring %zu lesson%s into %s%s\n", lessons.size(), lessons.size() == 1 ? "" : "s",
                store->folder().c_str(), o.fresh ? " (every step afresh)" : "");
    int failed = 0;
    for (const core::Lesson* l : lessons)
        if (!walk_lesson(o, *l)) ++failed;
    ImGui_ImplOpenGL3_Shutdown();
    ImGui::DestroyContext();
    store->flush();
    if (const std::string werr = store->last_write_error(); !werr.empty()) {
        std::fprintf(stderr, "gpulab prerun: %s\n", werr.c_str());
        return 1;
    }
    if (!o.out_dir.empty()) {
        const core::TransferReport r = store->export_to(o.out_dir);
        if (!r.error.empty()) {
            std::fprintf(stderr, "gpulab prerun: %s\n", r.error.c_str());
            return 1;
        }
        std::printf("gpulab prerun: copied %d result%s to %s; on the classroom computer: gpulab prerun --import %s\n",
                    r.copied, r.copied == 1 ? "" : "s", o.out_dir.c_str(), o.out_dir.c_str());
    }
    if (failed) return 1;
    std::printf("gpulab prerun: done: the window shows these steps at once, saying when they were measured\n");
    return 0;
}

}  // namespace gpulab::app
