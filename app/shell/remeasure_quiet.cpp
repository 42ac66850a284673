// A step measured again when the machine is quiet (issue 41, item 6). When a run ends having shared
// the CPUs with other programs (core/measure/run_quality.h), core::QuietRetry watches the machine;
// once it has been quiet for a couple of seconds the shell asks the view to measure once more, as R
// would, and the controls' grey line says which result the lesson now rests on. Not during a walk
// over every step, live mode, a cancelled run, or in views that opt out (LessonView::
// remeasures_when_quiet); off in scripted windows, prerun and exports (set_remeasure_when_quiet).
#include <algorithm>
#include <thread>

#include "measure/run_quality.h"
#include "shell.h"

namespace gpulab::app {

void Shell::watch_for_quiet(bool busy_now) {
    if (!was_busy_ && busy_now) cancels_when_run_began_ = jobs_.cancels();
    const bool finished = was_busy_ && !busy_now;
    was_busy_ = busy_now;
    if (!remeasure_when_quiet_ || !view_) return;
    const int cpus = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    if (finished) {
        const core::RunQuality q = core::last_run_quality();
        const bool eligible = !every_step_.active && jobs_.label() != "live run" &&
                              jobs_.cancels() == cancels_when_run_began_ && view_->remeasures_when_quiet();
        // The busy run's numbers stay on the line beside the quiet run's, which the lesson rests on.
        const std::string before = busy_headline_.empty() ? "" : " The busy run had: " + busy_headline_ + ".";
        if (automatic_run_ && eligible)
            host_.info = q.busy() ? "measured again once the machine seemed quiet, but other programs were busy again: "
                                    "R measures again." + before
                                  : "measured again by itself once the machine was quiet (the run before shared its CPUs "
                                    "with other programs): these are the times the lesson rests on." + before;
        busy_headline_.clear();
        automatic_run_ = false;
        if (eligible) quiet_retry_.run_finished(lesson_id() + " step " + std::to_string(step_index_ + 1), q);
        else quiet_retry_.stop();
        return;
    }
    if (busy_now || !quiet_retry_.watching()) return;
    if (every_step_.active) {
        quiet_retry_.stop();
        return;
    }
    if (!quiet_retry_.should_rerun(core::sample_cpu(), cpus)) return;
    automatic_run_ = true;
    busy_headline_ = view_->result_headline();
    view_->request_run();
    if (jobs_.busy())
        host_.info = "the machine is quiet now: measuring this step again (its last run shared the CPUs with other "
                     "programs)";
    else {
        automatic_run_ = false;
        busy_headline_.clear();
    }
}

}  // namespace gpulab::app
