// The convolution lesson's comparison with another machine: loading its exported <lesson>-conv.csv
// and, under the live backend bars, a pair of bars per backend: this machine's solid, the other
// machine's outlined and hatched (the activation lesson's style, app/views/compare_view.h), both scaled
// by GFLOP/s so longer is faster as in the bars above, each with its median and GFLOP/s. When the
// other machine convolved a different N,C,H,W,K,R,S shape a red line says so beside the bars.
// The Timing window and the exported PNG draw the same function. Checked by the compare.conv_*
// tests and by eye in the exported PNG.
#include <algorithm>

#include "views/compare_view.h"
#include "conv2d_view.h"
#include "measure/format.h"
#include "views/timing_plot.h"
#include "widgets/ui_helpers.h"

namespace gpulab::app {

bool Conv2dView::load_comparison(const std::string& path, std::string& error) {
    return load_other_machine(path, "conv2d", core::conv_comparison, host_, other_, error);
}

namespace {

// Where the recording has no run of this shape and our kernel did not run here: its time on the
// estimated GPU from the convolution's arithmetic and its data's bytes (the simulator's count when
// cuda-sim ran, else input, filters and output once), labelled as an estimate. Null when our kernel
// ran here: a measurement needs no estimate beside it.
std::unique_ptr<core::ImportedConv> estimated_conv(const core::Conv2dRun& run) {
    const core::BackendReport* simulated = nullptr;
    for (const auto& r : run.reports) {
        if (r.backend == "cuda-kernel" && r.ran) return nullptr;
        if (r.kind == core::BackendKind::Simulated && r.ran) simulated = &r;
    }
    const int64_t in_bytes = static_cast<int64_t>(run.input.bytes() + run.filters.bytes());
    const int64_t out_bytes = static_cast<int64_t>(run.reference_output.bytes());
    core::KernelWork work;
    work.data_bytes = simulated && simulated->unique_bytes > 0 ? simulated->unique_bytes : in_bytes + out_bytes;
    work.flops = static_cast<int64_t>(run.desc.flops());
    work.upload_bytes = in_bytes;
    work.download_bytes = out_bytes;
    const core::PublishedGpu& gpu = estimated_gpu();
    const core::GpuEstimate e = core::estimate_gpu_time(work, gpu);
    auto out = std::make_unique<core::ImportedConv>();
    core::mark_as_estimate(*out, gpu);
    out->shape = run.desc.to_string();
    core::ImportedConvBackend b;
    b.backend = "cuda-kernel";
    b.ran = true;
    b.median_ns = b.min_ns = b.max_ns = e.total_ns();
    b.gflops = e.kernel_ns > 0 ? run.desc.flops() / static_cast<double>(e.kernel_ns) : 0.0;
    b.note = std::string("model: ") + e.bound + "-bound kernel, copies included";
    out->backends.push_back(b);
    return out;
}

}  // namespace

const core::ImportedConv* Conv2dView::comparison(const core::Conv2dRun& run) const {
    if (other_) return other_.get();
    const std::string shape = run.desc.to_string();
    return recorded_.get(shape, [&] {
        auto m = recorded_match<core::ImportedConv>("conv2d", core::conv_comparison,
                                                    [&](const core::ImportedConv& c) { return c.shape == shape; });
        // Its GPU rows only: the recording computer's CPU is not the one a student compares with.
        if (m) std::erase_if(m->backends, [](const core::ImportedConvBackend& b) { return !b.ran || !core::recorded_gpu_backend(b.backend); });
        if (m && m->backends.empty()) m.reset();
        return m ? std::move(m) : estimated_conv(run);
    });
}

std::string Conv2dView::comparison_mismatch(const core::Conv2dRun& run) const {
    const core::ImportedConv* other = comparison(run);
    if (!other) return {};
    const std::string mine = run.desc.to_string();
    if (other->shape.empty() || other->shape == mine) return {};
    // This machine's shape is on the line above the bars and in the caption: only the other one here.
    return "not the same convolution: the " + other_name(*other) + " ran " + other->shape +
           " (GFLOP/s still compare; medians do not)";
}

std::vector<std::string> Conv2dView::comparison_caption(const core::Conv2dRun& run) const {
    const core::ImportedConv* other = comparison(run);
    if (!other) return {};
    const std::string how = other_ ? other_name(*other) + "'s bars (outlined, hatched) under this machine's, same colours"
                                   : other_name(*other) + ": the hatched GPU rows, on the same scale as this machine's bars";
    return compare_caption_lines(*other, how, comparison_mismatch(run));
}

void Conv2dView::draw_comparison_bars(const core::Conv2dRun& run, float width) const {
    const core::ImportedConv* other = comparison(run);
    if (!other) return;
    const core::ImportedConv& o = *other;
    const bool recorded = !o.recorded_source.empty();
    ImGui::Spacing();
    draw_compare_legend(o, CompareSwatch::Bars, comparison_mismatch(run), width);

    // Rows: this machine's backends in its order, then any only the other machine listed.
    // A simulated backend (cuda-sim) has no speed to compare, here or there: left out on both sides.
    std::vector<std::string> names, simulated;
    for (const auto& r : run.reports) (core::kind_is_timed(r.kind) ? names : simulated).push_back(r.backend);
    for (const auto& b : o.backends)
        if (std::find(names.begin(), names.end(), b.backend) == names.end() &&
            std::find(simulated.begin(), simulated.end(), b.backend) == simulated.end())
            names.push_back(b.backend);
    double best = 0.0;
    for (const auto& r : run.reports)
        if (r.ran) best = std::max(best, r.gflops);
    for (const auto& b : o.backends)
        if (b.ran && std::find(names.begin(), names.end(), b.backend) != names.end()) best = std::max(best, b.gflops);

    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float lh = ImGui::GetTextLineHeight();
    const float row_h = lh * 2.5f;
    float name_w = 0.0f;
    for (const auto& n : names) name_w = std::max(name_w, ImGui::CalcTextSize(n.c_str()).x);
    name_w += lh;
    const float value_w = ImGui::CalcTextSize((other_value_prefix(o) + "0000.00 GFLOP/s, 000.0 ms").c_str()).x + lh * 0.6f;
    const float bar_w = std::max(width - name_w - value_w, lh * 6.0f);
    const ImVec2 p0 = ImGui::GetCursorScreenPos();
    ImGui::Dummy({std::max(width, 1.0f), row_h * static_cast<float>(names.size())});
    const ImU32 text_c = IM_COL32(230, 230, 230, 255);
    const ImU32 grey = IM_COL32(150, 150, 155, 255);
    float y = p0.y;
    for (const std::string& name : names) {
        const core::BackendReport* mine = nullptr;
        for (const auto& r : run.reports)
            if (r.backend == name) mine = &r;
        const core::ImportedConvBackend* theirs = o.find(name);
        dl->AddText({p0.x, y + (row_h - lh) * 0.5f}, mine && mine->ran ? text_c : grey, name.c_str());
        const float bx = p0.x + name_w;
        for (int half = 0; half < 2; ++half) {
            const float top = y + row_h * (half == 0 ? 0.08f : 0.52f), bottom = y + row_h * (half == 0 ? 0.48f : 0.92f);
            const float ty = (top + bottom - lh) * 0.5f;
            const bool ran = half == 0 ? mine && mine->ran : theirs && theirs->ran;
            // A recording brings GPU rows only: a CPU row has this machine's bar alone, on the same scale.
            if (!ran && half == 1 && recorded && !theirs) continue;
            if (!ran) {
                const char* why = half == 0
                                      ? (mine ? "this machine: not run here" : "this machine: no such backend")
                                      : nullptr;
                const std::string there = other_name(o) + (theirs ? ": not run there" : ": not listed there");
                dl->AddText({bx, ty}, grey, why ? why : there.c_str());
                continue;
            }
            const double gflops = half == 0 ? mine->gflops : theirs->gflops;
            const int64_t median = half == 0 ? mine->total.median_ns : theirs->median_ns;
            const float len = best > 0.0 ? static_cast<float>(gflops / best) * bar_w : 0.0f;
            const ImVec2 a{bx, top}, b{bx + std::max(len, 2.0f), bottom};
            if (half == 0)
                dl->AddRectFilled(a, b, backend_color(name, 0.85f), 2.0f);
            else
                draw_hatched_bar(dl, a, b, backend_color(name, 0.95f));
            char value[96];
            std::snprintf(value, sizeof value, "%s%.2f GFLOP/s, %s", half == 0 ? "" : other_value_prefix(o).c_str(), gflops,
                          core::format_duration(median).c_str());
            dl->AddText({bx + bar_w + lh * 0.4f, ty}, text_c, value);
        }
        y += row_h;
    }
}

}  // namespace gpulab::app
