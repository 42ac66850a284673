// Presenter mode's frame: for a projector, only what the room should look at. A header with the
// lesson title and the step progress (dots plus "step 3 of 6"), the step text with its predict
// prompt on the left, the lesson view's canvas and plots on the right (or only the one the step's
// `show` names), and a one-line status bar.
// Controls, the lesson list and the devices are tucked away (F5 or Escape brings them back). On
// top of either layout: the key map (?) and the blank screen (B). Checked by eye in the
// screenshots at 1.5x and 2x and by the presenter GUI test (tests/presenter_tests.cmake).
#include <algorithm>
#include <cmath>

#include "markdown.h"
#include "widgets/paged_text.h"
#include "shell.h"
#include "widgets/ui_helpers.h"

namespace gpulab::app {

namespace {

// A message from the state machine ("last step of this lesson") stays this long on screen.
constexpr float kMessageSeconds = 4.0f;

// The moment at which the headless pictures freeze the animation: both sides mid-way.
constexpr float kStillFrameSeconds = 3.5f;

constexpr ImGuiWindowFlags kFixed = ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize |
                                    ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoSavedSettings |
                                    ImGuiWindowFlags_NoBringToFrontOnFocus | ImGuiWindowFlags_NoTitleBar;

void place(float x, float y, float w, float h) {
    ImGui::SetNextWindowPos({x, y}, ImGuiCond_Always);
    ImGui::SetNextWindowSize({w, h}, ImGuiCond_Always);
}

}  // namespace

void Shell::draw_predict_prompt(const core::PredictPrompt& prompt) {
    ImGui::Spacing();
    ImGui::Separator();
    ImGui::Spacing();
    if (fonts_.bold) ImGui::PushFont(fonts_.bold);
    ImGui::TextColored(kAccentColour, "Predict first");
    if (fonts_.bold) ImGui::PopFont();
    ImGui::TextWrapped("%s", prompt.question.c_str());
    for (std::size_t i = 0; i < prompt.choices.size(); ++i) {
        ImGui::Text("  %c.", static_cast<char>('A' + static_cast<int>(i % 26)));
        ImGui::SameLine();
        ImGui::TextWrapped("%s", prompt.choices[i].c_str());
    }
    ImGui::TextColored(kMutedColour, "Commit to an answer, then the run (R) reveals it.");
}

// Speaker notes are for the instructor, so they are off until N: a framed, muted block under the
// step text that reads as "not part of the slide" when the room can see it anyway.
void Shell::draw_speaker_notes(const core::LessonStep& step) {
    ImGui::Spacing();
    ImGui::Separator();
    ImGui::Spacing();
    ImGui::TextColored(kMutedColour, "Speaker notes (N hides)");
    ImGui::PushStyleColor(ImGuiCol_Text, kMutedColour);
    if (step.notes.empty())
        ImGui::TextWrapped("This step has no notes.");
    else
        render_markdown(step.notes, fonts_);
    ImGui::PopStyleColor();
}

bool Shell::draw_presenter_frame(const FrameContext& ctx) {
    presenter_message_age_ += ImGui::GetIO().DeltaTime;
    // Reduced motion: the animation holds one still frame instead of moving.
    if (presenter_.reduced_motion && view_) view_->set_animation_time(kStillFrameSeconds);
    if (!presenter_.presenting) return false;

    const float fs = ImGui::GetFontSize();
    const ImGuiStyle& style = ImGui::GetStyle();
    const float W = ctx.size.x, H = ctx.size.y;
    const float heading_px = fonts_.heading ? fonts_.heading->FontSize : fs;
    const float header_h = std::floor(heading_px + fs + style.WindowPadding.y * 2 + style.ItemSpacing.y * 2);
    const float status_h = ImGui::GetFrameHeight() + style.WindowPadding.y;
    const float body_h = H - header_h - status_h;
    // The text column is wide enough for about 30 characters at any scale, but never more than
    // 40 % of the screen, so the pictures stay the largest thing in the room.
    // Z: the canvas alone under the header, for a picture the back row must read.
    const bool zoomed = presenter_.canvas_zoomed;
    const float text_w = zoomed ? 0.0f : std::floor(std::clamp(fs * 24.0f, W * 0.28f, W * 0.40f));
    // Up / Down scroll the canvas when it is alone (otherwise they turn the text's parts,
    // handle_presenter_key).
    const float scroll_px = static_cast<float>(pending_scroll_lines_) * ImGui::GetTextLineHeightWithSpacing();
    pending_scroll_lines_ = 0;
    auto apply_scroll = [&] {
        if (scroll_px != 0.0f) ImGui::SetScrollY(std::clamp(ImGui::GetScrollY() + scroll_px, 0.0f, ImGui::GetScrollMaxY()));
    };
    const core::Lesson* l = lesson();

    place(0, 0, W, header_h);
    if (ImGui::Begin("##present_header", nullptr, kFixed | ImGuiWindowFlags_NoScrollbar)) {
        if (fonts_.heading) ImGui::PushFont(fonts_.heading);
        ImGui::TextUnformatted(l ? l->title.c_str() : "gpulab");
        if (fonts_.heading) ImGui::PopFont();
        draw_step_progress(fs * 0.32f);
        // The key hints help the person at the keyboard; an exported slide has no keyboard.
        if (!ctx.headless) {
            ImGui::SameLine(0, fs * 2.0f);
            ImGui::TextColored(kMutedColour, "? keys   B blank   R run   S stop   E export   N notes   F5 leave");
        }
    }
    ImGui::End();

    if (!zoomed) place(0, header_h, text_w, body_h);
    if (!zoomed && ImGui::Begin("##present_text", nullptr, kFixed)) {
        if (const core::LessonStep* step = current_step()) {
            if (fonts_.bold) ImGui::PushFont(fonts_.bold);
            ImGui::PushStyleColor(ImGuiCol_Text, kAccentColour);
            ImGui::TextWrapped("%s", step->title.c_str());
            ImGui::PopStyleColor();
            if (fonts_.bold) ImGui::PopFont();
            ImGui::Spacing();
            // The slide never scrolls: the text, the prompt and the notes a part at a time.
            const std::vector<MarkdownBlock> blocks = step_text_blocks(*step);
            const int text_parts = static_cast<int>(blocks.size());
            // The view's Timing panel asks the same question with answer buttons and the reveal;
            // the text column repeats it only when the step hides that panel.
            const bool asked_there = step->shows("timing") && view_ && view_->draws_predict_prompt();
            const bool prompt = step->predict && !asked_there;
            // With a presenter view open the notes are there, on the instructor's screen, never on
            // the slide; with one screen, N puts them under the step text.
            const bool notes = presenter_.notes_shown && !presenter_view_open_;
            const auto draw_part = [&](int i) {
                if (i < text_parts) {
                    render_markdown_block(blocks, static_cast<std::size_t>(i), fonts_);
                } else if (i == text_parts && prompt) {
                    draw_predict_prompt(*step->predict);
                } else {
                    draw_speaker_notes(*step);
                }
            };
            text_pages_ = draw_paged_parts(text_parts + (prompt ? 1 : 0) + (notes ? 1 : 0), draw_part, text_page_);
        } else {
            ImGui::TextColored(kMutedColour, "No lesson is open: press 1-9 to open one, or F5 to leave.");
        }
    }
    if (!zoomed) ImGui::End();

    // The step's `show` gives the right-hand side to the canvas, the plots, or both (split as the
    // view asks: half, or more for the canvas where the timing panel is a few lines).
    const core::LessonStep* shown_step = current_step();
    const bool canvas = zoomed || !shown_step || shown_step->shows("canvas");
    const bool timing = !zoomed && (!shown_step || shown_step->shows("timing"));
    const float share = view_ ? view_->presenter_canvas_share() : 0.5f;
    const float canvas_h = canvas && timing ? std::floor(body_h * share) : canvas ? body_h : 0.0f;
    if (canvas) {
        place(text_w, header_h, W - text_w, canvas_h);
        if (ImGui::Begin("##present_canvas", nullptr, kFixed)) {
            if (zoomed) apply_scroll();
            draw_canvas();
        }
        ImGui::End();
    }
    if (timing) {
        place(text_w, header_h + canvas_h, W - text_w, body_h - canvas_h);
        if (ImGui::Begin("##present_timing", nullptr, kFixed)) draw_timing();
        ImGui::End();
    }

    place(0, H - status_h, W, status_h);
    if (ImGui::Begin("##status", nullptr, kFixed | ImGuiWindowFlags_NoDecoration)) draw_status_bar(ctx);
    ImGui::End();

    draw_presenter_overlays(ctx);
    return true;
}

void Shell::draw_presenter_overlays(const FrameContext& ctx) {
    if (presenter_.help_shown) {
        const float fs = ImGui::GetFontSize();
        // Dim everything behind the map so the room reads the map, not the plots through it.
        ImGui::SetNextWindowPos({0, 0}, ImGuiCond_Always);
        ImGui::SetNextWindowSize(ctx.size, ImGuiCond_Always);
        ImGui::SetNextWindowBgAlpha(0.75f);
        ImGui::PushStyleColor(ImGuiCol_WindowBg, IM_COL32(0, 0, 0, 255));
        ImGui::Begin("##present_dim", nullptr,
                     ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoInputs | ImGuiWindowFlags_NoSavedSettings |
                         ImGuiWindowFlags_NoFocusOnAppearing);
        ImGui::End();
        ImGui::PopStyleColor();
        ImGui::SetNextWindowPos({ctx.size.x * 0.5f, ctx.size.y * 0.5f}, ImGuiCond_Always, {0.5f, 0.5f});
        ImGui::SetNextWindowBgAlpha(1.0f);
        ImGui::SetNextWindowFocus();  // above the dim layer, which appeared first
        const ImGuiWindowFlags flags = ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize |
                                       ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoSavedSettings |
                                       ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoTitleBar;
        if (ImGui::Begin("##present_keys", nullptr, flags)) {
            if (fonts_.heading) ImGui::PushFont(fonts_.heading);
            ImGui::TextUnformatted("Presenter keys");
            if (fonts_.heading) ImGui::PopFont();
            ImGui::Spacing();
            if (ImGui::BeginTable("##keys", 2, ImGuiTableFlags_RowBg | ImGuiTableFlags_PadOuterX)) {
                float keys_w = 0.0f;
                if (fonts_.bold) ImGui::PushFont(fonts_.bold);
                for (const core::PresenterKeyHelp& row : core::presenter_key_help())
                    keys_w = std::max(keys_w, ImGui::CalcTextSize(row.keys).x);
                if (fonts_.bold) ImGui::PopFont();
                ImGui::TableSetupColumn("keys", ImGuiTableColumnFlags_WidthFixed, keys_w + fs);
                ImGui::TableSetupColumn("meaning", ImGuiTableColumnFlags_WidthFixed, fs * 22.0f);
                for (const core::PresenterKeyHelp& row : core::presenter_key_help()) {
                    ImGui::TableNextRow();
                    ImGui::TableNextColumn();
                    if (fonts_.bold) ImGui::PushFont(fonts_.bold);
                    ImGui::TextColored(kAccentColour, "%s", row.keys);
                    if (fonts_.bold) ImGui::PopFont();
                    ImGui::TableNextColumn();
                    ImGui::TextWrapped("%s", row.meaning);  // a long meaning takes two lines, never cut
                }
                ImGui::EndTable();
            }
            ImGui::Spacing();
            ImGui::TextColored(kMutedColour, "A clicker's Page Up / Page Down step back and forward.");
            ImGui::TextColored(kMutedColour, "? or Escape closes this map.");
        }
        ImGui::End();
    }
    // P: a spotlight for pointing at the projector: everything but a circle around the mouse is
    // dimmed (one ring thick enough to cover the screen), with a bright edge the back row can see.
    if (presenter_.pointer_shown && presenter_.presenting && !ctx.headless) {
        const ImVec2 m = ImGui::GetIO().MousePos;
        if (m.x > -1e30f && m.y > -1e30f) {
            ImDrawList* dl = ImGui::GetForegroundDrawList();
            const float r = ImGui::GetFontSize() * 4.0f;
            const float cover = 2.0f * std::max(ctx.size.x, ctx.size.y);
            dl->AddCircle(m, r + cover * 0.5f, IM_COL32(0, 0, 0, 150), 96, cover);
            dl->AddCircle(m, r, IM_COL32(255, 220, 60, 255), 96, ImGui::GetFontSize() * 0.3f);
        }
    }
    // Blank: black over everything, status bar included, so nothing glows on the projector.
    if (presenter_.blanked)
        ImGui::GetForegroundDrawList()->AddRectFilled({0, 0}, ctx.size, IM_COL32(0, 0, 0, 255));
}

void Shell::draw_presenter_status() {
    const float wanted = core::kPresenterScales[presenter_.scale_index], used = presenter_scale();
    if (presenter_.presenting && used < wanted) {
        ImGui::SameLine(0, ImGui::GetFontSize() * 1.5f);
        ImGui::TextColored(kMutedColour, "text %gx (%gx does not fit this screen)", used, wanted);
        hover_tip("The presenter layout needs about 44 lines of text height and 78 characters of width; a "
                  "larger size would cut the tables and pictures. A larger screen (a 1440p or 4K projector) can "
                  "show the larger size.");
    }
    // The GPU warm-up shows only while it runs; its result, or why there is nothing to warm up, is
    // in the status bar's details.
    if (warmup_status_.rfind("warming", 0) == 0) {
        ImGui::SameLine(0, ImGui::GetFontSize() * 1.5f);
        text_fitted(kAccentColour, warmup_status_, ImGui::GetFontSize() * 22.0f);
    }
    if (!presenter_message_.empty() && presenter_message_age_ < kMessageSeconds) {
        ImGui::SameLine(0, ImGui::GetFontSize() * 1.5f);
        ImGui::TextColored(kAccentColour, "%s", presenter_message_.c_str());
    }
}

}  // namespace gpulab::app
