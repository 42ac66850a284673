#include "puzzle_report.h"

#include <sstream>

#include "json_out.h"

namespace gpulab::app {

std::string defect_line(const puzzles::Defect& d) {
    std::string lines;
    for (int l : d.lines) lines += (lines.empty() ? (d.lines.size() > 1 ? " (lines " : " (line ") : ", ") + std::to_string(l);
    if (!lines.empty()) lines += ")";
    std::string where;
    if (!d.where.empty()) {
        where = " in " + d.where;
        if (d.repeats > 0) where += " and " + std::to_string(d.repeats) + (d.repeats == 1 ? " more case" : " more cases");
    }
    return std::string(puzzles::defect_kind_name(d.kind)) + lines + where + ": " + d.message;
}

// A case's outcome in one word or the defect's kind: "passed", "wrong answer", "race", "not run".
std::string case_status(const puzzles::CaseOutcome& c) {
    if (c.passed) return "passed";
    if (!c.ran) return "not run";
    if (!c.report.clean) return puzzles::defect_kind_name(c.report.kind);
    return c.elements_wrong > 0 ? "wrong answer" : "failed";
}

int cases_passed(const puzzles::CheckResult& r) {
    int n = 0;
    for (const auto& c : r.cases) n += c.passed ? 1 : 0;
    return n;
}

// What the kernel printed, at most 4 KiB of it (the runner stops a kernel at 64 KiB).
// Control characters other than newline and tab become '?': a kernel's printf must not be able
// to move a grader's terminal cursor or rewrite lines above it.
std::string printed_part(const std::string& printed) {
    std::string s = printed.size() > 4096 ? printed.substr(0, 4096) + "\n[... " + std::to_string(printed.size() - 4096) + " more bytes]"
                                          : printed;
    for (char& c : s)
        if ((static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t') || c == 0x7f) c = '?';
    return s;
}

std::string json_result(const std::string& file, const puzzles::CheckResult& r) {
    std::ostringstream s;
    s << "{\"file\": " << json_string(file) << ", \"passed\": " << (r.passed ? "true" : "false")
      << ", \"score\": " << cases_passed(r) << ", \"max_score\": " << r.cases.size()
      << ", \"compiled\": " << (r.compiled ? "true" : "false") << ", \"summary\": " << json_string(r.summary)
      << ", \"compile_seconds\": " << json_number(r.compile.seconds) << ", \"run_seconds\": " << json_number(r.run_seconds)
      << ", \"gpu\": " << (r.gpu.tried ? "{\"ran\": " + std::string(r.gpu.ran ? "true" : "false") + ", \"device\": " +
                                            json_string(r.gpu.device) + ", \"outputs_match\": " +
                                            (r.gpu.outputs_match ? "true" : "false") + ", \"example_ns\": " +
                                            std::to_string(r.gpu.example_ns) + ", \"said\": " + json_string(r.gpu.sentence) + "}"
                                      : std::string("null"))
      << ", \"cases\": [";
    for (std::size_t i = 0; i < r.cases.size(); ++i) {
        const auto& c = r.cases[i];
        s << (i ? ", " : "") << "{\"name\": " << json_string(c.name) << ", \"visible\": " << (c.visible ? "true" : "false")
          << ", \"ran\": " << (c.ran ? "true" : "false") << ", \"passed\": " << (c.passed ? "true" : "false")
          << ", \"status\": " << json_string(case_status(c)) << ", \"elements_wrong\": " << c.elements_wrong
          << ", \"warps\": " << c.report.warps << ", \"divergent_warps\": " << c.report.divergent_warps
          << ", \"global_requests\": " << c.report.global_requests << ", \"global_sectors\": " << c.report.global_sectors
          << "}";
    }
    s << "], \"printed\": " << json_string(printed_part(r.printed)) << ", \"defects\": [";
    for (std::size_t i = 0; i < r.defects.size(); ++i) {
        const auto& d = r.defects[i];
        s << (i ? ", " : "") << "{\"kind\": " << json_string(puzzles::defect_kind_name(d.kind)) << ", \"lines\": [";
        for (std::size_t k = 0; k < d.lines.size(); ++k) s << (k ? ", " : "") << d.lines[k];
        s << "], \"case\": " << json_string(d.where) << ", \"more_cases\": " << d.repeats
          << ", \"message\": " << json_string(d.message) << "}";
    }
    s << "]}";
    return s.str();
}

}  // namespace gpulab::app
