// Lesson > Measure every step now: the instructor's pre-run before class (issue 25). The shell
// walks the lesson's steps one after another; entering a step lets its view do what it does in
// class (measure its settings, or show what was already measured for them: the views' results
// caches, core/measure/result_cache.h, backed by the results kept on disk, views/stored_results.h),
// and the walk moves on when no measurement runs. `gpulab prerun` (cli/prerun.cpp) walks the same way.
// At the end the lesson is back at the step it started from, and each step shows its results at
// once when entered in class. The status bar shows the walk's progress; Cancel (S in presenter
// mode), moving to another step or lesson, or a failed run stop it with a sentence. The GUI test
// gui.measure_every_step checks that entering every step afterwards starts no run.
#include <cstdio>

#include "measure/clock.h"
#include "measure/format.h"
#include "shell.h"

namespace gpulab::app {

void Shell::start_measuring_every_step() {
    if (every_step_.active || !view_ || step_count() == 0) return;
    if (host_.refuse_if_busy()) return;
    every_step_ = {true, 0, step_index_, jobs_.submitted(), jobs_.cancels(), core::now_ns(), every_step_.print_summary};
    host_.error.clear();
    enter_step(0);
}

void Shell::stop_measuring_every_step(const std::string& why) {
    if (!every_step_.active) return;
    every_step_.active = false;
    host_.info = "measuring every step stopped: " + why;
    std::printf("gpulab: %s\n", host_.info.c_str());
    std::fflush(stdout);
}

void Shell::continue_measuring_every_step() {
    if (!every_step_.active) return;
    if (jobs_.cancels() != every_step_.cancels_at_start) {  // Cancel, S, or a step left meanwhile
        stop_measuring_every_step("the steps measured so far keep their results");
        return;
    }
    if (busy()) return;  // a run, or a stored result still being read
    if (!host_.error.empty()) {  // the step's run failed: say which step, keep the reason on screen
        every_step_.active = false;
        host_.error = "step " + std::to_string(every_step_.step + 1) + " could not be measured: " + host_.error;
        return;
    }
    if (every_step_.step + 1 < step_count()) {
        enter_step(++every_step_.step);  // its view starts its run in its next update, if it needs one
        return;
    }
    every_step_.active = false;
    const int runs = jobs_.submitted() - every_step_.runs_at_start;
    const std::string took = core::format_duration(core::now_ns() - every_step_.started_ns);
    enter_step(every_step_.return_step);
    host_.info = "every step of this lesson is measured (" + std::to_string(runs) + " runs, " + took +
                 "): each shows its results at once";
    if (every_step_.print_summary) {
        std::printf("gpulab: measured every step of %s: %d runs in %s\n", lesson_id().c_str(), runs, took.c_str());
        std::fflush(stdout);
    }
}

}  // namespace gpulab::app
