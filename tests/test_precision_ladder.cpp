// The precision ladder's dot-product sweep (core/workloads/precision_ladder.h): the numbers the
// lesson shows recomputed here from its settings, the answers its predict prompts reveal, the
// shape of the curves the text describes, refusals and cancellation.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "runtime/cancel.h"
#include "workloads/precision_ladder.h"

using namespace gpulab::core;

TEST_SUITE("precision_ladder") {
    TEST_CASE("the sweep of the lesson's defaults: every K, seven lines, finite errors") {
        const DotSweep s = run_dot_sweep({});
        REQUIRE_MESSAGE(s.ok, s.error);
        REQUIRE(s.ks.size() == 13);  // 16, 32, ..., 65,536
        CHECK(s.ks.front() == 16);
        CHECK(s.ks.back() == 65536);
        CHECK(s.lines.size() == 7);
        for (const DotSweepLine& l : s.lines)
            for (double e : l.error) CHECK(std::isfinite(e));
        // Deterministic: the same settings give the same numbers (what the view shows is recomputable).
        const DotSweep again = run_dot_sweep({});
        for (std::size_t i = 0; i < s.lines.size(); ++i) CHECK(s.lines[i].error == again.lines[i].error);
    }

    TEST_CASE("what the lesson says about the curves holds for its numbers") {
        const DotSweep s = run_dot_sweep({});
        REQUIRE(s.ok);
        const std::size_t k4096 = 8, last = s.ks.size() - 1;
        REQUIRE(s.ks[k4096] == 4096);
        const auto err = [&](FpFormat in, FpFormat acc, std::size_t i) { return s.find(in, acc)->error[i]; };
        // With FP32 accumulation the rounding of the inputs does not grow with K: from K = 16 to
        // 65,536 the error of BF16 and FP16 inputs stays below where it started.
        for (FpFormat f : {FpFormat::Bf16, FpFormat::Fp16, FpFormat::Tf32})
            CHECK(err(f, FpFormat::Fp32, last) < err(f, FpFormat::Fp32, 0));
        // With the sum kept in the narrow format it grows with K, by orders of magnitude.
        for (FpFormat f : {FpFormat::Bf16, FpFormat::Fp16})
            CHECK(err(f, f, last) > 100.0 * err(f, FpFormat::Fp32, last));
        // Fewer mantissa bits, more error: BF16 (8 significant bits) above FP16 and TF32 (11) above FP32.
        CHECK(err(FpFormat::Bf16, FpFormat::Fp32, k4096) > err(FpFormat::Fp16, FpFormat::Fp32, k4096));
        CHECK(err(FpFormat::Fp16, FpFormat::Fp32, k4096) > err(FpFormat::Fp32, FpFormat::Fp32, k4096));
        // An FP16 sum of ~0.25-sized products stops growing near 2,048: at K = 65,536 the exact sum is
        // about 16,384, so most of it is lost.
        CHECK(err(FpFormat::Fp16, FpFormat::Fp16, last) > 0.8);
    }

    TEST_CASE("the predict prompts' answers: which format loses the most at K = 4,096") {
        const DotSweep s = run_dot_sweep({});
        REQUIRE(s.ok);
        // Summing in the narrow format: BF16, whose sum stops growing eight times earlier than FP16's.
        const DotSweepLine* narrow = largest_error_at(s, 4096, true);
        REQUIRE(narrow != nullptr);
        CHECK(narrow->inputs == FpFormat::Bf16);
        // Summing in FP32: BF16 too, for its coarser inputs.
        const DotSweepLine* wide = largest_error_at(s, 4096, false);
        REQUIRE(wide != nullptr);
        CHECK(wide->inputs == FpFormat::Bf16);
        CHECK(largest_error_at(s, 1000, true) == nullptr);  // not a swept length
        MostErrorReveal r;
        CHECK(parse_most_error_reveal("most-error:narrow:4096", r));
        CHECK(r.narrow_accumulator);
        CHECK(r.k == 4096);
        CHECK(parse_most_error_reveal("most-error:fp32:16", r));
        CHECK_FALSE(r.narrow_accumulator);
        CHECK_FALSE(parse_most_error_reveal("most-error:fp64:16", r));
        CHECK_FALSE(parse_most_error_reveal("most-error:fp32:1000", r));
        CHECK_FALSE(parse_most_error_reveal("most-error:fp32:", r));
        CHECK_FALSE(parse_most_error_reveal("largest:fp32:16", r));
    }

    TEST_CASE("the prompt's answer on screen: the sentence and the choice it marks, from the sweep's own numbers") {
        const DotSweep s = run_dot_sweep({});
        REQUIRE(s.ok);
        const std::vector<std::string> choices = {"FP32", "TF32", "BF16", "FP16"};
        const MostErrorAnswer a = answer_most_error("most-error:narrow:4096", choices, s);
        REQUIRE(a.ok);
        CHECK(a.best_choice == 2);
        const double bf16 = s.find(FpFormat::Bf16, FpFormat::Bf16)->error[8];
        CHECK(a.text.find("BF16 loses the most at K = 4,096: its result is off by " + relative_error_text(bf16)) !=
              std::string::npos);
        CHECK(a.text.find("FP16 " + relative_error_text(s.find(FpFormat::Fp16, FpFormat::Fp16)->error[8])) !=
              std::string::npos);
        const MostErrorAnswer wide = answer_most_error("most-error:fp32:4096", choices, s);
        CHECK(wide.best_choice == 2);
        CHECK(wide.text.find("with the sum kept in FP32") != std::string::npos);
        // A K the sweep does not reach, or no sweep, is a sentence, not a guess.
        DotSweepConfig small;
        small.max_k = 1024;
        const MostErrorAnswer none = answer_most_error("most-error:narrow:4096", choices, run_dot_sweep(small));
        CHECK_FALSE(none.ok);
        CHECK(none.text.find("is not in this sweep") != std::string::npos);
        CHECK(relative_error_text(0.749) == "74.9%");
        CHECK(relative_error_text(4.04e-7) == "4e-07");
    }

    TEST_CASE("lengths that would take too long or are not powers of two are refused with a sentence") {
        DotSweepConfig c;
        c.max_k = int64_t{1} << 24;
        DotSweep s = run_dot_sweep(c);
        CHECK_FALSE(s.ok);
        CHECK(s.error.find("would take tens of seconds") != std::string::npos);
        c.max_k = 1000;
        CHECK(run_dot_sweep(c).error.find("powers of two") != std::string::npos);
        c.max_k = 64;
        c.trials = 0;
        CHECK(run_dot_sweep(c).error.find("trials") != std::string::npos);
    }

    TEST_CASE("a stopped run ends between trials with cancelled") {
        int calls = 0;
        const DotSweep s = run_dot_sweep({}, [&](float) { return ++calls < 3; });
        CHECK_FALSE(s.ok);
        CHECK(s.error == "cancelled");
        set_cancel_requested(true);
        const DotSweep t = run_dot_sweep({});
        set_cancel_requested(false);
        CHECK(t.error == "cancelled");
    }
}
