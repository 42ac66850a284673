// The elementwise-activations canvas: the input feature map and the output side by
// side (tensor textures: CUDA-GL interop when a GPU backend ran and interop works, else host
// upload of the reference output), the activation's curve, and a zoomed grid of real input
// elements that animates one CPU core walking cell by cell against GPU warps of 32 lighting up
// together, next to the real measured medians. Checked by eye in the GUI and export screenshots.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "activation_view.h"
#include "gpu_backends.h"
#include "gpu_model/gpu_model.h"
#include "measure/format.h"
#include "render/render_problems.h"
#include "ops/hd_math.h"
#include "widgets/diverging_map.h"
#include "widgets/ui_helpers.h"

namespace gpulab::app {

namespace {

constexpr int kGridCols = 16, kGridRows = 8, kWarp = 32;
constexpr int kCells = kGridCols * kGridRows;
constexpr float kCpuSecondsPerCell = 0.06f;  // slow enough to follow one cell with the eye
constexpr float kGpuSecondsPerStep = 0.6f;
constexpr int kWarpsPerStep = 2;             // a picture of several warps issuing at once

float apply_activation(core::Activation a, float x, float alpha) {
    switch (a) {
        case core::Activation::Relu: return hd::relu(x);
        case core::Activation::LeakyRelu: return hd::leaky_relu(x, alpha);
        case core::Activation::Sigmoid: return hd::sigmoid(x);
        case core::Activation::Tanh: return hd::tanh_act(x);
        case core::Activation::Gelu: return hd::gelu(x);
    }
    return x;
}

float max_abs(const core::Tensor& t) {
    float m = 0.0f;
    for (float v : t.data)
        if (std::isfinite(v)) m = std::max(m, std::fabs(v));
    return m > 0.0f ? m : 1.0f;
}

// Fits a w x h picture into a box, keeping its aspect ratio.
ImVec2 fit(float w, float h, ImVec2 box) {
    if (w <= 0 || h <= 0) return {0, 0};
    float s = std::min(box.x / w, box.y / h);
    return {w * s, h * s};
}

}  // namespace

void ActivationView::update_textures() {
    textures_dirty_ = false;
    textures_ramp_ = diverging_ramp();
    if (!last_run_ || !last_run_->ok || last_run_->input.size() == 0) return;
    if (!input_tex_) input_tex_ = std::make_unique<TensorTexture>();
    if (!output_tex_) output_tex_ = std::make_unique<TensorTexture>();
    const core::Tensor& in = last_run_->input;
    const int h = in.shape.size() >= 2 ? static_cast<int>(in.shape[0]) : 1;
    const int w = static_cast<int>(in.size() / std::max(h, 1));
    const float range = max_abs(in);
    const ColorRange cr = diverging_range(-range, range);
    input_tex_->set_from_host(in.ptr(), w, h, cr);
    // Prefer the GPU's own output, straight from device memory: no trip through the host.
    display_backend_.clear();
    for (std::size_t i = 0; i < last_run_->reports.size() && i < host_.backends.size(); ++i) {
        const auto& r = last_run_->reports[i];
        if (!device_output_tag_.current(i, host_.backends[i]->output_generation(), host_.jobs->busy())) continue;
        const void* d = host_.backends[i]->device_output();
        if (r.ran && r.kind == core::BackendKind::Gpu && d && output_tex_->set_from_device(d, w, h, cr)) {
            display_backend_ = r.backend + " output via CUDA-GL interop";
            break;
        }
    }
    // No GPU ran (no driver, no device): the real kernel's output from the simulator, when it matched.
    const bool gpu_ran = std::any_of(last_run_->reports.begin(), last_run_->reports.end(), [](const auto& r) {
        return r.ran && r.kind == core::BackendKind::Gpu;
    });
    if (display_backend_.empty() && !gpu_ran && last_run_->simulated_output.size() == in.size()) {
        output_tex_->set_from_host(last_run_->simulated_output.ptr(), w, h, cr);
        display_backend_ = last_run_->simulated_backend + " output (the CUDA kernel, simulated on the CPU), host upload";
    }
    if (display_backend_.empty() && last_run_->reference_output.size() == in.size()) {
        output_tex_->set_from_host(last_run_->reference_output.ptr(), w, h, cr);
        display_backend_ = "cpu-scalar reference output, host upload";
    }
}

void ActivationView::draw_canvas() {
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const ImGuiStyle& st = ImGui::GetStyle();
    const float lh = ImGui::GetTextLineHeightWithSpacing();
    const float top_h = std::floor(avail.y * 0.52f);
    const float col_w = std::floor((avail.x - 2 * st.ItemSpacing.x) / 3.0f);
    const ImVec2 box{col_w, top_h - lh};

    auto picture = [&](const char* title, TensorTexture* tex, const char* tip) {
        ImGui::BeginGroup();
        ImGui::TextUnformatted(title);
        const ImVec2 p = ImGui::GetCursorScreenPos();
        // No run for these settings yet (the step's own is measuring): no picture, rather than the
        // last step's under this step's title.
        if (tex && tex->rgba_texture() != 0 && last_run_) {
            ImVec2 sz = fit(static_cast<float>(tex->width()), static_cast<float>(tex->height()), box);
            // Centre inside the box so the three columns line up whatever the aspect ratio.
            ImGui::SetCursorScreenPos({p.x + (box.x - sz.x) * 0.5f, p.y + (box.y - sz.y) * 0.5f});
            ImGui::Image(reinterpret_cast<ImTextureID>(static_cast<intptr_t>(tex->rgba_texture())), sz);
            hover_tip(tip);
            ImGui::SetCursorScreenPos(p);
        } else {
            ImGui::GetWindowDrawList()->AddRect(p, {p.x + box.x, p.y + box.y}, IM_COL32(80, 80, 80, 255), 3.0f);
            // A result that exists but could not be drawn says so (the status bar says why).
            const char* msg = host_.jobs->busy() || run_on_step_ ? "measuring..."
                              : last_run_ && !render_problem().empty() ? "picture not drawn (status bar)"
                                                                      : "press Run (R)";
            ImVec2 ts = ImGui::CalcTextSize(msg);
            ImGui::GetWindowDrawList()->AddText({p.x + (box.x - ts.x) * 0.5f, p.y + (box.y - ts.y) * 0.5f},
                                                IM_COL32(150, 150, 150, 255), msg);
        }
        ImGui::Dummy(box);
        ImGui::EndGroup();
    };
    std::string in_title = "input";
    std::string out_title = "output";
    if (last_run_ && last_run_->ok) {
        in_title += " " + last_run_->input.shape_string();
        // "GELU (tanh approx.)" reads as "GELU(input) (tanh approx.)".
        const std::string label(core::activation_label(last_run_->params.activation));
        const std::size_t note = std::min(label.find(" ("), label.size());
        out_title += " = " + label.substr(0, note) + "(input)" + label.substr(note);
    }
    picture(in_title.c_str(), input_tex_.get(),
            (std::string("The feature map every backend received: blue below zero, white at zero, ") +
             diverging_positive_word() + " above.")
                .c_str());
    ImGui::SameLine();
    picture(out_title.c_str(), output_tex_.get(),
            display_backend_.empty() ? "Output after the activation." : display_backend_.c_str());
    ImGui::SameLine();
    ImGui::BeginGroup();
    ImGui::Text("%s, x in [-4, 4]", std::string(core::activation_label(params_.activation)).c_str());
    // The curve gives up one line to the switch of the canvas below, which has no room to spare.
    draw_activation_curve({box.x, box.y - ImGui::GetFrameHeightWithSpacing()});
    ImGui::TextUnformatted("below:");
    ImGui::SameLine();
    if (ImGui::RadioButton("warps", !show_coalescing_)) show_coalescing_ = false;
    hover_tip("The picture of the idea: one core walks, warps of 32 threads flood.");
    ImGui::SameLine();
    if (ImGui::RadioButton("loads (traced)", show_coalescing_)) show_coalescing_ = true;
    hover_tip("The real CUDA kernel run on the simulator with every memory access recorded: how a warp's loads fall "
              "into 128-byte segments, and what a buffer one float off does to them.");
    ImGui::EndGroup();

    ImGui::Spacing();
    if (show_coalescing_) {
        ImGui::BeginChild("##coalescing", {avail.x, 0}, false, ImGuiWindowFlags_NavFlattened);
        draw_coalescing(ImGui::GetContentRegionAvail().x);
        ImGui::EndChild();
    } else {
        draw_element_grid(avail.x, ImGui::GetContentRegionAvail().y);
    }
}

void ActivationView::draw_activation_curve(ImVec2 size) {
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 p0 = ImGui::GetCursorScreenPos();
    ImGui::InvisibleButton("##curve", size);
    hover_tip("Every activation is drawn faintly; the current one is bright. Each output depends on one input only.");
    const ImVec2 p1{p0.x + size.x, p0.y + size.y};
    dl->AddRectFilled(p0, p1, IM_COL32(25, 27, 32, 255), 3.0f);
    const float x_lo = -4, x_hi = 4, y_lo = -1.5f, y_hi = 4.0f;
    const float pad = ImGui::GetFontSize() * 0.5f;
    auto to_screen = [&](float x, float y) {
        return ImVec2{p0.x + pad + (x - x_lo) / (x_hi - x_lo) * (size.x - 2 * pad),
                      p1.y - pad - (y - y_lo) / (y_hi - y_lo) * (size.y - 2 * pad)};
    };
    dl->PushClipRect(p0, p1, true);
    for (int i = -4; i <= 4; ++i) {
        dl->AddLine(to_screen(static_cast<float>(i), y_lo), to_screen(static_cast<float>(i), y_hi), IM_COL32(45, 48, 55, 255));
        if (i >= -1) dl->AddLine(to_screen(x_lo, static_cast<float>(i)), to_screen(x_hi, static_cast<float>(i)),
                                 IM_COL32(45, 48, 55, 255));
    }
    dl->AddLine(to_screen(x_lo, 0), to_screen(x_hi, 0), IM_COL32(140, 140, 140, 255), 1.5f);
    dl->AddLine(to_screen(0, y_lo), to_screen(0, y_hi), IM_COL32(140, 140, 140, 255), 1.5f);
    for (int i : {-4, -2, 2, 4}) {
        char t[8];
        std::snprintf(t, sizeof t, "%d", i);
        ImVec2 p = to_screen(static_cast<float>(i), 0);
        dl->AddText({p.x - 4, p.y + 2}, IM_COL32(150, 150, 150, 255), t);
    }
    // Tick labels only where they have room; in a small box they would sit on each other.
    const bool room = size.y > ImGui::GetFontSize() * 6.0f;
    for (int i : {1, 2, 3}) {
        if (!room) break;
        char t[8];
        std::snprintf(t, sizeof t, "%d", i);
        ImVec2 p = to_screen(0, static_cast<float>(i));
        dl->AddText({p.x + 4, p.y - ImGui::GetFontSize() * 0.5f}, IM_COL32(150, 150, 150, 255), t);
    }
    constexpr int kPoints = 161;
    for (int pass = 0; pass < 2; ++pass) {
        for (core::Activation a : core::kAllActivations) {
            const bool current = a == params_.activation;
            if (current != (pass == 1)) continue;  // the current curve is drawn last, on top
            ImVec2 pts[kPoints];
            for (int k = 0; k < kPoints; ++k) {
                float x = x_lo + (x_hi - x_lo) * static_cast<float>(k) / (kPoints - 1);
                pts[k] = to_screen(x, apply_activation(a, x, params_.leaky_alpha));
            }
            dl->AddPolyline(pts, kPoints, current ? IM_COL32(255, 200, 90, 255) : IM_COL32(120, 130, 150, 90),
                            ImDrawFlags_None, current ? 3.0f : 1.2f);
        }
    }
    dl->PopClipRect();
}

void ActivationView::draw_element_grid(float width, float height) {
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float lh = ImGui::GetTextLineHeightWithSpacing();
    // Real elements: a 16x8 block from the middle of the input the backends just processed.
    float values[kCells];
    float range = 3.0f;
    const bool have = last_run_ && last_run_->ok && last_run_->input.size() >= kCells;
    if (have) {
        const core::Tensor& in = last_run_->input;
        const int64_t h = in.shape.size() >= 2 ? in.shape[0] : 1;
        const int64_t w = in.size() / std::max<int64_t>(h, 1);
        const int64_t r0 = std::max<int64_t>(0, h / 2 - kGridRows / 2);
        const int64_t c0 = std::max<int64_t>(0, w / 2 - kGridCols / 2);
        float m = 0.0f;
        for (int i = 0; i < kCells; ++i) {
            int64_t r = std::min(r0 + i / kGridCols, h - 1), c = std::min(c0 + i % kGridCols, w - 1);
            int64_t idx = std::min(r * w + c, in.size() - 1);
            values[i] = in.data[static_cast<std::size_t>(idx)];
            m = std::max(m, std::fabs(values[i]));
        }
        range = m > 0 ? m : 1.0f;
    } else {
        for (int i = 0; i < kCells; ++i) values[i] = 2.5f * std::sin(0.7f * static_cast<float>(i % kGridCols)) *
                                                     std::cos(0.9f * static_cast<float>(i / kGridCols));
    }

    const bool show_cpu = anim_mode_ != 1, show_gpu = true;
    const int grids = (show_cpu ? 1 : 0) + (show_gpu ? 1 : 0);
    const float gap = ImGui::GetFontSize() * 1.5f;
    const float grid_w = (width - gap * static_cast<float>(grids - 1)) / static_cast<float>(grids);
    const float text_h = lh * 2.4f;  // up to two lines of measured medians under each grid
    // height covers the heading line above the grids, the grid titles and the medians.
    const float cell = std::max(4.0f, std::min(grid_w / kGridCols, (height - text_h - 2.0f * lh) / kGridRows));

    const int cpu_cycle = kCells + 12;
    const int cpu_pos = static_cast<int>(anim_time_ / kCpuSecondsPerCell) % cpu_cycle;
    const int gpu_steps = kCells / kWarp / kWarpsPerStep;
    const int gpu_step = static_cast<int>(anim_time_ / kGpuSecondsPerStep) % (gpu_steps + 2);

    ImGui::TextColored(kAccentColour, "A picture of the idea, not a measurement:");
    ImGui::SameLine();
    ImGui::PushStyleColor(ImGuiCol_Text, kMutedColour);
    ImGui::TextWrapped("real input values from the middle of the tensor; bright = being computed");
    ImGui::PopStyleColor();
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    const float alpha = params_.leaky_alpha;
    const core::Activation act = last_run_ && last_run_->ok ? last_run_->params.activation : params_.activation;

    auto draw_grid = [&](float x0, bool gpu) {
        const char* title = gpu ? "GPU: warps of 32 threads run together" : "CPU: one core, one element after another";
        // Narrow canvas: the short title, so the two headings never run into each other.
        if (ImGui::CalcTextSize(title).x > grid_w) title = gpu ? "GPU: warps of 32" : "CPU: one core";
        dl->AddText({x0, origin.y}, IM_COL32(230, 230, 230, 255), title);
        const float y0 = origin.y + lh;
        for (int i = 0; i < kCells; ++i) {
            const int r = i / kGridCols, c = i % kGridCols;
            bool done, active;
            if (gpu) {
                const int warp = i / kWarp;
                const int first_active = gpu_step * kWarpsPerStep;
                done = warp < first_active;
                active = warp >= first_active && warp < first_active + kWarpsPerStep && gpu_step < gpu_steps;
            } else {
                done = i < cpu_pos;
                active = i == cpu_pos;
            }
            const float v = done || active ? apply_activation(act, values[i], alpha) : values[i];
            const ImVec2 a{x0 + static_cast<float>(c) * cell, y0 + static_cast<float>(r) * cell};
            const ImVec2 b{a.x + cell - 1.0f, a.y + cell - 1.0f};
            dl->AddRectFilled(a, b, diverging_colour(v, range));
            if (active) dl->AddRect({a.x - 1, a.y - 1}, {b.x + 1, b.y + 1}, IM_COL32(255, 210, 60, 255), 0, 0, 2.5f);
        }
        if (gpu) {
            // Warp boundaries: 32 cells = two rows of 16.
            for (int wb = 1; wb < kCells / kWarp; ++wb) {
                const float y = y0 + static_cast<float>(wb * kWarp / kGridCols) * cell - 1.0f;
                dl->AddLine({x0 - 3, y}, {x0 + kGridCols * cell + 2, y}, IM_COL32(40, 40, 40, 255), 2.0f);
            }
        }
        // The real medians beside the picture, per side.
        float ty = y0 + kGridRows * cell + 4.0f;
        dl->AddText({x0, ty}, IM_COL32(160, 160, 160, 255), "measured:");
        float tx = x0 + ImGui::CalcTextSize("measured: ").x;
        const float right = x0 + std::max(grid_w, kGridCols * cell);
        for (std::size_t k = 0; k < host_.backends.size(); ++k) {
            const core::Backend* be = host_.backends[k];
            // The GPU side lists the GPU backends and cuda-sim (the same kernel, simulated).
            if ((be->kind() != core::BackendKind::Cpu) != gpu) continue;
            std::string t = std::string(be->name());
            const core::BackendReport* rep = nullptr;
            if (last_run_ && last_run_->ok && k < last_run_->reports.size()) rep = &last_run_->reports[k];
            ImU32 col = IM_COL32(230, 230, 230, 255);
            if (rep && rep->ran && !core::kind_is_timed(rep->kind)) {
                t += " simulated in ";  // the simulator's time, never read as a GPU's
                t += core::format_duration(rep->total.median_ns);
                col = IM_COL32(170, 170, 170, 255);
            } else if (rep && rep->ran) {
                t += ' ';
                t += core::format_duration(rep->total.median_ns);
            } else {
                core::Availability av = gpu::availability_now(*be);
                // Two words for a machine without a GPU (the Devices panel says why in full), else the
                // first clause names the cause.
                std::string why = core::plain_gpu_reason(av.reason).empty() ? av.reason.substr(0, av.reason.find(':'))
                                                                             : "no GPU here";
                if (rep && !rep->error.empty()) {
                    t += " failed (see Timing)";  // the run's own error, in full, is in the timing table
                } else if (av.ok) {
                    t += " not measured yet";
                } else {
                    t += " not run (";
                    t += why;
                    t += ")";
                }
                col = IM_COL32(150, 150, 150, 255);
            }
            const float tw = ImGui::CalcTextSize(t.c_str()).x;
            if (tx + tw > right && tx > x0 + ImGui::CalcTextSize("measured: ").x) {
                tx = x0 + ImGui::CalcTextSize("measured: ").x;
                ty += ImGui::GetTextLineHeight();
            }
            dl->PushClipRect({x0, ty}, {right, ty + ImGui::GetTextLineHeight()}, true);
            dl->AddText({tx, ty}, col, t.c_str());
            dl->PopClipRect();
            tx += tw + ImGui::GetFontSize();
        }
    };
    float x = origin.x;
    if (show_cpu) {
        draw_grid(x, false);
        x += grid_w + gap;
    }
    if (show_gpu) draw_grid(x, true);
    ImGui::Dummy({width, lh + kGridRows * cell + text_h});
}

}  // namespace gpulab::app
