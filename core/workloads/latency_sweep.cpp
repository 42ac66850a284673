#include "latency_sweep.h"

#include <algorithm>
#include <chrono>
#include <sstream>

#include "measure/crossover.h"
#include "measure/format.h"
#include "runtime/memory.h"

namespace gpulab::core {

SweepPlan plan_sweep(int min_exp, int max_exp, std::size_t bytes_per_element, std::size_t memory_budget) {
    SweepPlan plan;
    min_exp = std::clamp(min_exp, 0, 40);
    max_exp = std::clamp(max_exp, 0, 40);
    for (int e = min_exp; e <= max_exp; ++e) {
        const int64_t n = int64_t{1} << e;
        const double need = static_cast<double>(n) * static_cast<double>(bytes_per_element);
        if (need > static_cast<double>(memory_budget)) {
            plan.capped = "sizes from 2^" + std::to_string(e) + " on left out: they need " + format_bytes(need) +
                          " but the memory budget is " + format_bytes(static_cast<double>(memory_budget));
            break;
        }
        plan.sizes.push_back(n);
    }
    return plan;
}

std::vector<std::optional<double>> SweepResult::best_cpu_ns() const {
    std::vector<std::optional<double>> best(plan.sizes.size());
    for (std::size_t b = 0; b < backends.size(); ++b) {
        if (kinds[b] != BackendKind::Cpu) continue;
        for (std::size_t i = 0; i < plan.sizes.size(); ++i) {
            const SweepCell& c = cells[b][i];
            if (!c.ran) continue;
            const double t = static_cast<double>(c.total.median_ns);
            if (!best[i] || t < *best[i]) best[i] = t;
        }
    }
    return best;
}

std::vector<std::optional<double>> SweepResult::median_ns(std::size_t backend, bool compute_only) const {
    std::vector<std::optional<double>> out(plan.sizes.size());
    for (std::size_t i = 0; i < plan.sizes.size(); ++i) {
        const SweepCell& c = cells[backend][i];
        if (c.ran) out[i] = static_cast<double>(compute_only ? c.compute.median_ns : c.total.median_ns);
    }
    return out;
}

SweepResult run_latency_sweep(const SweepConfig& config, std::span<Backend* const> all_backends,
                              const ProgressFn& progress) {
    // The sweep is nothing but times: a simulated kernel (cuda-sim) has none worth plotting and would
    // take minutes at the large sizes, so it is left out here rather than in every caller.
    std::vector<Backend*> backends;
    for (Backend* b : all_backends)
        if (kind_is_timed(b->kind())) backends.push_back(b);
    SweepResult result;
    result.activation = config.activation;
    result.started_unix_s =
        std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
    const std::size_t budget = config.memory_budget ? config.memory_budget : available_host_memory() / 2;
    result.plan = plan_sweep(config.min_exp, config.max_exp, kSweepBytesPerElement, budget);
    for (Backend* b : backends) {
        result.backends.emplace_back(b->name());
        result.kinds.push_back(b->kind());
        result.cells.emplace_back(result.plan.sizes.size());
    }
    const std::size_t points = result.plan.sizes.size();
    for (std::size_t i = 0; i < points; ++i) {
        const int64_t n = result.plan.sizes[i];
        ActivationParams params;
        params.activation = config.activation;
        params.elements = n;
        MeasureConfig mc;
        mc.warmup = 1;
        mc.min_samples = n <= (int64_t{1} << 20) ? config.min_samples_small : config.min_samples_large;
        mc.max_samples = std::max(mc.min_samples, 200);
        mc.time_budget_ns = config.time_per_point_ns;
        mc.measure_limits = false;
        // Time grows with size: weight progress by elements so the bar moves evenly in time.
        const float base = static_cast<float>(i) / static_cast<float>(points);
        ProgressFn inner = [&](float f, std::string_view stage) {
            return !progress ||
                   progress(base + f / static_cast<float>(points), "2^" + std::to_string(i + config.min_exp) + ": " +
                                                                     std::string(stage));
        };
        ActivationRun run = run_activation(params, backends, mc, inner);
        if (!run.ok) {
            result.error = run.error;
            if (run.error == "cancelled") return result;
            // A size that failed as a whole (e.g. memory) ends the sweep there; keep what we have.
            result.plan.sizes.resize(i);
            for (auto& col : result.cells) col.resize(i);
            result.plan.capped = format_pow2(n) + " elements: " + run.error;
            break;
        }
        for (std::size_t b = 0; b < run.reports.size(); ++b) {
            const BackendReport& r = run.reports[b];
            SweepCell& c = result.cells[b][i];
            c.ran = r.ran;
            c.why_not = r.ran ? "" : (r.error.empty() ? r.availability.reason : r.error);
            c.total = r.total;
            c.upload = r.upload;
            c.compute = r.compute;
            c.download = r.download;
            c.matches_reference = r.check.pass;
        }
    }
    result.ok = result.error.empty() || !result.plan.sizes.empty();
    return result;
}

SweepCrossover sweep_crossover(const SweepResult& result) {
    SweepCrossover out;
    const auto cpu = result.best_cpu_ns();
    for (std::size_t b = 0; b < result.backends.size(); ++b) {
        if (result.kinds[b] != BackendKind::Gpu) continue;
        const auto total = result.median_ns(b, false);
        const auto resident = result.median_ns(b, true);
        std::vector<double> sizes, a, with, without;
        for (std::size_t i = 0; i < cpu.size(); ++i) {
            if (!cpu[i] || !total[i] || !resident[i]) continue;
            sizes.push_back(static_cast<double>(result.plan.sizes[i]));
            a.push_back(*cpu[i]);
            with.push_back(*total[i]);
            without.push_back(std::max(*resident[i], 1.0));
        }
        if (sizes.empty()) continue;
        out.gpu_backend = result.backends[b];
        out.with_transfers = wins_above(sizes, a, with);
        out.resident = wins_above(sizes, a, without);
        break;
    }
    return out;
}

std::optional<double> crossover_against(const SweepResult& result, const std::vector<int64_t>& gpu_elements,
                                        const std::vector<int64_t>& gpu_median_ns) {
    const auto cpu = result.best_cpu_ns();
    std::vector<double> sizes, a, b;
    for (std::size_t i = 0; i < cpu.size(); ++i) {
        if (!cpu[i]) continue;
        for (std::size_t j = 0; j < gpu_elements.size() && j < gpu_median_ns.size(); ++j) {
            if (gpu_elements[j] != result.plan.sizes[i] || gpu_median_ns[j] <= 0) continue;
            sizes.push_back(static_cast<double>(result.plan.sizes[i]));
            a.push_back(*cpu[i]);
            b.push_back(static_cast<double>(gpu_median_ns[j]));
        }
    }
    if (sizes.size() < 2) return std::nullopt;
    return wins_above(sizes, a, b);
}

std::string sweep_csv(const SweepResult& r, const std::vector<std::string>& caption, std::string_view source,
                      const RecordedSweepRows* recorded) {
    std::ostringstream s;
    for (const auto& line : caption) s << "# " << line << "\n";
    s << "elements,backend,ran,samples,median_ns,p25_ns,p75_ns,min_ns,max_ns,upload_median_ns,compute_median_ns,"
         "download_median_ns,matches_reference,note,source\n";
    const std::string own = csv_field(std::string(source));
    for (std::size_t i = 0; i < r.plan.sizes.size(); ++i) {
        for (std::size_t b = 0; b < r.backends.size(); ++b) {
            const SweepCell& c = r.cells[b][i];
            s << r.plan.sizes[i] << ',' << r.backends[b] << ',' << (c.ran ? 1 : 0) << ',' << c.total.samples << ','
              << c.total.median_ns << ',' << c.total.p25_ns << ',' << c.total.p75_ns << ',' << c.total.min_ns << ','
              << c.total.max_ns << ',' << c.upload.median_ns << ',' << c.compute.median_ns << ','
              << c.download.median_ns << ',' << (c.matches_reference ? 1 : 0) << ",\"";
            for (char ch : c.why_not) s << (ch == '"' ? '\'' : ch);
            s << "\"," << own << "\n";
        }
    }
    // A recording's curves: its medians (copies included) as it wrote them, the other fields empty.
    if (recorded)
        for (std::size_t b = 0; b < recorded->backends.size() && b < recorded->elements.size(); ++b)
            for (std::size_t i = 0; i < recorded->elements[b].size() && i < recorded->median_ns[b].size(); ++i)
                s << recorded->elements[b][i] << ',' << csv_field(recorded->backends[b]) << ",1,," << recorded->median_ns[b][i]
                  << ",,,,,,,,,," << csv_field(recorded->source) << "\n";
    return s.str();
}

}  // namespace gpulab::core
