// Rows every lesson's controls share: Run (R) with Cancel and the worker's progress bar, and the
// predict-then-run question with its choice buttons. One implementation, so the lessons behave
// alike and a fix lands everywhere.
#pragma once

#include <optional>
#include <string>

#include "jobs.h"
#include "lesson/lesson.h"
#include "ops/op_desc.h"

namespace gpulab::app {

// Returns true when Run was pressed. `tip` explains what a run measures; `idle_text` shows when
// nothing runs.
bool draw_run_row(JobRunner& jobs, const char* run_label, const char* tip, const char* cancel_tip,
                  const char* idle_text);

// One sentence when the last run shared the machine with other programs (core/measure/run_quality.h):
// its times are slower than the machine can do; the tooltip has the figures. Nothing otherwise.
void draw_busy_machine_warning(const JobRunner& jobs);

// Draws "Predict first: <question>" and one button per choice. `pick` (-1: none) and
// `reveal_now` ("just show me") are the view's state; `ready` enables "just show me".
// Returns true once the student has answered, i.e. when the view should reveal.
bool draw_predict_choices(const core::PredictPrompt& prompt, int& pick, bool& reveal_now, bool ready);

// The script action "answer-first" every view with a prompt offers (a test or a screenshot picks the
// first choice as a student would): true when `name` is it, with `said` set and `pick` 0 where the
// step has a prompt.
bool answer_first_action(const std::optional<core::PredictPrompt>& prompt, int& pick, const std::string& name,
                         std::string& said, bool& ok);

// The "activation" combo box over every activation the backends implement; `tip` says what the
// choice changes in this lesson. True when the student picked another one.
bool draw_activation_combo(core::Activation& activation, const char* tip);

}  // namespace gpulab::app
