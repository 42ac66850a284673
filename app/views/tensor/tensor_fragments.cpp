// The "one instruction" panel: A (16x16), B (16x8) and D (16x8) of one mma.sync.m16n8k16, every
// element filled with the colour of its lane's place in a group of four (PTX's threadID_in_group)
// and numbered with the lane that held it, both read from the simulated kernel's lane data
// (sim::mma_lane_data), never computed here. The picked lane's 8 A, 4 B and 4 C/D elements are lit,
// the rest dimmed; clicking an element picks its lane. Under the picture: the arithmetic of one
// instruction against one FMA instruction, labelled as arithmetic. Checked by eye in the
// screenshots (/tmp/t1.png and the presenter ones) and by tests/tensor_gui_tests.cmake.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "measure/format.h"
#include "tensor_view.h"
#include "widgets/ui_helpers.h"

namespace gpulab::app {

namespace {

ImU32 lane_colour(int lane, float alpha) { return to_u32(kColourBlindFormats[lane & 3], alpha); }

template <std::size_t R, std::size_t C>
int draw_tile(ImDrawList* dl, ImVec2 origin, ImVec2 cell, const std::array<std::array<int8_t, C>, R>& owner, int lit,
              ImFont* font, float font_size, ImVec2 mouse, std::string* hovered) {
    int hovered_lane = -1;
    const ImU32 dark = IM_COL32(20, 20, 24, 255), muted = IM_COL32(150, 150, 156, 255);
    const auto corner = [&](std::size_t r, std::size_t c) {
        return ImVec2{origin.x + static_cast<float>(c) * cell.x, origin.y + static_cast<float>(r) * cell.y};
    };
    for (std::size_t r = 0; r < R; ++r) {
        for (std::size_t c = 0; c < C; ++c) {
            const int lane = owner[r][c];
            const ImVec2 a = corner(r, c);
            const ImVec2 b{a.x + cell.x - 1.0f, a.y + cell.y - 1.0f};
            const bool on = lit < 0 || lane == lit;
            dl->AddRectFilled(a, b, lane < 0 ? IM_COL32(60, 60, 60, 255) : lane_colour(lane, on ? 1.0f : 0.22f));
            if (lane >= 0 && font_size >= 7.0f) {
                char text[4];
                std::snprintf(text, sizeof text, "%d", lane);
                const ImVec2 ts = font->CalcTextSizeA(font_size, 1e9f, 0.0f, text);
                dl->AddText(font, font_size, {a.x + (cell.x - 1.0f - ts.x) * 0.5f, a.y + (cell.y - 1.0f - ts.y) * 0.5f},
                            on ? dark : muted, text);
            }
            if (mouse.x >= a.x && mouse.x < b.x && mouse.y >= a.y && mouse.y < b.y) {
                hovered_lane = lane;
                if (hovered) *hovered = "[" + std::to_string(r) + "][" + std::to_string(c) + "]";
            }
        }
    }
    // The lit lane's elements outlined, so they stand out in greyscale too.
    if (lit >= 0) {
        for (std::size_t r = 0; r < R; ++r)
            for (std::size_t c = 0; c < C; ++c)
                if (owner[r][c] == lit) {
                    const ImVec2 a = corner(r, c);
                    dl->AddRect(a, {a.x + cell.x - 1.0f, a.y + cell.y - 1.0f}, IM_COL32(255, 255, 255, 255), 0.0f, 0,
                                std::max(1.5f, cell.y * 0.09f));
                }
    }
    const ImVec2 end = corner(R, C);
    dl->AddRect({origin.x - 1, origin.y - 1}, end, IM_COL32(200, 200, 205, 255));
    return hovered_lane;
}

}  // namespace

std::string lane_holdings(const sim::MmaLaneData& d, int lane) {
    if (!d.ok || lane < 0 || lane > 31) return "";
    const auto l = static_cast<std::size_t>(lane);
    const auto list = [](const char* matrix, const auto& elements) {
        std::string s;
        for (const sim::LaneElement& e : elements)
            s += std::string(s.empty() ? "" : ", ") + matrix + "[" + std::to_string(e.row) + "][" + std::to_string(e.col) + "]";
        return s;
    };
    bool same_cd = true;
    for (std::size_t i = 0; i < d.c[l].size(); ++i)
        same_cd = same_cd && d.c[l][i].row == d.d[l][i].row && d.c[l][i].col == d.d[l][i].col;
    std::string s = "Lane " + std::to_string(lane) + " (PTX's groupID " + std::to_string(lane / 4) +
                    ", threadID_in_group " + std::to_string(lane % 4) + ") held " + list("A", d.a[l]) + ";  " +
                    list("B", d.b[l]) + ";  ";
    s += same_cd ? list("C", d.c[l]) + " and got back the same elements of D." : list("C", d.c[l]) + "; D: " + list("D", d.d[l]) + ".";
    return s;
}

int draw_fragment_tiles(const sim::MmaLaneData& d, int lane, ImVec2 size, const Fonts& fonts) {
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float width = size.x, height = size.y;
    const float lh = ImGui::GetTextLineHeight();
    // Columns, in cells: row numbers, A (16), the sign, B (16 rows of 8), the sign, D (8). Cells may
    // be wider than tall (up to 1.5x) when the height is what limits them: the lane numbers then
    // still fit at a readable size.
    constexpr float kLabel = 1.3f, kGap = 2.2f;
    const float cells_wide = kLabel + 16 + kGap + 8 + kGap + 8;
    const float top = lh * 2.3f;  // the tiles' titles and column numbers
    const float cell_h = std::floor(std::max(6.0f, std::min(width / cells_wide, (height - top) / 16.0f)));
    const float cell = std::floor(std::max(cell_h, std::min(width / cells_wide, cell_h * 1.5f)));
    const ImVec2 p0 = ImGui::GetCursorScreenPos();
    const float used_w = cell * cells_wide;
    const float x0 = p0.x + std::max(0.0f, (width - used_w) * 0.5f);
    ImGui::InvisibleButton("##mma_tiles", {width, top + 16 * cell_h + 2});
    const bool hovering = ImGui::IsItemHovered();
    const ImVec2 mouse = hovering ? ImGui::GetIO().MousePos : ImVec2{-1e9f, -1e9f};
    ImFont* font = ImGui::GetFont();
    const float number_size = std::min(ImGui::GetFontSize(), std::min(cell_h * 0.7f, cell * 0.6f));
    const float small = std::min(ImGui::GetFontSize(), std::max(cell_h * 0.5f, ImGui::GetFontSize() * 0.7f));
    const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text), muted = ImGui::GetColorU32(kMutedColour);

    const float ax = x0 + kLabel * cell, bx = ax + (16 + kGap) * cell, dx = bx + (8 + kGap) * cell;
    const float ty = p0.y + top;
    const char* in = kern::mma_input_label(d.input);
    const std::string a_title = std::string("A  16 x 16, ") + in, b_title = std::string("B  16 x 8, ") + in;
    ImFont* bold = fonts.bold ? fonts.bold : font;
    // Each title within its tile and the gap after it (smaller type rather than overlapping).
    const auto title = [&](float x, float room, const std::string& t) {
        const float full = ImGui::GetFontSize();
        const float w = bold->CalcTextSizeA(full, 1e9f, 0.0f, t.c_str()).x;
        dl->AddText(bold, w > room ? std::max(full * 0.6f, full * room / w) : full, {x, p0.y}, text, t.c_str());
    };
    title(ax, (16 + kGap * 0.8f) * cell, a_title);
    title(bx, (8 + kGap * 0.8f) * cell, b_title);
    title(dx, std::max(8 * cell, x0 + used_w - dx), "C, D  16 x 8, FP32");
    // Column numbers every other column; row numbers left of A (rows of A and D) and of B (k).
    for (int c = 0; c < 16; c += 2) {
        const std::string t = std::to_string(c);
        dl->AddText(font, small, {ax + (static_cast<float>(c) + 0.2f) * cell, ty - small * 1.1f}, muted, t.c_str());
        if (c < 8) {
            dl->AddText(font, small, {bx + (static_cast<float>(c) + 0.2f) * cell, ty - small * 1.1f}, muted, t.c_str());
            dl->AddText(font, small, {dx + (static_cast<float>(c) + 0.2f) * cell, ty - small * 1.1f}, muted, t.c_str());
        }
    }
    for (int r = 0; r < 16; r += 2) {
        const std::string t = std::to_string(r);
        const ImVec2 ts = font->CalcTextSizeA(small, 1e9f, 0.0f, t.c_str());
        dl->AddText(font, small, {ax - ts.x - cell * 0.2f, ty + (static_cast<float>(r) + 0.5f) * cell_h - ts.y * 0.5f}, muted, t.c_str());
        dl->AddText(font, small, {bx - ts.x - cell * 0.2f, ty + (static_cast<float>(r) + 0.5f) * cell_h - ts.y * 0.5f}, muted, t.c_str());
    }
    // The operators, between the tiles, at mid height.
    const float sign_size = std::min(cell_h * 1.4f, ImGui::GetFontSize() * 2.0f);
    const auto sign = [&](float x, const char* s) {
        const ImVec2 ts = font->CalcTextSizeA(sign_size, 1e9f, 0.0f, s);
        dl->AddText(font, sign_size, {x - ts.x * 0.5f, ty + 8 * cell_h - ts.y * 0.5f}, text, s);
    };
    sign(ax + (16 + kGap * 0.45f) * cell, "x");
    sign(bx + (8 + kGap * 0.45f) * cell, "=");
    const ImVec2 plus_c = font->CalcTextSizeA(sign_size * 0.7f, 1e9f, 0.0f, "+C");
    dl->AddText(font, sign_size * 0.7f, {bx + (8 + kGap * 0.45f) * cell - plus_c.x * 0.5f, ty + 8 * cell_h - sign_size * 1.25f},
                text, "+C");

    std::string where_a, where_b, where_d;
    const ImVec2 cs{cell, cell_h};
    const int ha = draw_tile(dl, {ax, ty}, cs, d.a_owner, lane, font, number_size, mouse, &where_a);
    const int hb = draw_tile(dl, {bx, ty}, cs, d.b_owner, lane, font, number_size, mouse, &where_b);
    const int hd = draw_tile(dl, {dx, ty}, cs, d.d_owner, lane, font, number_size, mouse, &where_d);
    const int hovered = ha >= 0 ? ha : hb >= 0 ? hb : hd;
    if (hovered >= 0) {
        const std::string what = ha >= 0 ? "A" + where_a : hb >= 0 ? "B" + where_b : "C and D" + where_d;
        ImGui::BeginTooltip();
        ImGui::Text("%s: held by lane %d (groupID %d, threadID_in_group %d)", what.c_str(), hovered, hovered / 4,
                    hovered % 4);
        ImGui::TextUnformatted("Click to light up all of this lane's elements.");
        ImGui::EndTooltip();
    }
    return hovered;
}

void TensorView::draw_fragments_panel() {
    const float lh = ImGui::GetTextLineHeight();
    ImGui::AlignTextToFramePadding();
    ImGui::TextUnformatted("Lane");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(lh * 10.0f);
    ImGui::SliderInt("##lane", &lane_, 0, 31, "%d", ImGuiSliderFlags_AlwaysClamp);
    hover_tip("Which of the warp's 32 lanes to light up. Clicking an element of a tile picks the lane that held it.");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(lh * 5.5f);
    int in = input_ == kern::MmaInput::Fp16 ? 0 : 1;
    if (ImGui::Combo("##mma_input", &in, "FP16\0BF16\0")) input_ = in == 0 ? kern::MmaInput::Fp16 : kern::MmaInput::Bf16;
    hover_tip("The input type of the instruction: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 or its .bf16 "
              "twin. Both put the same elements in the same lanes; the simulated kernel is run for each.");
    ImGui::SameLine();
    text_fitted(kMutedColour, "read from the simulated kernel's lanes (cuda-sim)");
    if (!result_) {
        draw_result_note();
        return;
    }
    const sim::MmaLaneData& d = result_->lanes_for(input_);
    if (!d.ok) {
        text_status(Status::Error, ("The lane data could not be read: " + d.error).c_str());
        return;
    }
    // The arithmetic beside the picture or under it, whichever leaves the tiles' cells larger (a
    // wide, short canvas: beside; a projector's taller one: under).
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float em = ImGui::GetFontSize();
    const float cells_wide = 37.7f, cells_high = 16.0f + 2.3f * lh / std::max(1.0f, em);
    const float side = std::clamp(avail.x * 0.26f, 14.0f * em, 20.0f * em);
    const float under = ImGui::GetTextLineHeightWithSpacing() * 2.6f;
    const float cell_beside = std::min((avail.x - side) / cells_wide, avail.y / cells_high);
    const float cell_under = std::min(avail.x / cells_wide, (avail.y - under) / cells_high);
    const bool beside = avail.x >= 40.0f * em && cell_beside > cell_under;
    const float side_w = beside ? side : 0.0f;
    const float footer = beside ? 0.0f : under;
    const ImVec2 tiles{avail.x - side_w, std::max(avail.y - footer, lh * 8.0f)};
    ImGui::BeginGroup();
    const int hovered = draw_fragment_tiles(d, lane_, tiles, host_.fonts);
    ImGui::EndGroup();
    if (hovered >= 0 && ImGui::IsMouseClicked(ImGuiMouseButton_Left)) lane_ = hovered;
    if (beside) {
        ImGui::SameLine();
        ImGui::BeginGroup();
        ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + side_w - em * 0.5f);
        ImGui::Dummy({1, lh * 1.2f});
        ImGui::TextColored(to_vec4(kColourBlindFormats[lane_ & 3]), "Lane %d holds", lane_);
        ImGui::TextWrapped("8 elements of A, 4 of B and 4 of C, and gets 4 of D back.");
        ImGui::Spacing();
        // Short lines: ImGui wraps at a comma too, and "2,048" must not break.
        ImGui::TextWrapped("One mma.sync, for the warp:");
        ImGui::TextUnformatted("16 x 8 x 16 =");
        ImGui::TextUnformatted("2,048 multiply-adds");
        ImGui::TextWrapped("One FMA instruction: 32, one per lane.");
        ImGui::TextWrapped("64 times the work per warp instruction.");
        ImGui::TextColored(kMutedColour, "(arithmetic from the shapes, not a measured speed)");
        ImGui::PopTextWrapPos();
        ImGui::EndGroup();
    } else {
        ImGui::TextWrapped(
            "One mma.sync: 16 x 8 x 16 = 2,048 multiply-adds for the warp. One FMA instruction: 32 multiply-adds, one "
            "per lane. 64 times the work per warp instruction (arithmetic from the shapes, not a measured speed).");
    }
}

}  // namespace gpulab::app
