// The dot-product error sweep of the tensor-core lesson (see precision_ladder.h).
#include "precision_ladder.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cmath>
#include <cstdlib>

#include "measure/format.h"
#include "runtime/cancel.h"

namespace gpulab::core {

namespace {

uint64_t splitmix(uint64_t& s) {
    uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

// 24 random bits: a float in [0, 1) with nothing lost.
float uniform01(uint64_t& s) { return static_cast<float>(splitmix(s) >> 40) * (1.0f / 16777216.0f); }

bool is_power_of_two(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

}  // namespace

const DotSweepLine* DotSweep::find(FpFormat inputs, FpFormat accumulate) const {
    for (const DotSweepLine& l : lines)
        if (l.inputs == inputs && l.accumulate == accumulate) return &l;
    return nullptr;
}

std::string dot_sweep_problem(const DotSweepConfig& c) {
    if (!is_power_of_two(c.min_k) || !is_power_of_two(c.max_k) || c.min_k > c.max_k)
        return "the sweep's lengths must be powers of two with min_k <= max_k (got " + std::to_string(c.min_k) +
               " and " + std::to_string(c.max_k) + ")";
    if (c.max_k > kDotSweepMaxK)
        return "K = " + std::to_string(c.max_k) + " would take tens of seconds; the sweep goes up to " +
               std::to_string(kDotSweepMaxK);
    if (c.trials < 1 || c.trials > 256) return "trials must be between 1 and 256 (got " + std::to_string(c.trials) + ")";
    return "";
}

DotSweep run_dot_sweep(const DotSweepConfig& c, const std::function<bool(float)>& keep_going) {
    DotSweep s;
    s.config = c;
    if (std::string why = dot_sweep_problem(c); !why.empty()) {
        s.error = std::move(why);
        return s;
    }
    const auto start = std::chrono::steady_clock::now();
    for (int64_t k = c.min_k; k <= c.max_k; k *= 2) s.ks.push_back(k);
    s.lines.push_back({FpFormat::Fp32, FpFormat::Fp32, {}});
    for (FpFormat f : {FpFormat::Tf32, FpFormat::Bf16, FpFormat::Fp16}) {
        s.lines.push_back({f, FpFormat::Fp32, {}});
        s.lines.push_back({f, f, {}});
    }
    for (DotSweepLine& l : s.lines) l.error.assign(s.ks.size(), 0.0);

    const std::size_t n = static_cast<std::size_t>(c.max_k);
    std::vector<float> x(n), y(n), rx(n), ry(n);
    std::vector<double> exact(s.ks.size());
    for (int t = 0; t < c.trials; ++t) {
        if ((keep_going && !keep_going(static_cast<float>(t) / static_cast<float>(c.trials))) || cancel_requested()) {
            s.error = "cancelled";
            return s;
        }
        uint64_t state = c.seed * 0x100000001B3ull + static_cast<uint64_t>(t);
        for (std::size_t i = 0; i < n; ++i) {
            x[i] = uniform01(state);
            y[i] = uniform01(state);
        }
        // The reference at every K from one running FP64 sum.
        double sum = 0.0;
        for (std::size_t i = 0, next = 0; i < n; ++i) {
            sum += static_cast<double>(x[i]) * static_cast<double>(y[i]);
            if (static_cast<int64_t>(i + 1) == s.ks[next]) exact[next++] = sum;
        }
        FpFormat rounded_as = FpFormat::Fp32;
        for (std::size_t i = 0; i < n; ++i) {
            rx[i] = x[i];
            ry[i] = y[i];
        }
        for (DotSweepLine& l : s.lines) {
            if (l.inputs != rounded_as) {  // lines of one input format follow each other
                for (std::size_t i = 0; i < n; ++i) {
                    rx[i] = round_to(l.inputs, x[i]);
                    ry[i] = round_to(l.inputs, y[i]);
                }
                rounded_as = l.inputs;
            }
            float acc = 0.0f;
            for (std::size_t i = 0, next = 0; i < n; ++i) {
                acc = multiply_add(l.accumulate, rx[i], ry[i], acc);
                if (static_cast<int64_t>(i + 1) == s.ks[next]) {
                    l.error[next] += std::fabs(static_cast<double>(acc) - exact[next]) / exact[next];
                    ++next;
                }
            }
        }
    }
    for (DotSweepLine& l : s.lines)
        for (double& e : l.error) e /= c.trials;
    s.wall_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count();
    s.ok = true;
    return s;
}

const DotSweepLine* largest_error_at(const DotSweep& s, int64_t k, bool narrow_accumulator) {
    std::size_t at = s.ks.size();
    for (std::size_t i = 0; i < s.ks.size(); ++i)
        if (s.ks[i] == k) at = i;
    if (at == s.ks.size()) return nullptr;
    const DotSweepLine* worst = nullptr;
    for (const DotSweepLine& l : s.lines) {
        const bool narrow = l.accumulate != FpFormat::Fp32;
        if (narrow != narrow_accumulator) continue;
        if (!worst || l.error[at] > worst->error[at]) worst = &l;
    }
    return worst;
}

bool parse_most_error_reveal(std::string_view reveal, MostErrorReveal& out) {
    constexpr std::string_view kPrefix = "most-error:";
    if (reveal.substr(0, kPrefix.size()) != kPrefix) return false;
    std::string_view rest = reveal.substr(kPrefix.size());
    const std::size_t colon = rest.find(':');
    if (colon == std::string_view::npos) return false;
    const std::string_view acc = rest.substr(0, colon);
    if (acc != "fp32" && acc != "narrow") return false;
    const std::string digits(rest.substr(colon + 1));
    if (digits.empty() || digits.size() > 9) return false;
    for (char ch : digits)
        if (ch < '0' || ch > '9') return false;
    out.narrow_accumulator = acc == "narrow";
    out.k = std::strtoll(digits.c_str(), nullptr, 10);
    return is_power_of_two(out.k);
}

std::string relative_error_text(double e) {
    if (std::isnan(e)) return "NaN";
    char buf[48];
    if (e >= 1e-4) std::snprintf(buf, sizeof buf, "%.3g%%", 100.0 * e);  // no space: a wrap never splits it
    else if (e == 0.0) std::snprintf(buf, sizeof buf, "0");
    else std::snprintf(buf, sizeof buf, "%.2g", e);
    return buf;
}

namespace {

std::string lower(std::string s) {
    for (char& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return s;
}

}  // namespace

MostErrorAnswer answer_most_error(const std::string& reveal, const std::vector<std::string>& choices,
                                  const DotSweep& sweep) {
    MostErrorAnswer a;
    MostErrorReveal r;
    if (!parse_most_error_reveal(reveal, r)) {
        a.text = "this prompt's answer ('" + reveal + "') is not one the tensor-core view knows";
        return a;
    }
    if (!sweep.ok) {
        a.text = "no sweep to answer from: " + sweep.error;
        return a;
    }
    const DotSweepLine* worst = largest_error_at(sweep, r.k, r.narrow_accumulator);
    if (!worst) {
        a.text = "K = " + format_count(r.k) + " is not in this sweep (it goes up to " +
                 format_count(sweep.config.max_k) + "): raise the largest K and run again";
        return a;
    }
    const std::size_t at = static_cast<std::size_t>(std::find(sweep.ks.begin(), sweep.ks.end(), r.k) - sweep.ks.begin());
    a.ok = true;
    const std::string label = format_label(worst->inputs);
    for (std::size_t i = 0; i < choices.size(); ++i)
        if (lower(choices[i]).find(lower(label)) != std::string::npos) a.best_choice = static_cast<int>(i);
    std::string others;
    for (const DotSweepLine& l : sweep.lines) {
        if (&l == worst || (l.accumulate != FpFormat::Fp32) != r.narrow_accumulator) continue;
        others += std::string(others.empty() ? "" : ", ") + format_label(l.inputs) + " " +
                  relative_error_text(l.error[at]);
    }
    a.text = "Computed just now: with the sum kept in " +
             std::string(r.narrow_accumulator ? "the input's own format" : "FP32") + ", " + label +
             " loses the most at K = " + format_count(r.k) + ": its result is off by " +
             relative_error_text(worst->error[at]) + " of the exact sum (" + others + ").";
    return a;
}

}  // namespace gpulab::core
