// The "number formats" panel: a number the student types, rounded into FP32, TF32, BF16 and FP16 by
// the one shared rounding (core/ops/fp_formats.h), drawn as each format's bits in their fields
// (sign, exponent, mantissa: colour, a legend and the digit in every box), the mantissas aligned on
// their first bit so their lengths compare at a glance; under each row what is stored, the error
// and the step between neighbouring numbers there; then the formats' ranges, from their
// definitions. Checked by eye in the screenshots and by tests/tensor_gui_tests.cmake.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "measure/format.h"
#include "tensor_view.h"
#include "widgets/ui_helpers.h"

namespace gpulab::app {

namespace {

// Sign, exponent, mantissa: three of the lesson's four colours.
constexpr Rgb8 kSignColour = kColourBlindFormats[2], kExponentColour = kColourBlindFormats[0],
               kMantissaColour = kColourBlindFormats[3];

std::string short_number(double v) {
    if (std::isnan(v)) return "NaN";
    if (std::isinf(v)) return v < 0 ? "-infinity" : "infinity";
    // Whole numbers a student recognises in full (65,504); the rest with four significant digits.
    if (v == std::floor(v) && std::fabs(v) < 1e7) return (v < 0 ? "-" : "") + core::format_count(static_cast<int64_t>(std::fabs(v)));
    // Small steps and errors in scientific form: "0.0004883" could be wrapped at its point.
    char buf[48];
    std::snprintf(buf, sizeof buf, std::fabs(v) < 0.01 ? "%.3e" : "%.4g", v);
    return buf;
}

std::string field_text(core::FpFormat f) {
    const core::FormatSpec& s = core::format_spec(f);
    return std::string(s.label) + "  1+" + std::to_string(s.exponent_bits) + "+" + std::to_string(s.mantissa_bits);
}

}  // namespace

void draw_format_rows(double value, float width, const Fonts& fonts) {
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float lh = ImGui::GetTextLineHeight();
    ImFont* font = ImGui::GetFont();
    const float label_w = ImGui::CalcTextSize("FP32  1+8+23").x + lh;
    // 32 columns: the mantissa starts at column 9 for every format (after FP32's sign and 8
    // exponent bits), so FP16's 5 exponent bits end where the others' 8 do.
    const float box = std::floor(std::min((width - label_w) / 32.0f, lh * 2.2f));
    const float digit_size = std::min(ImGui::GetFontSize(), box * 0.72f);
    const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
    for (core::FpFormat f : core::kAllFormats) {
        const core::FormatSpec& s = core::format_spec(f);
        const core::BitFields b = core::bit_fields(f, value);
        const ImVec2 p = ImGui::GetCursorScreenPos();
        if (fonts.bold) ImGui::PushFont(fonts.bold);
        dl->AddText({p.x, p.y + (box - lh) * 0.5f}, format_colour(f), field_text(f).c_str());
        if (fonts.bold) ImGui::PopFont();
        const float x0 = p.x + label_w;
        const int first_column = 8 - s.exponent_bits;  // the sign's column
        for (int i = 0; i < s.total_bits(); ++i) {
            const int bit = s.total_bits() - 1 - i;  // from the most significant
            const bool one = ((b.bits >> bit) & 1u) != 0;
            const Rgb8 field = i == 0 ? kSignColour : i <= s.exponent_bits ? kExponentColour : kMantissaColour;
            const float x = x0 + static_cast<float>(first_column + i) * box;
            dl->AddRectFilled({x, p.y}, {x + box - 1.0f, p.y + box - 1.0f}, to_u32(field, one ? 1.0f : 0.3f));
            const char* digit = one ? "1" : "0";
            const ImVec2 ts = font->CalcTextSizeA(digit_size, 1e9f, 0.0f, digit);
            dl->AddText(font, digit_size, {x + (box - 1.0f - ts.x) * 0.5f, p.y + (box - 1.0f - ts.y) * 0.5f},
                        one ? IM_COL32(15, 15, 18, 255) : text, digit);
        }
        ImGui::Dummy({width, box + 2.0f});
        const double step = core::step_at(f, value);
        std::string line = "stored " + number_text_of(b.value);
        if (b.cls != core::FpClass::Infinite && b.cls != core::FpClass::NaN) line += std::string(" (") + core::class_name(b.cls) + ")";
        if (std::isfinite(b.value) && std::isfinite(value))
            line += ",  error " + short_number(b.value - value) + ",  step " + short_number(step);
        else if (std::isinf(b.value) && std::isfinite(value))
            line += ": beyond the largest number, " + short_number(core::format_range(f).max_finite);
        // Under the boxes, wrapped at the panel's edge (presenter mode's large type needs two lines).
        ImGui::SetCursorScreenPos({x0, ImGui::GetCursorScreenPos().y});
        ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + (p.x + width - x0));
        ImGui::PushStyleColor(ImGuiCol_Text, kMutedColour);
        ImGui::TextWrapped("%s", line.c_str());
        ImGui::PopStyleColor();
        ImGui::PopTextWrapPos();
        ImGui::SetCursorScreenPos({p.x, ImGui::GetCursorScreenPos().y + lh * 0.25f});
    }
    // The legend: what the colours mean (each box also shows its digit); an item that would pass
    // the panel's edge starts a new line.
    const ImVec2 p = ImGui::GetCursorScreenPos();
    float x = p.x + label_w, y = p.y;
    const auto item = [&](const char* name, const Rgb8* colour) {
        const float w = (colour ? lh : 0.0f) + ImGui::CalcTextSize(name).x;
        if (x + w > p.x + width && x > p.x + label_w) {
            x = p.x + label_w;
            y += lh * 1.2f;
        }
        if (colour) dl->AddRectFilled({x, y + lh * 0.15f}, {x + lh * 0.8f, y + lh * 0.95f}, to_u32(*colour));
        dl->AddText({x + (colour ? lh : 0.0f), y}, colour ? text : ImGui::GetColorU32(kMutedColour), name);
        x += w + lh * 0.6f;
    };
    item("sign", &kSignColour);
    item("exponent", &kExponentColour);
    item("mantissa (stored fraction bits)", &kMantissaColour);
    item("bright: 1, dim: 0", nullptr);
    ImGui::Dummy({width, y - p.y + lh * 1.2f});
}

void draw_format_ranges() {
    ImGui::TextColored(kMutedColour, "From each format's definition (arithmetic, not measured):");
    const ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit;
    if (!ImGui::BeginTable("##ranges", 6, flags)) return;
    for (const char* h : {"format", "significant bits", "largest", "smallest normal", "smallest subnormal", "step at 1"})
        ImGui::TableSetupColumn(h);
    ImGui::TableHeadersRow();
    for (core::FpFormat f : core::kAllFormats) {
        const core::FormatRange r = core::format_range(f);
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextColored(to_vec4(kColourBlindFormats[static_cast<int>(f)]), "%s", core::format_label(f));
        ImGui::TableNextColumn();
        ImGui::Text("%d", r.significant_bits);
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(short_number(r.max_finite).c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(short_number(r.min_normal).c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(short_number(r.min_subnormal).c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(short_number(r.epsilon).c_str());
    }
    ImGui::EndTable();
}

void TensorView::draw_formats_panel() {
    const float lh = ImGui::GetTextLineHeight();
    ImGui::AlignTextToFramePadding();
    ImGui::TextUnformatted("Type a number");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(lh * 12.0f);
    if (ImGui::InputText("##value", value_text_, sizeof value_text_)) {
        char* end = nullptr;
        const double v = std::strtod(value_text_, &end);
        while (end != nullptr && *end == ' ') ++end;
        if (end == value_text_ || (end != nullptr && *end != '\0')) {
            value_error_ = "not a number: try 0.1, 70000, 1e-6, inf or nan";
        } else {
            value_ = v;
            value_error_.clear();
        }
    }
    hover_tip("Any number a double holds: 0.1, 3.14159, 70000 (past FP16's largest), 1e-6 (an FP16 subnormal), "
              "1e-40, inf, nan. Each format rounds it to its nearest number, ties to even.");
    ImGui::SameLine();
    if (!value_error_.empty())
        ImGui::TextColored(kErrorColour, "%s", value_error_.c_str());
    else
        ImGui::TextColored(kMutedColour, "as a double: %s", number_text_of(value_).c_str());
    ImGui::Spacing();
    draw_format_rows(value_, ImGui::GetContentRegionAvail().x, host_.fonts);
    ImGui::Spacing();
    draw_format_ranges();
}

void draw_format_neighbours(double value) {
    ImGui::TextColored(kMutedColour, "The stored number and its two neighbours in each format (one bit pattern apart):");
    const ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit;
    if (!ImGui::BeginTable("##neighbours", 4, flags)) return;
    for (const char* h : {"format", "next down", "stored", "next up"}) ImGui::TableSetupColumn(h);
    ImGui::TableHeadersRow();
    for (core::FpFormat f : core::kAllFormats) {
        const core::BitFields b = core::bit_fields(f, value);
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextColored(to_vec4(kColourBlindFormats[static_cast<int>(f)]), "%s", core::format_label(f));
        // Neighbours of a finite magnitude are the patterns one below and one above (the encoding is
        // monotonic in the magnitude); towards zero from zero there is none.
        const bool finite = b.cls != core::FpClass::Infinite && b.cls != core::FpClass::NaN;
        const uint32_t magnitude = b.bits & ~(1u << (core::format_spec(f).total_bits() - 1));
        const double sign = b.sign ? -1.0 : 1.0;
        const auto neighbour = [&](int step) -> std::string {
            if (!finite || (step < 0 && magnitude == 0)) return "-";
            const double v = core::decode(f, magnitude + static_cast<uint32_t>(step)) * sign;
            return number_text_of(v);
        };
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(neighbour(b.sign ? 1 : -1).c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(number_text_of(b.value).c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(neighbour(b.sign ? -1 : 1).c_str());
    }
    ImGui::EndTable();
}

}  // namespace gpulab::app
