// Colour-blind palette and the shapes that go with colours: see presenter_palette.h.
#include "presenter_palette.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>

namespace gpulab::app {

namespace {

std::atomic<bool> g_colour_blind{false};

}  // namespace

void set_colour_blind_palette(bool on) { g_colour_blind = on; }

bool colour_blind_palette() { return g_colour_blind; }

ImU32 to_u32(Rgb8 c, float alpha) {
    return IM_COL32(c.r, c.g, c.b, static_cast<int>(alpha * 255.0f + 0.5f));
}

ImVec4 to_vec4(Rgb8 c, float alpha) {
    return {static_cast<float>(c.r) / 255.0f, static_cast<float>(c.g) / 255.0f, static_cast<float>(c.b) / 255.0f,
            alpha};
}

ImU32 okabe_ito_backend_color(std::string_view backend, float alpha) {
    for (const auto& e : kColourBlindBackends)
        if (e.backend == backend) return to_u32(e.colour, alpha);
    const bool gpu_side = backend.rfind("gpu-", 0) == 0 || backend.rfind("cuda", 0) == 0;
    return to_u32(gpu_side ? kColourBlindOtherGpuBackend : kColourBlindOtherCpuBackend, alpha);
}

// [SECTION] shapes

Marker backend_marker(std::string_view backend) {
    if (backend == "cpu-scalar") return Marker::Circle;
    if (backend == "cpu-parallel") return Marker::Square;
    if (backend == "cpu-onednn") return Marker::Diamond;
    if (backend == "cuda-kernel") return Marker::TriangleUp;
    if (backend == "cudnn") return Marker::TriangleDown;
    return Marker::Cross;
}

void draw_marker(ImDrawList* dl, ImVec2 c, float r, Marker m, ImU32 colour, bool filled) {
    const float t = std::max(1.2f, r * 0.45f);  // outline thickness of a hollow marker
    switch (m) {
    case Marker::Circle:
        if (filled) dl->AddCircleFilled(c, r, colour, 12);
        else dl->AddCircle(c, r, colour, 12, t);
        break;
    case Marker::Square: {
        const float s = r * 0.88f;
        if (filled) dl->AddRectFilled({c.x - s, c.y - s}, {c.x + s, c.y + s}, colour);
        else dl->AddRect({c.x - s, c.y - s}, {c.x + s, c.y + s}, colour, 0.0f, 0, t);
        break;
    }
    case Marker::Diamond: {
        const float s = r * 1.2f;
        const ImVec2 p[4] = {{c.x, c.y - s}, {c.x + s, c.y}, {c.x, c.y + s}, {c.x - s, c.y}};
        if (filled) dl->AddConvexPolyFilled(p, 4, colour);
        else dl->AddPolyline(p, 4, colour, ImDrawFlags_Closed, t);
        break;
    }
    case Marker::TriangleUp:
    case Marker::TriangleDown: {
        const float s = r * 1.25f, k = m == Marker::TriangleUp ? 1.0f : -1.0f;
        const ImVec2 a{c.x, c.y - k * s}, b{c.x + s * 0.95f, c.y + k * s * 0.75f}, d{c.x - s * 0.95f, c.y + k * s * 0.75f};
        if (filled) dl->AddTriangleFilled(a, b, d, colour);
        else dl->AddTriangle(a, b, d, colour, t);
        break;
    }
    case Marker::Cross: {
        const float s = r * 0.95f, w = filled ? std::max(2.0f, r * 0.6f) : t;
        dl->AddLine({c.x - s, c.y - s}, {c.x + s, c.y + s}, colour, w);
        dl->AddLine({c.x - s, c.y + s}, {c.x + s, c.y - s}, colour, w);
        break;
    }
    }
}

void draw_status_mark(ImDrawList* dl, ImVec2 o, float size, Status s, ImU32 colour) {
    const float w = std::max(1.5f, size * 0.13f);
    const float x0 = o.x + size * 0.15f, x1 = o.x + size * 0.85f, y0 = o.y + size * 0.2f, y1 = o.y + size * 0.85f;
    switch (s) {
    case Status::Ok: {  // a tick: short stroke down, long stroke up
        const ImVec2 p[3] = {{x0, o.y + size * 0.55f}, {o.x + size * 0.42f, y1}, {x1, y0}};
        dl->AddPolyline(p, 3, colour, ImDrawFlags_None, w);
        break;
    }
    case Status::Error:  // a cross
        dl->AddLine({x0 + size * 0.05f, y0}, {x1 - size * 0.05f, y1}, colour, w);
        dl->AddLine({x0 + size * 0.05f, y1}, {x1 - size * 0.05f, y0}, colour, w);
        break;
    case Status::Warn: {  // an outlined triangle with "!" inside
        dl->AddTriangle({o.x + size * 0.5f, o.y + size * 0.1f}, {o.x + size * 0.95f, o.y + size * 0.9f},
                        {o.x + size * 0.05f, o.y + size * 0.9f}, colour, w * 0.8f);
        dl->AddLine({o.x + size * 0.5f, o.y + size * 0.38f}, {o.x + size * 0.5f, o.y + size * 0.64f}, colour, w * 0.8f);
        dl->AddCircleFilled({o.x + size * 0.5f, o.y + size * 0.77f}, w * 0.5f, colour);
        break;
    }
    }
}

void status_mark(Status s) {
    const float size = ImGui::GetTextLineHeight();
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const ImU32 colour = to_u32(status_rgb(s, colour_blind_palette()));
    draw_status_mark(ImGui::GetWindowDrawList(), p, size, s, colour);
    ImGui::Dummy({size, size});
    ImGui::SameLine(0.0f, ImGui::GetStyle().ItemInnerSpacing.x);
}

}  // namespace gpulab::app
