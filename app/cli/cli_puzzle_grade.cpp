// `gpulab puzzle grade DIR`: a class's submissions graded in one command. DIR holds one .cu file
// per student (alice.cu) or one folder per student (alice/map.cu, alice/dot.cu). The puzzle is
// --puzzle, else the file's name (map.cu), else the puzzle whose kernel the file defines. Each
// submission is checked alone in its own sandbox (core/puzzles/sandbox.h), several at once; one
// that loops, crashes, floods or attacks the grader ends with its own verdict and no other's.
// Links and special files in DIR are not followed or read. --out writes JSON or CSV (by its
// extension; CSV fields that a spreadsheet would run as a formula are quoted), or, with
// --gradescope, Gradescope's results.json for a single submission. Exit 0 when every submission
// was graded and the results written (pass or fail), 1 when the results could not be written,
// 2 for bad arguments.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <regex>
#include <sstream>

#include "cli.h"
#include "io/file_io.h"
#include "io/image_io.h"
#include "json_out.h"
#include "puzzle_batch.h"
#include "puzzle_report.h"
#include "puzzles/sandbox.h"
#include "render/resources.h"

namespace gpulab::app {

namespace fs = std::filesystem;

namespace {

struct Submission {
    std::string student;
    std::string file;  // as found, relative to DIR
    BatchItem item;
};

const puzzles::Puzzle* puzzle_for(const puzzles::PuzzleLoad& load, const std::string& id, const std::string& stem,
                                  const std::string& source, std::string& why) {
    const auto by_id = [&](const std::string& want) -> const puzzles::Puzzle* {
        for (const puzzles::Puzzle& p : load.puzzles)
            if (p.id == want) return &p;
        return nullptr;
    };
    if (!id.empty()) return by_id(id);
    if (const puzzles::Puzzle* p = by_id(stem)) return p;
    static const std::regex kernel_re(R"(__global__\s+void\s+([A-Za-z_]\w{0,100})\s*\()");
    std::smatch m;
    const std::string head = source.substr(0, 64 * 1024);  // the regex recurses per character: bounded
    for (auto it = std::sregex_iterator(head.begin(), head.end(), kernel_re); it != std::sregex_iterator(); ++it) {
        for (const puzzles::Puzzle& p : load.puzzles)
            if (p.kernel == (*it)[1].str()) return &p;
    }
    why = "gpulab could not tell which puzzle this is: name the file after the puzzle (map.cu), or grade with --puzzle";
    return nullptr;
}

// One submission file inside `folder`, read without following a link.
Submission read_submission(const puzzles::PuzzleLoad& load, const std::string& id, const fs::path& folder,
                           const std::string& name, const std::string& student, const std::string& shown) {
    Submission s;
    s.student = student;
    s.file = shown;
    try {
        s.item.source = core::read_file_in_folder(folder.string(), name, 1024 * 1024, "submission");
    } catch (const core::InputError& e) {
        s.item.refused = std::string("Not graded: ") + e.what();
        return s;
    }
    s.item.puzzle = puzzle_for(load, id, fs::path(name).stem().string(), s.item.source, s.item.refused);
    return s;
}

std::vector<Submission> collect(const puzzles::PuzzleLoad& load, const std::string& id, const fs::path& dir) {
    std::vector<Submission> out;
    std::vector<fs::directory_entry> entries;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec)) entries.push_back(e);
    std::sort(entries.begin(), entries.end());
    for (const auto& e : entries) {
        const std::string name = e.path().filename().string();
        if (name.empty() || name[0] == '.') continue;
        std::error_code sec;
        if (e.is_symlink(sec)) {
            Submission s;
            s.student = e.path().stem().string();
            s.file = name;
            s.item.refused = "Not graded: " + name + " is a link, and gpulab does not follow links in a class's folder";
            out.push_back(s);
        } else if (e.is_directory(sec)) {
            std::vector<std::string> inside;
            for (const auto& f : fs::directory_iterator(e.path(), sec))
                if (f.path().extension() == ".cu") inside.push_back(f.path().filename().string());
            std::sort(inside.begin(), inside.end());
            for (const std::string& f : inside) out.push_back(read_submission(load, id, e.path(), f, name, name + "/" + f));
        } else if (e.path().extension() == ".cu") {
            out.push_back(read_submission(load, id, dir, name, e.path().stem().string(), name));
        }
    }
    return out;
}

// A CSV field, quoted; one that starts like a formula gets a leading apostrophe, so a spreadsheet
// shows a student's text instead of running it.
std::string csv_field(std::string s) {
    if (!s.empty() && (s[0] == '=' || s[0] == '+' || s[0] == '-' || s[0] == '@' || s[0] == '\t' || s[0] == '\r')) s = "'" + s;
    std::string q = "\"";
    for (char c : s) {
        if (c == '"') q += "\"\"";
        else if (c == '\n' || c == '\r') q += ' ';
        else q += c;
    }
    return q + "\"";
}

std::string defect_kinds(const puzzles::CheckResult& r) {
    std::string kinds;
    for (const puzzles::Defect& d : r.defects) kinds += (kinds.empty() ? "" : "; ") + std::string(puzzles::defect_kind_name(d.kind));
    return kinds;
}

std::string as_csv(const std::vector<Submission>& subs, const std::vector<puzzles::CheckResult>& results) {
    std::ostringstream s;
    s << "student,file,puzzle,passed,score,max_score,defects,summary\n";
    for (std::size_t i = 0; i < subs.size(); ++i) {
        const puzzles::CheckResult& r = results[i];
        s << csv_field(subs[i].student) << "," << csv_field(subs[i].file) << ","
          << csv_field(subs[i].item.puzzle ? subs[i].item.puzzle->id : "") << "," << (r.passed ? "yes" : "no") << ","
          << cases_passed(r) << "," << r.cases.size() << "," << csv_field(defect_kinds(r)) << "," << csv_field(r.summary) << "\n";
    }
    return s.str();
}

std::string as_json(const std::vector<Submission>& subs, const std::vector<puzzles::CheckResult>& results) {
    std::ostringstream s;
    s << "{\"submissions\": [";
    for (std::size_t i = 0; i < subs.size(); ++i) {
        std::string one = json_result(subs[i].file, results[i]);
        one.insert(1, "\"student\": " + json_string(subs[i].student) + ", \"puzzle\": " +
                          json_string(subs[i].item.puzzle ? subs[i].item.puzzle->id : "") + ", ");
        s << (i ? ",\n  " : "\n  ") << one;
    }
    s << "\n]}\n";
    return s.str();
}

// Gradescope's autograder results.json: a score, and one test per case.
std::string as_gradescope(const puzzles::CheckResult& r) {
    std::ostringstream s;
    s << "{\"score\": " << cases_passed(r) << ", \"max_score\": " << r.cases.size()
      << ", \"output\": " << json_string(r.summary) << ", \"tests\": [";
    for (std::size_t i = 0; i < r.cases.size(); ++i) {
        const auto& c = r.cases[i];
        s << (i ? ", " : "") << "{\"name\": " << json_string((c.visible ? "example: " : "hidden: ") + c.name)
          << ", \"score\": " << (c.passed ? 1 : 0) << ", \"max_score\": 1, \"output\": " << json_string(case_status(c)) << "}";
    }
    s << "]}\n";
    return s.str();
}

}  // namespace

int cmd_puzzle_grade(const PuzzleGradeOptions& o) {
    std::error_code ec;
    if (!fs::is_directory(o.folder, ec)) {
        std::fprintf(stderr, "gpulab: %s is not a folder of submissions\n", o.folder.c_str());
        return kExitUsage;
    }
    const fs::path root = o.puzzle_dir.empty() ? puzzle_dir() : fs::path(o.puzzle_dir);
    const puzzles::PuzzleLoad load = puzzles::load_puzzles(root);
    for (const std::string& e : load.errors) std::fprintf(stderr, "%s\n", e.c_str());
    if (!o.id.empty() && std::none_of(load.puzzles.begin(), load.puzzles.end(), [&](const auto& p) { return p.id == o.id; })) {
        std::fprintf(stderr, "gpulab: no puzzle '%s' (see gpulab puzzle list)\n", o.id.c_str());
        return kExitUsage;
    }
    const std::vector<Submission> subs = collect(load, o.id, o.folder);
    if (subs.empty()) {
        std::fprintf(stderr, "gpulab: %s holds no .cu files (one per student, or one folder per student)\n", o.folder.c_str());
        return kExitUsage;
    }
    if (o.gradescope && subs.size() != 1) {
        std::fprintf(stderr, "gpulab: --gradescope writes one submission's results.json, and %s holds %zu\n",
                     o.folder.c_str(), subs.size());
        return kExitUsage;
    }
    const puzzles::Toolchain tc = puzzles::find_toolchain(student_device_dir(), kernel_runner_path());
    if (!tc.usable()) {
        std::fprintf(stderr, "gpulab: %s.\n", tc.missing.c_str());
        return kExitFailure;
    }
    if (const puzzles::SandboxStatus& sb = puzzles::sandbox_status(); !sb.confined) std::fprintf(stderr, "gpulab: %s.\n", sb.sentence.c_str());
    std::vector<BatchItem> items;
    for (const Submission& s : subs) items.push_back(s.item);
    puzzles::CheckOptions co;
    co.time_limit_ms = o.time_limit_s * 1000;
    std::size_t finished = 0;
    const auto progress = [&](std::size_t i, const puzzles::CheckResult& r) {
        ++finished;
        std::fprintf(stderr, "[%zu/%zu] %s: %s\n", finished, subs.size(), subs[i].file.c_str(),
                     r.passed ? "pass" : (subs[i].item.puzzle ? "fail" : "not graded"));
    };
    const std::vector<puzzles::CheckResult> results = check_in_parallel(tc, items, o.jobs, co, progress);
    std::size_t passed = 0;
    std::printf("%-24s %-14s %7s  %s\n", "student", "puzzle", "score", "verdict");
    for (std::size_t i = 0; i < subs.size(); ++i) {
        const puzzles::CheckResult& r = results[i];
        passed += r.passed ? 1 : 0;
        const std::string score = std::to_string(cases_passed(r)) + "/" + std::to_string(r.cases.size());
        std::printf("%-24s %-14s %7s  %s\n", subs[i].student.substr(0, 24).c_str(),
                    subs[i].item.puzzle ? subs[i].item.puzzle->id.c_str() : "-", score.c_str(),
                    printed_part(r.passed ? "pass" : r.summary).substr(0, 200).c_str());
    }
    std::printf("%zu of %zu submissions pass.\n", passed, subs.size());
    if (o.out.empty()) return kExitOk;
    const std::string ext = fs::path(o.out).extension().string();
    const std::string text = o.gradescope ? as_gradescope(results.front()) : ext == ".csv" ? as_csv(subs, results) : as_json(subs, results);
    if (const std::string why = core::write_output_file(o.out, text); !why.empty()) {
        std::fprintf(stderr, "gpulab: %s\n", why.c_str());
        return kExitFailure;
    }
    std::printf("Results written to %s.\n", o.out.c_str());
    return kExitOk;
}

}  // namespace gpulab::app
