// The presenter view's content (the window is presenter_view_window.cpp): what the instructor
// needs and the room must not see. The step as the room sees it, with its speaker notes always
// shown; the next step's title; the time since presenting began and the clock; the run's status.
// Drawn in the presenter view's own ImGui context, so only the fonts handed in are used.
#include <ctime>
#include <string>

#include "markdown.h"
#include "shell.h"
#include "widgets/ui_helpers.h"

namespace gpulab::app {

namespace {

std::string clock_text(double seconds) {
    const long s = static_cast<long>(seconds);
    char buf[32];
    if (s >= 3600)
        std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", s / 3600, (s / 60) % 60, s % 60);
    else
        std::snprintf(buf, sizeof buf, "%ld:%02ld", s / 60, s % 60);
    return buf;
}

}  // namespace

void Shell::draw_presenter_view(const Fonts& fonts, ImVec2 size, double presenting_seconds) {
    const ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                                   ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoBringToFrontOnFocus;
    ImGui::SetNextWindowPos({0, 0}, ImGuiCond_Always);
    ImGui::SetNextWindowSize(size, ImGuiCond_Always);
    if (!ImGui::Begin("##presenter_view", nullptr, flags)) {
        ImGui::End();
        return;
    }
    const float fs = ImGui::GetFontSize();
    const core::Lesson* l = lesson();
    const core::LessonStep* step = current_step();

    // Header: where we are, and the time.
    if (fonts.heading) ImGui::PushFont(fonts.heading);
    ImGui::TextUnformatted(l ? l->title.c_str() : "gpulab");
    if (fonts.heading) ImGui::PopFont();
    const std::time_t now = std::time(nullptr);
    char clock[16] = "";
    std::strftime(clock, sizeof clock, "%H:%M", std::localtime(&now));
    const std::string times = "presenting " + clock_text(presenting_seconds) + "    clock " + clock;
    ImGui::SameLine(std::max(ImGui::GetCursorPosX() + fs, size.x - ImGui::CalcTextSize(times.c_str()).x - fs));
    ImGui::TextUnformatted(times.c_str());
    if (l)
        ImGui::TextColored(kMutedColour, "step %d of %d    presenter view: only on this screen, the room sees the slide",
                           step_index_ + 1, static_cast<int>(l->steps.size()));
    ImGui::Separator();

    // Two columns: the step with its notes; then what comes next and what is running.
    const float right_w = std::max(fs * 18.0f, size.x * 0.30f);
    ImGui::BeginChild("##pv_step", {size.x - right_w - fs * 2.0f, 0}, false);
    if (step) {
        if (fonts.bold) ImGui::PushFont(fonts.bold);
        ImGui::TextColored(kAccentColour, "%s", step->title.c_str());
        if (fonts.bold) ImGui::PopFont();
        // The notes first: they are why this screen exists.
        ImGui::Spacing();
        ImGui::TextColored(kWarnColour, "Speaker notes");
        ImGui::PushTextWrapPos(0.0f);
        if (step->notes.empty())
            ImGui::TextColored(kMutedColour, "This step has no notes.");
        else
            render_markdown(step->notes, fonts);
        ImGui::PopTextWrapPos();
        ImGui::Spacing();
        ImGui::Separator();
        ImGui::TextColored(kMutedColour, "On the slide");
        ImGui::PushStyleColor(ImGuiCol_Text, kMutedColour);
        render_markdown(step->body, fonts);
        if (view_) {
            if (const std::string extra = view_->step_text_extra(); !extra.empty()) render_markdown(extra, fonts);
        }
        ImGui::PopStyleColor();
        if (step->predict) {
            ImGui::Spacing();
            ImGui::TextWrapped("Predict: %s", step->predict->question.c_str());
        }
    } else {
        ImGui::TextColored(kMutedColour, "No lesson is open: 1-9 open one.");
    }
    ImGui::EndChild();
    ImGui::SameLine();
    ImGui::BeginChild("##pv_side", {0, 0}, false);
    ImGui::TextColored(kAccentColour, "Next");
    if (l && step_index_ + 1 < static_cast<int>(l->steps.size()))
        ImGui::TextWrapped("%s", l->steps[static_cast<std::size_t>(step_index_ + 1)].title.c_str());
    else
        ImGui::TextColored(kMutedColour, "the last step of this lesson");
    ImGui::Spacing();
    ImGui::TextColored(kAccentColour, "Run");
    if (jobs_.busy()) {
        ImGui::TextWrapped("%s: %s", jobs_.label().c_str(), jobs_.stage().c_str());
        ImGui::ProgressBar(jobs_.progress(), {-1, 0});
    } else {
        ImGui::TextColored(kMutedColour, "nothing running");
    }
    if (const core::RunQuality q = core::last_run_quality(); q.busy()) {
        ImGui::PushStyleColor(ImGuiCol_Text, kWarnColour);
        ImGui::TextWrapped("%s", q.warning().c_str());
        ImGui::PopStyleColor();
    }
    if (!presenter_message_.empty()) ImGui::TextWrapped("%s", presenter_message_.c_str());
    ImGui::Spacing();
    ImGui::TextColored(kAccentColour, "Keys");
    ImGui::PushStyleColor(ImGuiCol_Text, kMutedColour);
    ImGui::TextWrapped("Right / Left step, R run, S stop, B blank, P pointer, Z canvas alone, Up / Down scroll, "
                       "? key map, F5 leave. They work in either window.");
    ImGui::PopStyleColor();
    ImGui::EndChild();
    ImGui::End();
}

}  // namespace gpulab::app
