// The analogy panel: a few "mathematicians" (the CPU's FP32 lanes: hardware threads x floats per
// vector instruction) against many "students" (the GPU's SMs x FP32 lanes per SM, core/gpu_model/gpu_model.h),
// like for like, working through one pile of tiny sums. Nothing here is invented: the
// pile is a size the sweep measured, each side's speed is that size's measured median (the
// fastest CPU backend; the GPU round trip with copies), and the GPU's fixed cost is its measured
// time at the smallest size. The animation plays both at one common slow-down, so their ratio is
// the real one. Without a GPU the students stay grey: "not measured on this machine".
// Checked by eye in the first step's screenshot.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "measure/format.h"
#include "gpu_backends.h"
#include "gpu_model/gpu_model.h"
#include "latency_view.h"
#include "measure/machine_info.h"
#include "backends/simd/simd_math.h"
#include "views/recorded_gpu.h"
#include "views/timing_plot.h"
#include "widgets/ui_helpers.h"

namespace gpulab::app {

namespace {

constexpr float kSlowerSideSeconds = 6.0f;  // the slower side finishes in this much screen time
constexpr float kPauseSeconds = 1.5f;
constexpr int kPileCells = 128;   // the pile drawn as 128 bundles of sums

struct Side {
    bool measured = false;
    // Where no GPU ran here: "recorded on NVIDIA H200, 2026-11-28" or "estimate (model, NVIDIA H200)"
    // (views/recorded_gpu.h), said under the side; empty for this machine's measurement.
    std::string source;
    bool estimate = false;  // the source is the model's, not a recording's
    std::string backend;
    double total_ns = 0;  // the whole pile, measured
    double fixed_ns = 0;  // before the first sum is done (GPU: its time at the smallest size)
};

// A person: a head and shoulders, small enough to draw dozens of.
void person(ImDrawList* dl, ImVec2 c, float h, ImU32 col) {
    dl->AddCircleFilled({c.x, c.y - h * 0.28f}, h * 0.18f, col);
    dl->AddRectFilled({c.x - h * 0.22f, c.y - h * 0.06f}, {c.x + h * 0.22f, c.y + h * 0.32f}, col, h * 0.1f);
}

// The pile as a grid of bundles, the first `done` fraction ticked off.
void pile(ImDrawList* dl, ImVec2 p0, float w, float h, float done, ImU32 col) {
    const int cols = 32, rows = kPileCells / cols;
    const float cw = w / cols, ch = std::min(h / rows, cw);
    const int finished = static_cast<int>(done * kPileCells + 0.5f);
    for (int k = 0; k < kPileCells; ++k) {
        const ImVec2 a{p0.x + static_cast<float>(k % cols) * cw, p0.y + static_cast<float>(k / cols) * ch};
        dl->AddRectFilled(a, {a.x + cw - 2.0f, a.y + ch - 2.0f}, k < finished ? col : IM_COL32(70, 72, 80, 255));
    }
}

}  // namespace

void LatencyView::draw_analogy_panel() {
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float lh = ImGui::GetTextLineHeightWithSpacing();
    const core::MachineInfo& m = core::host_machine();
    const gpu::GpuProbe& g = gpu::probe_now();
    const int threads = std::max(m.hardware_threads, 1);
    const bool have_gpu = g.device_ok && g.sm_count > 0;
    // Without a GPU, the example one (an H100 SXM5), said to be one in the title.
    const core::ExampleGpu& ex = core::kExampleGpu;
    const int sms = have_gpu ? g.sm_count : ex.sm_count;
    const int lanes = have_gpu ? core::fp32_lanes_per_sm(g.cc_major, g.cc_minor)
                               : core::fp32_lanes_per_sm(ex.cc_major, ex.cc_minor);
    const int students = sms * lanes;
    // Like for like: FP32 lanes on both sides. A CPU thread's lanes are the floats one vector
    // instruction handles in the ISA that ran (a core with two FMA units issues two of those a
    // cycle, as an SM's four schedulers issue to its lanes).
    const cpu::SimdIsa isa = cpu::best_simd_isa();
    const int cpu_lanes_each = cpu::simd_isa_lanes(isa);
    const int mathematicians = threads * cpu_lanes_each;

    // The measured speeds at the chosen size.
    Side cpu, gpu_side;
    int64_t n = int64_t{1} << std::clamp(breakdown_exp_, 0, 40);
    std::string missing = have_gpu ? std::string() : g.reason;
    if (const std::optional<std::size_t> i = size_index_near(breakdown_exp_)) {
        const core::SweepResult& r = result_->sweep;
        n = r.plan.sizes[*i];
        for (std::size_t b = 0; b < r.backends.size(); ++b) {
            const core::SweepCell& c = r.cells[b][*i];
            if (!c.ran) continue;
            const double t = static_cast<double>(c.total.median_ns);
            if (r.kinds[b] == core::BackendKind::Cpu && (!cpu.measured || t < cpu.total_ns)) {
                cpu = {true, "", false, r.backends[b], t, 0.0};
            } else if (r.kinds[b] == core::BackendKind::Gpu && !gpu_side.measured) {
                const core::SweepCell& small = r.cells[b][0];
                gpu_side = {true, "", false, r.backends[b], t, small.ran ? std::min<double>(small.total.median_ns, t) : 0.0};
            }
        }
        if (!gpu_side.measured) missing = gpu_missing_reason(r);
        // No GPU here: the recorded GPU run's (or the model's) time at the same size, said as such.
        const core::ImportedSweep* other = comparison();
        if (!gpu_side.measured && other && !other->recorded_source.empty() && !other->series.empty()) {
            const core::ImportedSweepSeries& sr = other->series.front();
            for (std::size_t k = 0; k < sr.elements.size() && k < sr.median_ns.size(); ++k)
                if (sr.elements[k] == n && sr.median_ns[k] > 0 && !sr.median_ns.empty()) {
                    const double first = static_cast<double>(sr.median_ns.front());
                    const double t = static_cast<double>(sr.median_ns[k]);
                    gpu_side = {true, other->recorded_source, other->estimate, sr.backend, t, std::min(first, t)};
                }
        }
    }

    ImGui::PushStyleColor(ImGuiCol_Text, kMutedColour);
    ImGui::TextWrapped(
        "A pile of %s tiny sums (one ReLU each): few fast workers or very many slower ones? Speeds "
        "are %s, slowed down together so you can watch.",
        core::format_pow2(n).c_str(),
        gpu_side.source.empty() ? "this machine's measurements"
        : gpu_side.estimate ? "this machine's measured CPU and a GPU estimate (a model)"
                                                    : "this machine's measured CPU and a GPU recorded on another computer");
    ImGui::PopStyleColor();

    // One common slow-down: the slower side takes kSlowerSideSeconds on screen.
    const double slowest = std::max(cpu.measured ? cpu.total_ns : 0.0, gpu_side.measured ? gpu_side.total_ns : 0.0);
    const double scale = slowest > 0 ? kSlowerSideSeconds / slowest : 0.0;  // screen seconds per ns
    const float cycle = kSlowerSideSeconds + kPauseSeconds;
    const float t = std::fmod(std::max(anim_time_, 0.0f), cycle);
    auto progress = [&](const Side& s) {
        if (!s.measured || scale <= 0) return 0.0f;
        const double work = std::max(s.total_ns - s.fixed_ns, 1.0);
        return static_cast<float>(std::clamp((t / scale - s.fixed_ns) / work, 0.0, 1.0));
    };

    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float gap = ImGui::GetFontSize() * 1.5f;
    const float half = (avail.x - gap) * 0.5f;
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    // Title, crowd, pile, then up to four lines of text under each side and one line under both.
    const float rest = std::max(avail.y - lh * 6.5f, lh * 4.0f);
    const float crowd_h = std::min(rest * 0.5f, lh * 5.0f);
    const float pile_h = std::min(rest - crowd_h, half * 0.25f);

    auto draw_side = [&](float x0, bool gpu) {
        const Side& s = gpu ? gpu_side : cpu;
        const bool grey = gpu && !s.measured;
        const ImU32 ink = grey ? IM_COL32(110, 110, 115, 255) : IM_COL32(230, 230, 232, 255);
        const ImU32 accent =
            grey ? IM_COL32(90, 90, 95, 255)
                 : backend_color(s.backend.empty() ? (gpu ? "cuda-kernel" : "cpu-parallel") : s.backend);
        float y = origin.y;
        char title[160];
        if (gpu && have_gpu)
            std::snprintf(title, sizeof title, "GPU: %s lanes (%d SMs x %d FP32 lanes)",
                          core::format_count(students).c_str(), sms, lanes);
        else if (gpu && !s.source.empty())
            // The recording's or the estimate's GPU: an H200 has the H100 SXM5's 132 SMs of 128 lanes.
            std::snprintf(title, sizeof title, "GPU: %s lanes (%s, published spec)", core::format_count(students).c_str(),
                          estimated_gpu().name);
        else if (gpu)
            std::snprintf(title, sizeof title, "GPU: %s lanes (example: an H100 SXM5)",
                          core::format_count(students).c_str());
        else
            std::snprintf(title, sizeof title, "CPU: %d lanes (%d threads x %d floats, %s)", mathematicians, threads,
                          cpu_lanes_each, std::string(cpu::simd_isa_name(isa)).c_str());
        dl->PushClipRect({x0, y}, {x0 + half, y + lh}, true);
        dl->AddText({x0, y}, ink, title);
        dl->PopClipRect();
        y += lh;
        // The crowd: each figure is one worker; a GPU has too many to draw one by one, so the
        // figure size is the largest at which all drawn figures fit the box.
        const int drawn = gpu ? std::min(students, 256) : std::min(mathematicians, 64);
        const float box_h = gpu ? crowd_h - lh : crowd_h;
        float fig = std::min(box_h, half / static_cast<float>(std::max(drawn, 1)));
        if (gpu) {
            fig = box_h;
            while (fig > 3.0f) {
                const int per_row = std::max(1, static_cast<int>(half / fig));
                if (static_cast<float>((drawn + per_row - 1) / per_row) * fig <= box_h) break;
                fig *= 0.95f;
            }
        }
        fig = std::min(fig, lh * 2.5f);
        const int per_row = std::max(1, static_cast<int>(half / fig));
        const float work_f = progress(s);
        const bool busy_now = s.measured && work_f > 0.0f && work_f < 1.0f;
        for (int k = 0; k < drawn; ++k) {
            const ImVec2 c{x0 + fig * (static_cast<float>(k % per_row) + 0.5f),
                           y + fig * (static_cast<float>(k / per_row) + 0.55f)};
            const bool bob = busy_now && std::fmod(anim_time_ * 6.0f + static_cast<float>(k) * 0.37f, 2.0f) < 1.0f;
            person(dl, {c.x, c.y - (bob ? fig * 0.06f : 0.0f)}, fig, bob ? accent : ink);
        }
        y += crowd_h;
        if (gpu && students > drawn) {
            char each[96];
            std::snprintf(each, sizeof each, "%d SMs x %d FP32 lanes%s; each figure stands for %d", sms, lanes,
                          have_gpu ? "" : " (published spec)", (students + drawn - 1) / drawn);
            // Cut to the side's width, like the title: at 1366 x 768 the whole line is wider.
            dl->PushClipRect({x0, y - lh}, {x0 + half, y}, true);
            dl->AddText({x0, y - lh}, IM_COL32(150, 150, 150, 255), fit_line(each, half).c_str());
            dl->PopClipRect();
        }
        y += lh * 0.3f;
        pile(dl, {x0, y}, std::min(half, pile_h * 8.0f), pile_h, work_f, accent);
        y += pile_h + lh * 0.2f;
        // Where the speed comes from, in words.
        std::string l1, l2;
        if (s.measured) {
            l1 = core::format_pow2(n) + " sums in " + core::format_duration(static_cast<int64_t>(s.total_ns)) + " = " +
                 core::format_duration(static_cast<int64_t>(std::llround(s.total_ns / static_cast<double>(n) * 1000))) +
                 " per 1000 sums";
            l2 = (s.source.empty() ? "measured: " : s.source + ", not this computer: ") + s.backend + " median at " +
                 core::format_pow2(n) +
                 (gpu ? ", copies included; waits " + core::format_duration(static_cast<int64_t>(s.fixed_ns)) +
                            " first (its time at the smallest size)"
                      : ", the fastest CPU backend");
        } else if (gpu) {
            l1 = "GPU speed not measured on this machine";
            const std::string plain = core::plain_gpu_reason(missing);  // the Devices panel has the exact error
            l2 = plain.empty() ? missing : plain;
        } else {
            l1 = host_.jobs->busy() ? "measuring..." : "not measured yet: press Run sweep (R)";
        }
        ImGui::SetCursorScreenPos({x0, y});
        // A group keeps every wrapped line at x0; the wrap position is in window coordinates.
        ImGui::BeginGroup();
        ImGui::PushTextWrapPos(ImGui::GetCursorPos().x + half - ImGui::GetStyle().ItemSpacing.x);
        ImGui::PushStyleColor(ImGuiCol_Text,
                              ImGui::ColorConvertU32ToFloat4(s.measured ? ink : IM_COL32(150, 150, 150, 255)));
        ImGui::TextWrapped("%s", l1.c_str());
        ImGui::PopStyleColor();
        if (!l2.empty()) {
            ImGui::PushStyleColor(ImGuiCol_Text, kMutedColour);
            ImGui::TextWrapped("%s", l2.c_str());
            ImGui::PopStyleColor();
        }
        ImGui::PopTextWrapPos();
        ImGui::EndGroup();
        return ImGui::GetItemRectMax().y;
    };
    const float end_cpu = draw_side(origin.x, false);
    const float end_gpu = draw_side(origin.x + half + gap, true);
    ImGui::SetCursorScreenPos({origin.x, std::max(end_cpu, end_gpu)});
    if (cpu.measured && gpu_side.measured) {
        const bool gpu_wins = gpu_side.total_ns < cpu.total_ns;
        const double ratio = gpu_wins ? cpu.total_ns / gpu_side.total_ns : gpu_side.total_ns / cpu.total_ns;
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextColored(kAccentColour,
                           "At %s the %s finish first, %s sooner%s. Change the size (breakdown size in "
                           "the controls) and watch the winner change.",
                           core::format_pow2(n).c_str(), gpu_wins ? "students" : "mathematicians",
                           core::format_ratio(ratio).c_str(),
                           gpu_side.source.empty() ? ""
                           : gpu_side.estimate
                               ? " (the students' time an estimate, not a measurement)"
                               : " (the students' time recorded on another computer)");
        ImGui::PopTextWrapPos();
    }
    ImGui::Dummy({avail.x, 1.0f});
}

}  // namespace gpulab::app
