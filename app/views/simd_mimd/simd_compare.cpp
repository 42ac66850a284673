// The SIMD-vs-MIMD lesson's comparison with another machine: loading its exported <lesson>-simd.csv
// and a small "this machine | other machine" table of what the lesson measures: the instruction
// set and its lanes, the SIMD speed-up on one core, MIMD wall time against the same tasks run one
// after another, and the divergence factor of each warp pattern (measured on a GPU, or the theory
// when the machine had none, said so). The Timing window and the exported PNG draw the same table.
// Checked by the compare.simd_* tests and by eye in the exported PNG.
#include <algorithm>

#include "views/compare_view.h"
#include "measure/format.h"
#include "simd_mimd_view.h"
#include "widgets/ui_helpers.h"

namespace gpulab::app {

namespace {

std::string isa_text(bool ok, const std::string& isa, int lanes) {
    return ok ? isa + ", " + std::to_string(lanes) + " floats per instruction" : std::string("not measured");
}

std::string speedup_text(bool ok, int64_t scalar_ns, int64_t simd_ns, double speedup) {
    if (!ok) return "not measured";
    return core::format_ratio(speedup) + " (scalar " + core::format_duration(scalar_ns) + ", SIMD " +
           core::format_duration(simd_ns) + ")";
}

std::string mimd_text(bool ok, int threads, int64_t wall_ns, int64_t sequential_ns) {
    if (!ok) return "not measured";
    const double r = wall_ns > 0 ? static_cast<double>(sequential_ns) / static_cast<double>(wall_ns) : 0.0;
    return std::to_string(threads) + " threads: " + core::format_duration(wall_ns) + " vs " +
           core::format_duration(sequential_ns) + " one after another (" + core::format_ratio(r) + ")";
}

std::string factor_text(bool measured, double factor, double theoretical) {
    if (measured) return core::format_ratio(factor) + " measured";
    return "theory " + core::format_ratio(theoretical) + " (no GPU run)";
}

}  // namespace

bool SimdMimdView::load_comparison(const std::string& path, std::string& error) {
    return load_other_machine(path, "simd-mimd", core::simd_comparison, host_, other_, error);
}

const core::ImportedSimd* SimdMimdView::comparison() const {
    if (other_) return other_.get();
    // The divergence patterns are the same kernels on any GPU: any recorded measurement will do.
    return recorded_.get("patterns", [] {
        return recorded_match<core::ImportedSimd>("simd-mimd", core::simd_comparison, [](const core::ImportedSimd& s) {
            return std::any_of(s.patterns.begin(), s.patterns.end(), [](const core::ImportedPattern& p) { return p.measured; });
        });
    });
}

std::string SimdMimdView::comparison_mismatch() const {
    const core::ImportedSimd* other = comparison();
    // A recording brings its GPU rows only: its CPU's SIMD run is not compared.
    if (!other || !other->recorded_source.empty() || !result_ || !result_->simd.ok || !other->simd_ok) return {};
    const std::string mine(core::activation_name(result_->activation));
    if ((other->activation.empty() || other->activation == mine) && other->elements == result_->elements) return {};
    return "not the same SIMD measurement: this machine ran " + mine + " over " +
           core::format_count(result_->elements) + " floats, the other machine " + other->activation + " over " +
           core::format_count(other->elements);
}

std::vector<std::string> SimdMimdView::comparison_caption() const {
    const core::ImportedSimd* other = comparison();
    if (!other) return {};
    return compare_caption_lines(*other, other_name(*other) + "'s numbers: the right-hand column of the table at the bottom",
                                 comparison_mismatch());
}

void SimdMimdView::draw_comparison(float width, bool hide_divergence) const {
    const core::ImportedSimd* other = comparison();
    if (!other || !result_) return;
    const SimdMimdMeasurement& m = *result_;
    const core::ImportedSimd& o = *other;
    const bool recorded = !o.recorded_source.empty();
    draw_compare_legend(o, CompareSwatch::None, comparison_mismatch(), width);
    const ImGuiTableFlags flags =
        ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_BordersInnerV |
        ImGuiTableFlags_SizingStretchProp;
    if (!ImGui::BeginTable("##simd_compare", 3, flags, {width, 0})) return;
    ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthStretch, 0.7f);
    ImGui::TableSetupColumn("this machine", ImGuiTableColumnFlags_WidthStretch, 1.0f);
    ImGui::TableSetupColumn(other_name(o).c_str(), ImGuiTableColumnFlags_WidthStretch, 1.0f);
    ImGui::TableHeadersRow();
    auto row = [](const std::string& what, const std::string& mine, const std::string& theirs) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextColored(kMutedColour, "%s", what.c_str());
        ImGui::TableNextColumn();
        ImGui::TextWrapped("%s", mine.c_str());
        ImGui::TableNextColumn();
        ImGui::TextWrapped("%s", theirs.c_str());
    };
    // A recording brings its GPU rows only: the CPU rows compare two computers' CPUs, which a loaded
    // file is for.
    if (!recorded) {
        row("ISA and lanes", isa_text(m.simd.ok, m.simd.isa, m.simd.lanes), isa_text(o.simd_ok, o.isa, o.lanes));
        row("SIMD speed-up, one core",
            speedup_text(m.simd.ok, m.simd.scalar.median_ns, m.simd.simd.median_ns, m.simd.speedup),
            speedup_text(o.simd_ok, o.scalar_ns, o.simd_ns, o.speedup));
        row("MIMD together vs sequential", mimd_text(m.mimd.ok, m.mimd.threads, m.mimd.wall_ns, m.mimd.sequential_ns),
            mimd_text(o.mimd_ok, o.threads, o.wall_ns, o.sequential_ns));
    }
    if (hide_divergence) {
        row("warp divergence", "shown once you have answered the prompt", "shown once you have answered the prompt");
    } else {
        for (const PatternCost& c : m.costs) {
            const std::string name(core::pattern_name(c.pattern));
            const core::ImportedPattern* p = o.find(name);
            row("divergence, " + name, factor_text(c.measured, c.measured_factor, c.theoretical),
                p ? factor_text(p->measured, p->measured_factor, p->theoretical) : std::string("not listed there"));
        }
    }
    ImGui::EndTable();
}

}  // namespace gpulab::app
