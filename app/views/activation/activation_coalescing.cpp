// "One warp's loads": the real activation kernel (kernels/activation/activation_kernel.cuh) run on the SIMT
// simulator with block 0's accesses recorded (kernels/sim/sim_trace_runs.h), for three placements of
// the buffers: 256-byte aligned; in and out both one float past it (in step: a scalar head, then
// aligned float4s); in one float and out two floats past it (out of step: no head aligns both, so
// every element goes through the scalar loop). For each, the first 640 bytes of the input buffer
// as five 128-byte segments with their 32-byte sectors, and warp 0's load requests drawn on them
// lane by lane: the segments and sectors a request touches are counted from the recorded addresses.
#include <algorithm>
#include <cstdio>
#include <string>

#include "activation_view.h"
#include "widgets/ui_helpers.h"

namespace gpulab::app {

namespace {

constexpr int64_t kShownBytes = 640;  // five 128-byte segments

struct Placement {
    int in_offset, out_offset;
    const char* title;
};
constexpr Placement kPlacements[] = {
    {0, 0, "in and out at a 256-byte boundary (as cudaMalloc returns them)"},
    {1, 1, "in and out both 1 float past it (in step)"},
    {1, 2, "in 1 float past it, out 2 floats (out of step)"},
};

ImU32 lane_colour(int lane, float alpha = 1.0f) {
    float r, g, b;
    ImGui::ColorConvertHSVtoRGB(0.55f + 0.35f * static_cast<float>(lane) / 31.0f, 0.55f, 0.9f, r, g, b);
    return ImGui::ColorConvertFloat4ToU32({r, g, b, alpha});
}

}  // namespace

void ActivationView::trace_coalescing() {
    traces_.clear();
    core::OpDesc relu;
    relu.activation = core::Activation::Relu;
    // 2048 elements: the launch has 2 blocks; block 0 alone is traced (256 threads, milliseconds).
    for (const Placement& p : kPlacements)
        traces_.push_back(sim::trace_activation_block(relu, 2048, p.in_offset, p.out_offset));
}

void ActivationView::draw_coalescing(float width) {
    if (traces_.empty()) trace_coalescing();
    const float fs = ImGui::GetFontSize();
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + width);
    ImGui::TextWrapped(
        "The real activation kernel run on cuda-sim (the CUDA kernel, simulated on the CPU) with every memory "
        "access of block 0 recorded. Memory moves in 32-byte sectors inside 128-byte segments; a warp's 32 "
        "threads load together, so what counts is how many segments and sectors their addresses fall in.");
    ImGui::PopTextWrapPos();
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float strip_w = width - fs;
    const float px_per_byte = strip_w / static_cast<float>(kShownBytes);
    for (std::size_t k = 0; k < traces_.size(); ++k) {
        const sim::ActivationTrace& t = traces_[k];
        ImGui::Spacing();
        ImGui::TextColored(kAccentColour, "%s", kPlacements[k].title);
        if (!t.ok) {
            ImGui::TextColored(kMutedColour, "not traced: %s", t.error.c_str());
            continue;
        }
        // Warp 0's loads of the input that start in the bytes shown, in the order they ran.
        std::vector<const sim::WarpRequest*> loads;
        for (const sim::WarpRequest& r : t.requests)
            if (r.space == sim::Space::Global && !r.store && r.region == t.in_region && r.warp == 0 &&
                r.offsets.front() < kShownBytes)
                loads.push_back(&r);
        const ImVec2 o = ImGui::GetCursorScreenPos();
        const float row_h = fs * 1.3f;
        const float strip_h = row_h * static_cast<float>(std::max<std::size_t>(loads.size(), 1)) + fs * 1.4f;
        // Segments (shaded when a shown request touches them) and sector ticks.
        for (int64_t seg = 0; seg < kShownBytes / 128; ++seg) {
            bool touched = false;
            for (const sim::WarpRequest* r : loads)
                for (std::size_t i = 0; i < r->offsets.size(); ++i)
                    touched |= r->offsets[i] / 128 <= seg && (r->offsets[i] + r->bytes[i] - 1) / 128 >= seg;
            const ImVec2 a{o.x + static_cast<float>(seg * 128) * px_per_byte, o.y};
            const ImVec2 b{a.x + 128 * px_per_byte - 2, o.y + strip_h - fs * 1.2f};
            dl->AddRectFilled(a, b, touched ? IM_COL32(70, 74, 84, 255) : IM_COL32(38, 40, 46, 255), 2.0f);
            for (int s = 1; s < 4; ++s)
                dl->AddLine({a.x + s * 32 * px_per_byte, a.y}, {a.x + s * 32 * px_per_byte, b.y},
                            IM_COL32(90, 90, 98, 255));
            char label[32];
            std::snprintf(label, sizeof label, "segment %lld", static_cast<long long>(seg));
            dl->AddText({a.x + 3, b.y + 1}, IM_COL32(150, 150, 150, 255), label);
        }
        // Each request on its own row: one small box per lane, at its bytes.
        for (std::size_t j = 0; j < loads.size(); ++j) {
            const sim::WarpRequest& r = *loads[j];
            const float y = o.y + fs * 0.15f + row_h * static_cast<float>(j);
            for (std::size_t i = 0; i < r.offsets.size(); ++i) {
                const float x0 = o.x + static_cast<float>(r.offsets[i]) * px_per_byte;
                const float x1 = o.x + static_cast<float>(r.offsets[i] + r.bytes[i]) * px_per_byte - 1;
                dl->AddRectFilled({x0, y}, {std::max(x1, x0 + 1), y + row_h - fs * 0.3f}, lane_colour(r.lanes[i]));
            }
        }
        ImGui::Dummy({strip_w, strip_h});
        // What each request cost, from its recorded addresses.
        for (const sim::WarpRequest* r : loads) {
            const int64_t bytes = static_cast<int64_t>(r->bytes.size()) * r->bytes.front();
            const char* what = r->bytes.front() == 16 ? "float4 body" : r->lanes.size() < 32 ? "scalar head" : "scalar loop";
            ImGui::Text("%s: lanes %d-%d x %u bytes = %lld bytes, bytes %lld-%lld: %d segment%s, %d sector%s", what,
                        r->lanes.front(), r->lanes.back(), r->bytes.front(), static_cast<long long>(bytes),
                        static_cast<long long>(r->offsets.front()),
                        static_cast<long long>(r->offsets.back() + r->bytes.back() - 1), r->segments,
                        r->segments == 1 ? "" : "s", r->sectors, r->sectors == 1 ? "" : "s");
        }
        const sim::RequestTotals all = sim::totals(t.requests, sim::Space::Global);
        ImGui::TextColored(kMutedColour,
                           "Block 0 in all: %lld warp requests (loads and stores), %lld bytes asked for, %lld sectors "
                           "moved = %.0f %% of the bytes moved were asked for.",
                           static_cast<long long>(all.requests), static_cast<long long>(all.bytes),
                           static_cast<long long>(all.sectors),
                           all.sectors > 0 ? 100.0 * static_cast<double>(all.bytes) / (32.0 * all.sectors) : 0.0);
    }
    ImGui::Spacing();
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + width);
    ImGui::TextColored(kMutedColour,
                       "Aligned, a warp's float4s fill exactly 4 segments. One float off, the kernel first handles 3 "
                       "elements alone (the head) so its float4s start on a 16-byte boundary; they then straddle 5 "
                       "segments. Out of step, every element takes the scalar path: 128 bytes per request, over 2 "
                       "segments and 5 sectors instead of 4.");
    ImGui::PopTextWrapPos();
}

}  // namespace gpulab::app
