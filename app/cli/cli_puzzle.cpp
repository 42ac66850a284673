// `gpulab puzzle list` and `gpulab puzzle check ID FILE...`: the kernel puzzles for instructors.
// check grades many submissions at once (a FILE may be a folder of .cu files), up to one per core
// in parallel: per submission PASS or FAIL, each hidden case, each defect with its kind in plain
// words and its line; --json for graders. Exit 0 only when every submission passes, 1 when any
// fails, 2 for bad arguments (an unknown puzzle, a file that cannot be read).
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli.h"
#include "gpu_backends.h"
#include "json_out.h"
#include "puzzle_batch.h"
#include "puzzle_report.h"
#include "puzzles/puzzle_check.h"
#include "io/file_io.h"
#include "puzzles/reference_record.h"
#include "render/resources.h"

namespace gpulab::app {

namespace fs = std::filesystem;

namespace {

puzzles::PuzzleLoad load_all(const std::string& dir) {
    const fs::path root = dir.empty() ? puzzle_dir() : fs::path(dir);
    if (root.empty()) {
        puzzles::PuzzleLoad none;
        none.errors.push_back("gpulab's puzzles folder was not found: reinstall gpulab, or name one with --puzzle-dir");
        return none;
    }
    return puzzles::load_puzzles(root);
}

}  // namespace

int cmd_puzzle_list(const std::string& dir, bool json) {
    const puzzles::PuzzleLoad load = load_all(dir);
    for (const std::string& e : load.errors) std::fprintf(stderr, "%s\n", e.c_str());
    if (json) std::printf("[");
    bool first = true;
    for (const puzzles::Puzzle& p : load.puzzles) {
        if (json) {
            std::printf("%s\n  {\"id\": %s, \"title\": %s, \"teaches\": %s, \"signature\": %s, \"cases\": %zu}",
                        first ? "" : ",", json_string(p.id).c_str(), json_string(p.title).c_str(),
                        json_string(p.teaches).c_str(), json_string(p.signature()).c_str(), p.cases.size());
        } else {
            std::printf("%-18s %s\n%-18s %s\n", p.id.c_str(), p.title.c_str(), "", p.signature().c_str());
        }
        first = false;
    }
    if (json) std::printf("\n]\n");
    if (load.puzzles.empty() && load.errors.empty()) std::fprintf(stderr, "gpulab: no puzzles found\n");
    return load.errors.empty() && !load.puzzles.empty() ? kExitOk : kExitFailure;
}

int cmd_puzzle_record(const std::string& dir, const std::vector<std::string>& ids) {
    const puzzles::PuzzleLoad load = load_all(dir);
    for (const std::string& e : load.errors) std::fprintf(stderr, "%s\n", e.c_str());
    const puzzles::Toolchain tc = puzzles::find_toolchain(student_device_dir(), kernel_runner_path());
    if (!tc.usable()) {
        std::fprintf(stderr, "gpulab: %s.\n", tc.missing.c_str());
        return kExitFailure;
    }
    int failures = 0;
    for (const puzzles::Puzzle& p : load.puzzles) {
        if (!ids.empty() && std::find(ids.begin(), ids.end(), p.id) == ids.end()) continue;
        std::string error;
        const std::string text = puzzles::record_reference_run(tc, p, error);
        const fs::path file = p.folder / puzzles::kReferenceRunFile;
        if (text.empty()) {
            std::fprintf(stderr, "gpulab: %s\n", error.c_str());
            ++failures;
            continue;
        }
        if (const std::string why = core::write_output_file(file.string(), text); !why.empty()) {
            std::fprintf(stderr, "gpulab: %s\n", why.c_str());
            ++failures;
            continue;
        }
        std::printf("%s: recorded (%zu bytes)\n", file.c_str(), text.size());
    }
    return failures == 0 && load.errors.empty() ? kExitOk : kExitFailure;
}

int check_puzzle_folder(const std::string& path) {
    fs::path folder(path);
    if (folder.filename() == "puzzle.toml") folder = folder.parent_path();
    const puzzles::PuzzleLoad load = puzzles::load_puzzle(folder);
    for (const std::string& e : load.errors) std::fprintf(stderr, "%s\n", e.c_str());
    if (load.puzzles.empty()) return static_cast<int>(std::max<std::size_t>(1, load.errors.size()));
    const puzzles::Puzzle& p = load.puzzles.front();
    const puzzles::Toolchain tc = puzzles::find_toolchain(student_device_dir(), kernel_runner_path());
    if (!tc.usable()) {
        std::printf("%s: parses (%s, %zu cases); its solution was not run: %s\n", path.c_str(), p.id.c_str(),
                    p.cases.size(), tc.missing.c_str());
        return 0;
    }
    const std::vector<std::string> problems = puzzles::validate_puzzle(tc, p, puzzles::CheckOptions{});
    for (const std::string& e : problems) std::fprintf(stderr, "%s\n", e.c_str());
    if (problems.empty()) {
        std::printf("%s: ok (puzzle %s, %zu cases; the solution passes, the skeleton compiles, %zu wrong solutions "
                    "caught)\n",
                    path.c_str(), p.id.c_str(), p.cases.size(), p.wrong.size());
    }
    return static_cast<int>(problems.size());
}

int cmd_puzzle_check(const PuzzleCheckOptions& o) {
    const puzzles::PuzzleLoad load = load_all(o.puzzle_dir);
    const auto it = std::find_if(load.puzzles.begin(), load.puzzles.end(),
                                 [&](const puzzles::Puzzle& p) { return p.id == o.id; });
    if (it == load.puzzles.end()) {
        std::string ids;
        for (const auto& p : load.puzzles) ids += (ids.empty() ? "" : ", ") + p.id;
        std::fprintf(stderr, "gpulab: no puzzle '%s' (known: %s)\n", o.id.c_str(), ids.c_str());
        return kExitUsage;
    }
    const puzzles::Puzzle& puzzle = *it;
    // Files, with folders opened to their .cu files.
    std::vector<fs::path> files;
    for (const std::string& f : o.files) {
        std::error_code ec;
        if (fs::is_directory(f, ec)) {
            std::vector<fs::path> inside;
            for (const auto& e : fs::directory_iterator(f, ec))
                if (e.path().extension() == ".cu") inside.push_back(e.path());
            std::sort(inside.begin(), inside.end());
            if (inside.empty()) {
                std::fprintf(stderr, "gpulab: %s holds no .cu files\n", f.c_str());
                return kExitUsage;
            }
            files.insert(files.end(), inside.begin(), inside.end());
        } else {
            files.emplace_back(f);
        }
    }
    std::vector<std::string> sources(files.size());
    for (std::size_t i = 0; i < files.size(); ++i) {
        std::ifstream in(files[i], std::ios::binary);
        if (!in) {
            std::fprintf(stderr, "gpulab: cannot read %s\n", files[i].c_str());
            return kExitUsage;
        }
        std::ostringstream s;
        s << in.rdbuf();
        sources[i] = s.str();
        if (sources[i].size() > 1024 * 1024) {
            std::fprintf(stderr, "gpulab: %s is larger than 1 MiB; a submission is one kernel file\n", files[i].c_str());
            return kExitUsage;
        }
    }
    const puzzles::Toolchain tc = puzzles::find_toolchain(student_device_dir(), kernel_runner_path());
    if (!tc.usable()) {
        std::fprintf(stderr, "gpulab: %s.\n", tc.missing.c_str());
        return kExitFailure;
    }
    // --gpu: the submissions that pass also run on this machine's GPU (nvcc and a device needed).
    int gpu_arch = 0;
    if (o.gpu) {
        const gpu::GpuProbe& probe = gpu::probe();
        if (!probe.device_ok || tc.nvcc.empty()) {
            std::fprintf(stderr, "gpulab: --gpu: %s\n",
                         !probe.device_ok ? ("no usable GPU here (" + probe.reason + ")").c_str()
                                          : "the CUDA toolkit's nvcc was not found");
            return kExitFailure;
        }
        gpu_arch = probe.cc_major * 10 + probe.cc_minor;
    }
    std::vector<BatchItem> items(files.size());
    for (std::size_t i = 0; i < files.size(); ++i) items[i] = {&puzzle, sources[i], ""};
    puzzles::CheckOptions co;
    co.time_limit_ms = o.time_limit_s * 1000;
    co.gpu_arch = gpu_arch;
    const auto print = [&](std::size_t i, const puzzles::CheckResult& r) {
        if (o.json) return;
        std::printf("%s: %s\n", files[i].c_str(), r.passed ? "PASS" : "FAIL");
        for (const auto& c : r.cases) {
            std::printf("  %s %s%s\n", c.passed ? "pass" : c.ran ? "FAIL" : "----", c.visible ? "example: " : "hidden: ",
                        c.name.c_str());
        }
        for (const auto& d : r.defects) std::printf("  %s\n", defect_line(d).c_str());
        if (r.gpu.tried) std::printf("  %s\n", r.gpu.sentence.c_str());
        if (!r.passed && r.defects.empty()) std::printf("  %s\n", r.summary.c_str());
        if (!r.printed.empty()) std::printf("  printed:\n%s%s", printed_part(r.printed).c_str(), r.printed.back() == '\n' ? "" : "\n");
        std::fflush(stdout);
    };
    const std::vector<puzzles::CheckResult> results = check_in_parallel(tc, items, o.jobs, co, print);
    bool all = true;
    for (const auto& r : results) all = all && r.passed;
    if (o.json) {
        std::printf("[");
        for (std::size_t i = 0; i < results.size(); ++i)
            std::printf("%s\n  %s", i ? "," : "", json_result(files[i].string(), results[i]).c_str());
        std::printf("\n]\n");
    } else if (files.size() > 1) {
        std::size_t passed = 0;
        for (const auto& r : results) passed += r.passed ? 1 : 0;
        std::printf("%zu of %zu submissions pass %s.\n", passed, files.size(), puzzle.id.c_str());
    }
    return all ? kExitOk : kExitFailure;
}

}  // namespace gpulab::app
