// The tensor-core lesson's "Speed" panel (issue 29 part 4, CPU side): the same 512 x 512 x 512
// product in FP32 and with BF16 inputs, through gpulab's own kernels and through oneDNN, measured
// on this computer by core::measure_gemm_speed, then through cuBLAS on the GPU in FP32, TF32, FP16
// and BF16 (gpu::measure_cublas_gemm; "no GPU here" rows without one): a bar per row (median
// GFLOP/s, the spread as a whisker), the path that ran or why a row did not run, and a line on how
// the GPU rows were timed. Checked by eye in the screenshots of the speed step.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "gpu_backends.h"
#include "gpu_model/tensor_peaks.h"
#include "libraries/cublas_gemm_precision.h"
#include "measure/format.h"
#include "tensor_view.h"
#include "views/compare_view.h"
#include "views/timing_plot.h"
#include "widgets/ui_helpers.h"

namespace gpulab::app {

std::string gflops_text(double g) {
    char buf[32];
    std::snprintf(buf, sizeof buf, g >= 100 ? "%.0f GFLOP/s" : "%.1f GFLOP/s", g);
    return buf;
}

namespace {

// "cpu-parallel (ours, AMX)", "cuda-kernel (ours, mma.sync)", "cpu-onednn": who ran the row.
std::string row_owner(const core::GemmSpeedRow& r) {
    if (!r.instruction.empty()) return r.backend + " (ours, " + r.instruction + ")";
    return r.backend + (r.backend == "cpu-parallel" ? " (ours)" : "");
}

std::string row_name(const core::GemmSpeedRow& r) {
    return row_owner(r) + ", " + core::format_label(r.inputs) + " inputs" + (r.source.empty() ? "" : " (recorded)");
}

// Rows drawn as one: a row that ran, or consecutive rows of one backend that did not run for the
// same reason (the four gpu-cublas rows without a GPU), so a reason is said once, not four times.
struct SpeedLine {
    std::size_t first = 0, count = 1;
    std::string name;
};

std::vector<SpeedLine> speed_lines(const core::GemmSpeedRun& run) {
    std::vector<SpeedLine> lines;
    for (std::size_t i = 0; i < run.rows.size(); ++i) {
        const core::GemmSpeedRow& r = run.rows[i];
        if (!lines.empty()) {
            SpeedLine& last = lines.back();
            const core::GemmSpeedRow& prev = run.rows[last.first];
            if (!r.ran && !prev.ran && row_owner(r) == row_owner(prev) && r.path == prev.path) {
                ++last.count;
                continue;
            }
        }
        lines.push_back({i, 1, row_name(r)});
    }
    for (SpeedLine& l : lines) {
        if (l.count == 1) continue;
        std::string formats;
        for (std::size_t k = 0; k < l.count; ++k) {
            formats += k == 0 ? "" : k + 1 == l.count ? " and " : ", ";
            formats += core::format_label(run.rows[l.first + k].inputs);
        }
        l.name = row_owner(run.rows[l.first]) + ", " + formats + " inputs";
    }
    return lines;
}

}  // namespace

void draw_speed_bars(const core::GemmSpeedRun& run, float width) {
    if (run.rows.empty()) return;
    double top = 1.0;
    for (const core::GemmSpeedRow& r : run.rows)
        if (r.ran) top = std::max(top, r.gflops_max);
    const std::vector<SpeedLine> lines = speed_lines(run);
    const float lh = ImGui::GetTextLineHeightWithSpacing();
    float label_w = 0.0f;
    for (const SpeedLine& l : lines) label_w = std::max(label_w, ImGui::CalcTextSize(l.name.c_str()).x);
    label_w += lh * 0.6f;
    // As wide as the widest value (a recorded GPU row runs to five digits).
    float value_w = ImGui::CalcTextSize("8888 GFLOP/s").x;
    for (const core::GemmSpeedRow& r : run.rows)
        if (r.ran) value_w = std::max(value_w, ImGui::CalcTextSize(gflops_text(r.gflops).c_str()).x);
    value_w += lh * 0.6f;
    const float bar_max = std::max(width - label_w - value_w, lh * 4.0f);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    for (std::size_t li = 0; li < lines.size(); ++li) {
        const SpeedLine& line = lines[li];
        const core::GemmSpeedRow& r = run.rows[line.first];
        // Lines of different backends that did not run for the same reason (cuBLAS and our kernel
        // without a GPU) stand one under the other with the reason said once, under the last.
        if (!r.ran && li + 1 < lines.size()) {
            const core::GemmSpeedRow& next = run.rows[lines[li + 1].first];
            if (!next.ran && next.path == r.path) {
                ImGui::TextUnformatted(line.name.c_str());
                continue;
            }
        }
        const ImVec2 o = ImGui::GetCursorScreenPos();
        const ImU32 colour = backend_color(r.backend);
        dl->AddText(o, ImGui::GetColorU32(ImGuiCol_Text), line.name.c_str());
        if (r.ran) {
            const auto x_of = [&](double g) { return o.x + label_w + static_cast<float>(g / top) * bar_max; };
            // BF16 rows hatched as well as lighter, so FP32 and BF16 differ without colour; a recorded
            // row outlined and hatched, as another computer's bars are in every lesson.
            const ImU32 fill = r.inputs == core::FpFormat::Fp32 ? colour : (colour & 0x00FFFFFF) | 0x99000000;
            if (!r.source.empty())
                draw_hatched_bar(dl, {o.x + label_w, o.y + 3}, {std::max(x_of(r.gflops), o.x + label_w + 2.0f), o.y + lh - 5},
                                 colour);
            else
                dl->AddRectFilled({o.x + label_w, o.y + 3}, {x_of(r.gflops), o.y + lh - 5}, fill);
            if (r.source.empty() && r.inputs != core::FpFormat::Fp32)
                for (float x = o.x + label_w; x < x_of(r.gflops); x += lh * 0.35f)
                    dl->AddLine({x, o.y + lh - 5}, {std::min(x + lh * 0.5f, x_of(r.gflops)), o.y + 3},
                                IM_COL32(0, 0, 0, 110));
            const float mid = o.y + lh * 0.5f - 1;
            dl->AddLine({x_of(r.gflops_min), mid}, {x_of(r.gflops_max), mid}, ImGui::GetColorU32(ImGuiCol_Text));
            dl->AddText({o.x + label_w + bar_max + lh * 0.3f, o.y}, ImGui::GetColorU32(ImGuiCol_Text),
                        gflops_text(r.gflops).c_str());
            ImGui::Dummy({width, lh});
        }
        // The path that ran (or why not), muted and wrapped under the bar; a row that did not run says
        // so on its own line.
        ImGui::Indent(label_w);
        ImGui::PushTextWrapPos(0.0f);
        if (r.ran && !r.source.empty())
            ImGui::TextColored(kMutedColour, "%s; not this computer: %s", r.source.c_str(), r.path.c_str());
        else if (r.ran)
            ImGui::TextColored(kMutedColour, "%s%s", r.path.c_str(),
                               r.check_pass ? "" : "  (the check against the exact sum FAILED)");
        else {
            // The student's words (not_run_line: "not run: no GPU here"); the driver's in the tooltip.
            const std::string line = not_run_line(r.path);
            ImGui::TextColored(kMutedColour, "%s", line.c_str());
            if (line != "not run: " + r.path) hover_tip(("not run: " + r.path).c_str());
        }
        ImGui::PopTextWrapPos();
        ImGui::Unindent(label_w);
    }
}

core::GemmSpeedRun with_recorded_rows(const core::GemmSpeedRun& run, const core::ImportedTensorSpeed* recorded) {
    core::GemmSpeedRun out = run;
    if (!recorded) return out;
    for (core::GemmSpeedRow& r : out.rows) {
        if (r.ran || !core::recorded_gpu_backend(r.backend)) continue;
        const core::ImportedSpeedRow* theirs = recorded->find(r.backend, core::format_label(r.inputs), run.size);
        if (!theirs || !theirs->ran) continue;
        r.ran = r.native = r.check_pass = true;  // a recorded row that ran passed its check there
        r.gflops = theirs->gflops;
        r.gflops_min = theirs->gflops_min;
        r.gflops_max = theirs->gflops_max;
        r.path = theirs->path;
        r.source = recorded->recorded_source;
    }
    return out;
}

void draw_speed_gpu_note(const core::GemmSpeedRun& run) {
    bool gpu_ran = false;
    std::string recorded;
    for (const core::GemmSpeedRow& r : run.rows) {
        if (r.backend == gpu::kCublasGemmBackend && r.ran && r.source.empty()) gpu_ran = true;
        if (r.ran && !r.source.empty()) recorded = r.source;
    }
    if (!recorded.empty()) {
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextColored(kMutedColour,
                           "The rows marked (recorded) are %s; not this computer: cuBLAS and gpulab's own mma.sync "
                           "kernel timed there with CUDA events around the product alone, the matrices already on the "
                           "GPU, so their gap to this CPU's rows is two computers' and not a copy's.",
                           recorded.c_str());
        ImGui::PopTextWrapPos();
    }
    ImGui::PushTextWrapPos(0.0f);
    // The GPU rows time cublasGemmEx alone with CUDA events (no copies), the CPU rows the whole call:
    // said here so nobody reads the gap as the cost of a copy-in, copy-out product.
    ImGui::TextColored(kMutedColour, "%s",
                       gpu_ran ? "The gpu-cublas rows are cuBLAS on this computer's NVIDIA GPU: FP32 on the ordinary "
                                 "units, TF32, FP16 and BF16 on tensor cores, FP32 sums in each; the cuda-kernel rows are "
                                 "gpulab's own tensor-core kernel (mma.sync). Both timed with CUDA events around the "
                                 "product alone, the matrices already on the GPU."
                               : "The gpu-cublas rows (cuBLAS in FP32, and TF32, FP16 and BF16 on tensor cores) and the "
                                 "cuda-kernel rows (gpulab's own mma.sync kernel) need an NVIDIA GPU: not run here (why: "
                                 "above).");
    // The device's published peaks beside what ran on it, or, without a GPU, an example's: labelled
    // as the vendor's figures either way (core/gpu_model/tensor_peaks.h).
    const gpu::GpuProbe& g = gpu::probe();
    const core::PublishedTensorPeaks* peaks = g.device_ok ? core::published_tensor_peaks(g.name) : nullptr;
    const core::PublishedTensorPeaks* shown = gpu_ran && peaks ? peaks : !g.device_ok ? &core::example_tensor_peaks() : nullptr;
    if (shown != nullptr) {
        ImGui::TextColored(kMutedColour, "%s: %s.", shown == peaks ? "For this GPU" : "For scale, an example",
                           core::describe_tensor_peaks(*shown).c_str());
        if (const std::string note = core::tensor_peak_instruction_note(*shown); !note.empty())
            ImGui::TextColored(kMutedColour, "%s.", note.c_str());
    }
    ImGui::PopTextWrapPos();
}

core::GemmSpeedRun TensorView::shown_speed() const {
    if (!result_) return {};
    const core::GemmSpeedRun& run = result_->speed;
    const core::ImportedTensorSpeed* recorded = recorded_speed_.get(std::to_string(run.size), [&] {
        return recorded_match<core::ImportedTensorSpeed>(
            "tensor", core::tensor_speed_comparison, [&](const core::ImportedTensorSpeed& t) {
                for (const core::ImportedSpeedRow& r : t.rows)
                    if (r.ran && r.size == run.size && core::recorded_gpu_backend(r.backend)) return true;
                return false;
            });
    });
    return with_recorded_rows(run, recorded);
}

void TensorView::draw_speed_panel() {
    if (!result_) {
        draw_result_note();
        return;
    }
    const core::GemmSpeedRun& s = result_->speed;
    const core::GemmSpeedRun shown = shown_speed();
    const bool recorded = std::any_of(shown.rows.begin(), shown.rows.end(), [](const core::GemmSpeedRow& r) { return !r.source.empty(); });
    ImGui::TextWrapped("One %s x %s x %s matrix product (%s multiply-adds), FP32 sums in every row; the BF16 rows "
                       "round A and B to BF16 first. Measured now, on this computer%s: the median of several runs, "
                       "the line from the slowest to the fastest.",
                       core::format_count(s.size).c_str(), core::format_count(s.size).c_str(),
                       core::format_count(s.size).c_str(), core::format_count(s.size * s.size * s.size).c_str(),
                       recorded ? " (the rows marked recorded: on another one, as their lines say)" : "");
    ImGui::Spacing();
    draw_speed_bars(shown, ImGui::GetContentRegionAvail().x);
    ImGui::Spacing();
    draw_speed_gpu_note(shown);
}

}  // namespace gpulab::app
