// The convolution lesson's controls (filter, custom kernel grid, padding, stride, input picture or
// built-in image size, CNN-layer mode with C and K, Run / Cancel with progress) and its Timing
// window (the step's predict prompt with its live answer, then one bar per backend: GFLOP/s, median
// with min-max, the ratio to the plain loop, the implementation each library ran, the verdict).
// Every control has a tooltip. Checked in the GUI screenshots of each step and the exported PNG.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <string>

#include "conv2d_view.h"
#include "measure/format.h"
#include "gpu_model/gpu_model.h"
#include "views/compare_view.h"
#include "views/recorded_gpu.h"
#include "views/run_row.h"
#include "views/timing_plot.h"
#include "widgets/diverging_map.h"
#include "widgets/ui_helpers.h"

namespace gpulab::app {

namespace {

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
    return s;
}

const core::BackendReport* find(const core::Conv2dRun& run, std::string_view name) {
    for (const auto& r : run.reports)
        if (r.backend == name) return &r;
    return nullptr;
}

}  // namespace

// [SECTION] controls

void Conv2dView::draw_custom_editor() {
    const float fs = ImGui::GetFontSize();
    int size_index = (custom_size_ - 3) / 2;
    ImGui::SetNextItemWidth(fs * 5.0f);
    if (ImGui::Combo("size##custom", &size_index,
                     "3x3\0"
                     "5x5\0"
                     "7x7\0")) {
        const int old = custom_size_;
        const int next = 3 + 2 * size_index;
        // Keep the values centred: a 3x3 kernel grown to 5x5 sits in the middle of the new grid.
        std::vector<float> v(49, 0.0f);
        const int shift = (next - old) / 2;
        for (int r = 0; r < old; ++r)
            for (int c = 0; c < old; ++c) {
                const int nr = r + shift, nc = c + shift;
                if (nr >= 0 && nr < next && nc >= 0 && nc < next) v[nr * next + nc] = custom_values_[r * old + c];
            }
        custom_values_ = v;
        custom_size_ = next;
    }
    hover_tip("Odd sizes only here, so that zero padding can be the same on every side and the output keeps the "
              "input's size. Even filters are legal in CNNs; they just cannot pad symmetrically.");
    const float cell_w =
        std::min(fs * 3.2f, (ImGui::GetContentRegionAvail().x - fs) / static_cast<float>(custom_size_));
    ImGui::PushStyleVar(ImGuiStyleVar_ItemSpacing, {2, 2});
    for (int r = 0; r < custom_size_; ++r) {
        for (int c = 0; c < custom_size_; ++c) {
            if (c > 0) ImGui::SameLine();
            float& v = custom_values_[r * custom_size_ + c];
            // The map's end for the sign, darkened towards the frame's grey so the white number stays readable.
            const ImVec4 end = to_vec4(diverging_rgb(diverging_ramp(), v > 0 ? 1.0f : -1.0f));
            const ImVec4 col = v == 0 ? ImVec4(0.20f, 0.21f, 0.24f, 1)
                                      : ImVec4(end.x * 0.55f + 0.09f, end.y * 0.55f + 0.095f, end.z * 0.55f + 0.11f, 1);
            ImGui::PushStyleColor(ImGuiCol_FrameBg, col);
            ImGui::PushID(r * 7 + c);
            ImGui::SetNextItemWidth(cell_w);
            ImGui::DragFloat("##w", &v, 0.05f, -100.0f, 100.0f, "%.2f", ImGuiSliderFlags_AlwaysClamp);
            ImGui::PopID();
            ImGui::PopStyleColor();
        }
    }
    ImGui::PopStyleVar();
    const std::string tip = std::string("Drag or double-click a number to type it. Cells in ") +
                            diverging_positive_word() + " add the pixel, cells in blue subtract it. Press Run to apply.";
    hover_tip(tip.c_str());
}

void Conv2dView::draw_filter_controls() {
    const std::vector<std::string> names = core::named_filters();
    if (ImGui::BeginCombo("filter", params_.filter.c_str())) {
        for (const std::string& n : names)
            if (ImGui::Selectable(n.c_str(), n == params_.filter)) params_.filter = n;
        if (ImGui::Selectable("custom", params_.filter == "custom")) {
            // Start the editor from the filter in use, so editing means changing, not retyping.
            if (params_.filter != "custom" && result_ && result_->run.filters.size() > 0) {
                const int64_t k = result_->run.desc.kernel;
                if (k == 3 || k == 5 || k == 7) {
                    custom_size_ = static_cast<int>(k);
                    std::fill(custom_values_.begin(), custom_values_.end(), 0.0f);
                    std::copy(result_->run.filters.data.begin(), result_->run.filters.data.begin() + k * k,
                              custom_values_.begin());
                }
            }
            params_.filter = "custom";
            params_.filter_path.clear();
        }
        ImGui::EndCombo();
    }
    hover_tip(
        "identity copies the input; box and gaussian blur; sharpen boosts edges; sobel-x / sobel-y find "
        "vertical / horizontal edges (signed); laplacian finds edges in every direction; emboss lights "
        "the picture from one side; custom is yours to edit.");
    if (params_.filter == "box" || params_.filter == "gaussian") {
        int k = static_cast<int>(params_.kernel);
        // Its own label: "size" was also the picture's slider, and two items with one id in a window
        // share their drag state in ImGui.
        if (ImGui::SliderInt("filter size", &k, 3, 7, "%d", ImGuiSliderFlags_AlwaysClamp)) params_.kernel = k | 1;
        hover_tip("Filter width and height (odd). A larger blur averages more neighbours: more work per output.");
    }
    if (params_.filter == "custom") draw_custom_editor();
    int pad = params_.padding == core::Padding::Zero ? 0 : 1;
    ImGui::TextUnformatted("padding");
    ImGui::SameLine();
    if (ImGui::RadioButton("zero", pad == 0)) params_.padding = core::Padding::Zero;
    hover_tip("Pretend the picture is surrounded by zeros: the output keeps the input's size (stride 1).");
    ImGui::SameLine();
    if (ImGui::RadioButton("none", pad == 1)) params_.padding = core::Padding::None;
    hover_tip("Only positions where the whole window fits: the output shrinks by (size - 1) on each axis.");
    ImGui::SameLine();
    ImGui::TextUnformatted("  stride");
    ImGui::SameLine();
    if (ImGui::RadioButton("1", params_.stride == 1)) params_.stride = 1;
    ImGui::SameLine();
    if (ImGui::RadioButton("2", params_.stride == 2)) params_.stride = 2;
    hover_tip(
        "How far the window moves between outputs. Stride 2 skips every other position: a quarter of the "
        "outputs.");
}

void Conv2dView::draw_controls() {
    const float label_w = ImGui::GetFontSize() * 6.0f;
    ImGui::PushItemWidth(-label_w);
    ImGui::Checkbox("CNN layer (C channels, K filters)", &params_.layer_mode);
    hover_tip(
        "Random C-channel input and K random filters of C x R x S, as inside a CNN. Off: one filter over one "
        "grayscale picture.");
    if (params_.layer_mode) {
        int c = static_cast<int>(params_.channels), k = static_cast<int>(params_.filters);
        if (ImGui::SliderInt("channels C", &c, 1, 64, "%d", ImGuiSliderFlags_AlwaysClamp)) params_.channels = c;
        hover_tip("Input channels: 3 for a colour picture, dozens to hundreds inside a CNN. Every filter reads all "
                  "of them, so each output value costs C x R x S multiply-adds.");
        if (ImGui::SliderInt("filters K", &k, 1, 64, "%d", ImGuiSliderFlags_AlwaysClamp)) params_.filters = k;
        hover_tip("Number of filters, one output map each. More filters: more output maps, all independent.");
        int side = static_cast<int>(params_.height);
        if (ImGui::SliderInt("H = W", &side, 16, 512, "%d px",
                             ImGuiSliderFlags_AlwaysClamp | ImGuiSliderFlags_Logarithmic))
            params_.height = params_.width = side;
        hover_tip("Height and width of each input channel (random values, as in an untrained layer).");
        int ks = static_cast<int>(params_.kernel);
        if (ImGui::SliderInt("R = S", &ks, 1, 7, "%d", ImGuiSliderFlags_AlwaysClamp)) params_.kernel = ks | 1;
        hover_tip("Filter size of the layer (odd).");
    } else {
        int input_mode = params_.per_channel ? 1 : 0;
        if (ImGui::Combo("input", &input_mode,
                         "grayscale\0"
                         "per channel (R, G, B)\0"))
            params_.per_channel = input_mode == 1;
        hover_tip(
            "Grayscale: the picture's brightness, one plane. Per channel: the colour picture as three planes R, G "
            "and B, and the same filter runs over each plane on its own: three one-channel pictures with one shared "
            "filter (every backend gets N=3 pictures of C=1 channel). A CNN layer does NOT do this: each of its filters sums over all "
            "input channels (tick 'CNN layer' and look at the Channels tab).");
        draw_filter_controls();
        if (ImGui::RadioButton("built-in image", !use_file_)) use_file_ = false;
        hover_tip("A photo-like test picture: gradients, discs, edges, stripes and fine texture.");
        ImGui::SameLine();
        if (ImGui::RadioButton("picture file", use_file_)) use_file_ = true;
        hover_tip("Any PNG or JPG, converted to gray (or split into R, G, B per channel). You can also drop a file "
                  "on the window.");
        if (use_file_) {
            ImGui::InputTextWithHint("path", "path to a .png or .jpg", path_buf_, sizeof path_buf_);
            hover_tip("Path of a picture; or drag and drop a file onto the window.");
            ImGui::SameLine();
            if (ImGui::SmallButton("Load") && try_load_image(path_buf_) && !host_.jobs->busy()) start_run();
            hover_tip("Read the picture now and run on it; an unreadable file leaves the previous input in place.");
            if (!loaded_image_.empty())
                ImGui::TextColored(kMutedColour, "in use: %s", loaded_image_.c_str());
            else
                ImGui::TextColored(kMutedColour, "no picture loaded yet");
        } else {
            int side = static_cast<int>(params_.height);
            if (ImGui::SliderInt("image size", &side, 32, 4096, "%d px",
                                 ImGuiSliderFlags_AlwaysClamp | ImGuiSliderFlags_Logarithmic))
                params_.height = params_.width = side;
            hover_tip(
                "Height and width of the built-in picture. Larger pictures show the GPU's advantage; the "
                "sliding window then has more positions to visit.");
        }
    }
    ImGui::PopItemWidth();
    ImGui::Spacing();
    ImGui::Separator();
    if (draw_run_row(*host_.jobs, "Run (R)",
                     "Runs the convolution on every backend (warm-up, then repeated timed runs), checks each output "
                     "against cpu-scalar, then pools the result.",
                     "Stop at the next checkpoint; the previous result stays on screen.",
                     has_result() ? "idle: the panels show the last run" : "idle"))
        request_run();
}

// [SECTION] timing window

void Conv2dView::draw_predict() {
    if (!predict_) return;
    const core::PredictPrompt& pr = *predict_;
    const bool ready = result_ && !host_.jobs->busy();
    if (!draw_predict_choices(pr, pick_, reveal_now_, ready)) {
        return;
    }
    if (!ready) {
        ImGui::TextColored(kMutedColour, "Your pick is in. The answer appears when the run ends.");
        return;
    }
    if (pr.reveal != "independent-outputs") {
        ImGui::TextColored(kErrorColour, "this prompt's answer ('%s') is not one the convolution view knows",
                           pr.reveal.c_str());
        return;
    }
    const core::Conv2dDesc& d = result_->run.desc;
    const int64_t outputs = d.batch * d.filters * d.out_height() * d.out_width();
    const BlockSchedule s = block_schedule(d.out_height(), d.out_width(), d.batch * d.filters,
                                           static_cast<int>(d.kernel), static_cast<int>(d.stride));
    ImGui::TextWrapped(
        "All %s of them: each output pixel reads only the input under its own window and writes only "
        "itself, so none needs another's result. A GPU gives them %s threads in %s blocks, up to %s blocks "
        "resident at once on %s; each SM interleaves the warps it holds, a few warp instructions a cycle.",
        core::format_count(outputs).c_str(), core::format_count(s.threads).c_str(),
        core::format_count(s.blocks).c_str(), core::format_count(s.wave).c_str(),
        s.example ? "an H100 SXM5 (an example from its published specification: no GPU here)" : s.gpu_name.c_str());
    if (pick_ < 0) return;
    int best = -1;
    for (std::size_t k = 0; k < pr.choices.size(); ++k)
        if (lower(pr.choices[k]).find("all") != std::string::npos) best = static_cast<int>(k);
    if (pick_ == best)
        ImGui::TextColored(kOkColour, "Right: the dependence is only on the input, never on other outputs.");
    else
        ImGui::TextColored(kErrorColour,
                           "Not quite: look at the zoom in Sliding window; which other output does "
                           "the sum use?");
}

void Conv2dView::draw_stand_in_row(const core::BackendReport& r, const core::ImportedConvBackend& b,
                                   const core::ImportedConv& source, float name_w, float bar_w, double best) const {
    ImGui::PushID(r.backend.c_str());
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(backend_color(r.backend)), "%s", r.backend.c_str());
    ImGui::SameLine(name_w);
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const float h = ImGui::GetTextLineHeight();
    const float len = best > 0 ? static_cast<float>(b.gflops / best) * bar_w : 0.0f;
    ImDrawList* dl = ImGui::GetWindowDrawList();
    dl->AddRectFilled(p, {p.x + bar_w, p.y + h}, IM_COL32(40, 42, 48, 255), 2.0f);
    draw_hatched_bar(dl, p, {p.x + std::max(len, 2.0f), p.y + h}, backend_color(r.backend, 0.95f));
    ImGui::Dummy({bar_w, h});
    ImGui::SameLine();
    // The estimate's GFLOP/s is the kernel's alone and its time includes the copies (the model's
    // note): said so, since the live rows' two figures come from one time.
    if (source.estimate)
        ImGui::Text("about %.2f GFLOP/s in the kernel, %s with the copies", b.gflops, core::format_duration(b.median_ns).c_str());
    else
        ImGui::Text("%.2f GFLOP/s  %s", b.gflops, core::format_duration(b.median_ns).c_str());
    const std::string plain = core::plain_gpu_reason(r.availability.reason);
    hover_tip(("Not measured on this computer (" + (plain.empty() ? r.availability.reason : plain) + "). " +
               (source.estimate ? "A model's figure from the GPU's published peak and bandwidth and this convolution's "
                                  "arithmetic and bytes: " + b.note + "."
                                : "Measured on that GPU by gpulab's recording run, the same convolution.") +
               " Hatched bars are never this computer's.")
                  .c_str());
    // What it is, whole: the one label that must never be cut (issue 41, item 7).
    ImGui::Dummy({name_w - ImGui::GetStyle().ItemSpacing.x, 0});
    ImGui::SameLine(name_w);
    ImGui::PushStyleColor(ImGuiCol_Text, kMutedColour);
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextUnformatted(other_machine_text(source).c_str());
    ImGui::PopTextWrapPos();
    ImGui::PopStyleColor();
    ImGui::PopID();
}

void Conv2dView::draw_backend_bars(const core::Conv2dRun& run, float width, bool compact) {
    const float fs = ImGui::GetFontSize();
    const float name_w = fs * 6.5f;
    // A GPU backend that cannot run here shows the shipped recording's run, or the estimate, in its
    // own row, hatched, on the same scale as the live bars (issue 39: every student sees the GPU).
    // A comparison the student loaded (File > Compare) keeps its own chart below instead.
    const core::ImportedConv* gpu_stand_in = other_ ? nullptr : comparison(run);
    const auto stand_in_for = [&](const core::BackendReport& r) -> const core::ImportedConvBackend* {
        if (!gpu_stand_in || r.availability.ok) return nullptr;
        const core::ImportedConvBackend* b = gpu_stand_in->find(r.backend);
        return b && b->ran ? b : nullptr;
    };
    double best = 0.0;
    for (const auto& r : run.reports) {
        if (r.ran) best = std::max(best, r.gflops);
        if (const core::ImportedConvBackend* b = stand_in_for(r)) best = std::max(best, b->gflops);
    }
    const core::BackendReport* scalar = find(run, "cpu-scalar");
    const float bar_w = std::max(width - name_w - fs * 31.0f, fs * 6.0f);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    // Backends that are not available share one line per reason at the end ("cuda-kernel, cudnn,
    // cuda-naive  not run: no GPU here"): a line each took three of a projector's few lines.
    std::vector<std::pair<std::string, std::vector<const core::BackendReport*>>> unavailable;
    for (const auto& r : run.reports) {
        if (r.availability.ok) continue;
        if (const core::ImportedConvBackend* b = stand_in_for(r)) {
            draw_stand_in_row(r, *b, *gpu_stand_in, name_w, bar_w, best);
            continue;
        }
        const std::string why = not_run_line(r.availability.reason);
        auto same = std::find_if(unavailable.begin(), unavailable.end(), [&](const auto& u) { return u.first == why; });
        if (same == unavailable.end()) unavailable.push_back({why, {&r}});
        else same->second.push_back(&r);
    }
    for (const auto& r : run.reports) {
        if (!r.availability.ok) continue;
        ImGui::PushID(r.backend.c_str());
        ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(backend_color(r.backend)), "%s", r.backend.c_str());
        ImGui::SameLine(name_w);
        if (r.ran && !core::kind_is_timed(r.kind)) {
            // cuda-sim: no bar and no ratio, its time is the simulator's; the result is the real kernel's.
            ImGui::TextColored(kMutedColour, "%s", simulated_time_text(r).c_str());
            const std::string model = estimated_gpu_floor_line(r.moved_bytes, r.unique_bytes);
            const std::string about = "The tiled CUDA kernel's own code, every CUDA thread a fiber on this CPU (" +
                                      r.implementation + "). The time says how fast the simulation was, nothing about a GPU.";
            // The memory floor on a line of its own, unless the GPU's own row (recording or estimate)
            // is on screen in the window: then it is the row's tooltip, and the laptop keeps the line.
            if (!model.empty() && (!gpu_stand_in || !compact)) {
                hover_tip(about.c_str());
                // One line, whole in the tooltip: wrapped it took two or three.
                ImGui::Dummy({name_w - ImGui::GetStyle().ItemSpacing.x, 0});
                ImGui::SameLine(name_w);
                ImGui::TextColored(kMutedColour, "%s", fit_line(model, ImGui::GetContentRegionAvail().x).c_str());
                hover_tip(model.c_str());
            } else {
                hover_tip((about + (model.empty() ? "" : "\n\nCounted by the simulator: " + model + ".")).c_str());
            }
        } else if (r.ran) {
            const ImVec2 p = ImGui::GetCursorScreenPos();
            const float h = ImGui::GetTextLineHeight();
            const float len = best > 0 ? static_cast<float>(r.gflops / best) * bar_w : 0.0f;
            dl->AddRectFilled(p, {p.x + bar_w, p.y + h}, IM_COL32(40, 42, 48, 255), 2.0f);
            dl->AddRectFilled(p, {p.x + std::max(len, 2.0f), p.y + h}, backend_color(r.backend), 2.0f);
            ImGui::Dummy({bar_w, h});
            ImGui::SameLine();
            std::string ratio;
            if (scalar && scalar->ran && r.total.median_ns > 0 && &r != scalar)
                ratio = ", " + core::format_ratio(static_cast<double>(scalar->total.median_ns) / r.total.median_ns) +
                        " vs scalar";
            ImGui::Text("%.2f GFLOP/s  %s [%s..%s]%s", r.gflops, core::format_duration(r.total.median_ns).c_str(),
                        core::format_duration(r.total.min_ns).c_str(), core::format_duration(r.total.max_ns).c_str(),
                        ratio.c_str());
            hover_tip(("Median of " + std::to_string(r.total.samples) +
                       " timed runs, [min..max]. GFLOP/s = 2 x filter taps x outputs / median compute time." +
                       (r.kind == core::BackendKind::Gpu ? " GPU time counts copies to and from the device." : ""))
                          .c_str());
            // One line per backend (a 768-pixel laptop has room for few): the check's verdict as a
            // mark and a word, its figures and what the backend ran in the tooltip.
            ImGui::SameLine();
            const Status st = r.check.pass ? Status::Ok : Status::Error;
            status_mark(st);
            ImGui::TextColored(r.check.pass ? kOkColour : kErrorColour, "%s", r.check.pass ? "match" : "MISMATCH");
            const std::string impl = r.implementation.empty() ? "-" : r.implementation;
            hover_tip(("Checked against cpu-scalar: " + r.check.verdict +
                       "\nWhat this backend ran (the library's own implementation name where it has one): " + impl)
                          .c_str());
        } else {
            draw_verdict(r);
        }
        ImGui::PopID();
    }
    for (const auto& [why, reports] : unavailable) {
        std::string names, reasons;
        for (const core::BackendReport* r : reports) {
            names += (names.empty() ? "" : ", ") + r->backend;
            reasons += (reasons.empty() ? "" : "\n") + r->backend + ": " + r->availability.reason;
        }
        ImGui::TextColored(kMutedColour, "%s", names.c_str());
        ImGui::SameLine(std::max(name_w, ImGui::GetItemRectSize().x + fs));
        ImGui::TextColored(kMutedColour, "%s", fit_line(why, ImGui::GetContentRegionAvail().x).c_str());
        hover_tip(reasons.c_str());
    }
}

void Conv2dView::draw_timing() {
    const char* how_to_read =
        "Same input and filter on every backend, each output checked against cpu-scalar (the plain loop, there to "
        "teach). Longer bars are faster.";
    draw_predict();
    if (predict_) ImGui::Separator();
    const ConvMeasurement* m = shown();
    if (!m) {
        ImGui::TextColored(kMutedColour, "%s",
                           host_.jobs->busy() || run_on_step_ ? "measuring: the numbers appear when the run ends"
                                              : "nothing measured yet: press Run (R)");
        return;
    }
    const core::Conv2dRun& run = m->run;
    ImGui::TextColored(kAccentColour, "%s",
                       run.params.layer_mode    ? "CNN layer"
                       : run.params.per_channel ? ("filter " + run.params.filter + ", per channel (R, G, B)").c_str()
                                                : ("filter " + run.params.filter).c_str());
    ImGui::SameLine();
    ImGui::TextColored(kMutedColour, "%s, %.2f MFLOP per run", run.desc.to_string().c_str(), run.desc.flops() / 1e6);
    hover_tip(how_to_read);
    if (m->run.params.layer_mode != params_.layer_mode)
        ImGui::TextColored(kAccentColour, "Showing the last %s run; press Run for the new mode.",
                           m->run.params.layer_mode ? "CNN-layer" : "single-channel");
    else if (!params_.layer_mode && m->run.params.per_channel != params_.per_channel)
        ImGui::TextColored(kAccentColour, "Showing the last %s run; press Run for the new input.",
                           m->run.params.per_channel ? "per-channel" : "grayscale");
    draw_backend_bars(run, ImGui::GetContentRegionAvail().x);
    if (other_) draw_comparison_bars(run, ImGui::GetContentRegionAvail().x);
    // The how-to-read line, where it fits: on a projector with the step's predict prompt above the
    // bars it would be the one line that makes the panel scroll, so there it goes to the tooltip of
    // the bars' heading line instead.
    const float needed = ImGui::CalcTextSize(how_to_read, nullptr, false, ImGui::GetContentRegionAvail().x).y +
                         ImGui::GetStyle().ItemSpacing.y * 2.0f;
    if (ImGui::GetContentRegionAvail().y < needed) return;
    ImGui::Spacing();
    ImGui::PushStyleColor(ImGuiCol_Text, kMutedColour);
    ImGui::TextWrapped("%s", how_to_read);
    ImGui::PopStyleColor();
}

}  // namespace gpulab::app
