#include "puzzle_check.h"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <random>
#include <regex>
#include <sstream>
#include <string_view>
#include <algorithm>
#include <csignal>
#include <unistd.h>

#include "io/file_io.h"
#include "block_order.h"
#include "child_process.h"
#include "sandbox.h"

namespace gpulab::puzzles {

namespace fs = std::filesystem;

namespace {

// What the simulator writes when a CUDA thread runs off its stack (kernels/sim/sim_runtime.cpp).
constexpr const char* kStackOverflowSaid = "needed more than its stack";

// [SECTION] inputs

// FNV-1a, 64 bits: `text` folded into `h` (start from kFnvStart).
constexpr uint64_t kFnvStart = 1469598103934665603ull;
uint64_t fnv_mix(uint64_t h, std::string_view text) {
    for (char c : text) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
    return h;
}

uint64_t seed_for(const std::string& id, std::size_t case_index) {
    return fnv_mix(kFnvStart, id) ^ (case_index * 0x9e3779b97f4a7c15ull);
}

// Random floats are multiples of 1/16 in [-2, 2): sums of up to a million of them are exact in
// float, so any order of summation gives the reference's answer and a tolerance only absorbs what
// a real kernel's arithmetic (expf, a division) may differ by.
void fill(JobBuffer& b, Fill f, std::mt19937_64& rng) {
    b.filled = f != Fill::None;
    if (!b.filled) return;
    b.data.assign(static_cast<std::size_t>(b.count) * 4, std::byte{0});
    for (int64_t i = 0; i < b.count; ++i) {
        float fv = 0.0f;
        int32_t iv = 0;
        switch (f) {
            case Fill::Zeros: break;
            case Fill::Random: fv = static_cast<float>(static_cast<int>(rng() % 64) - 32) / 16.0f; iv = static_cast<int32_t>(rng() % 201) - 100; break;
            case Fill::RandomInt: iv = static_cast<int32_t>(rng() % 201) - 100; fv = static_cast<float>(iv); break;
            case Fill::Ramp: fv = static_cast<float>(i); iv = static_cast<int32_t>(i); break;
            case Fill::None: break;
        }
        if (b.elem == ElemType::F32) std::memcpy(&b.data[static_cast<std::size_t>(i) * 4], &fv, 4);
        else std::memcpy(&b.data[static_cast<std::size_t>(i) * 4], &iv, 4);
    }
}

// [SECTION] references, cached

struct Reference {
    std::string error;              // the reference itself failed: the puzzle is broken
    KernelReport report;
};
std::mutex g_reference_mutex;
std::map<std::string, Reference> g_references;

fs::path make_scratch(const fs::path& root) {
    std::error_code ec;
    fs::create_directories(root, ec);
    std::string templ = (root / "check-XXXXXX").string();
    if (mkdtemp(templ.data()) == nullptr) return {};
    return templ;
}

// A program that runs the student's code or reads its compiled files, in the sandbox (sandbox.h):
// `work` (the check's scratch folder) and the program itself readable, nothing writable.
std::vector<std::string> confined_argv(const Toolchain& tc, const fs::path& work, std::vector<std::string> argv, bool gpu) {
    SandboxSpec s;
    s.readable = {work, tc.runner};
    s.gpu = gpu;
    return sandboxed_argv(s, work, argv);
}

KernelReport run_job(const Toolchain& tc, const KernelJob& job, const fs::path& work, const CheckOptions& o,
                     ChildResult& child) {
    const std::string why = write_job(job, work / "job");
    if (!why.empty()) {
        KernelReport r;
        r.fatal = why;
        return r;
    }
    ChildOptions c;
    c.argv = confined_argv(tc, work, {tc.runner.string(), (work / "job").string()}, false);
    c.cwd = work;
    c.time_limit_ms = o.time_limit_ms + 2000;  // the runner's own timer says where it was; this is the backstop
    c.output_cap = 64 * 1024;
    c.report_fd = true;
    c.cancelled = o.cancelled;
    child = run_child(c);
    return parse_report(child.report);
}

std::string with_lines(const std::string& message, const std::map<std::uintptr_t, int>& lines, std::vector<int>& found);

// The order the job runs a puzzle's cases in (make_job, and every reader of its report): the
// visible cases first, so the trace and the picture are of the example.
std::vector<std::size_t> case_order(const Puzzle& p) {
    std::vector<std::size_t> order;
    for (std::size_t i = 0; i < p.cases.size(); ++i)
        if (p.cases[i].visible) order.push_back(i);
    for (std::size_t i = 0; i < p.cases.size(); ++i)
        if (!p.cases[i].visible) order.push_back(i);
    return order;
}

// The name of the case at position `i` of that order.
std::string case_order_name(const Puzzle& p, std::size_t i) {
    const std::vector<std::size_t> order = case_order(p);
    return i < order.size() ? p.cases[order[i]].name : "";
}

// The reference's report is kept on disk too, named by everything it depends on (the puzzle, its
// solution, the checker's header and the runner's build), so each `gpulab puzzle check` command
// does not run the solution again (it was about 45 % of a check). A file that does not parse as a
// finished, clean run of every case is ignored and rewritten.
std::string reference_cache_name(const Toolchain& tc, const Puzzle& p) {
    uint64_t h = seed_for(p.id + "\n" + p.solution, 0);
    const auto mix = [&](std::string_view text) { h = fnv_mix(h, text); };
    // The cases as the runner gets them (launch shapes, every input byte, the arguments), not the
    // puzzle file: a puzzle built or edited in memory (the tests, an instructor's editor) differs.
    const KernelJob job = make_job(p, "", 0, false);
    for (const JobCase& k : job.cases) {
        mix(std::to_string(k.grid[0]) + "," + std::to_string(k.grid[1]) + "," + std::to_string(k.grid[2]) + ";" +
            std::to_string(k.block[0]) + "," + std::to_string(k.block[1]) + "," + std::to_string(k.block[2]));
        for (const JobBuffer& b : k.buffers) {
            mix(b.name + ":" + std::to_string(b.count) + std::to_string(b.filled) + std::to_string(b.output) +
                std::to_string(static_cast<int>(b.elem)));
            mix(std::string_view(reinterpret_cast<const char*>(b.data.data()), b.data.size()));
        }
        for (const JobArg& a : k.args) mix(std::to_string(static_cast<int>(a.kind)) + std::to_string(a.buffer) + std::to_string(a.i) + std::to_string(a.f));
    }
    for (const fs::path& f : {tc.device_dir / "student_cuda.h", tc.device_dir / "student_abi.h"}) {
        std::ifstream in(f, std::ios::binary);
        std::ostringstream text;
        text << in.rdbuf();
        mix(text.str());
    }
    std::error_code ec;
    const auto size = fs::file_size(tc.runner, ec);
    const auto time = fs::last_write_time(tc.runner, ec).time_since_epoch().count();
    mix(std::to_string(size) + "/" + std::to_string(time));
    char name[64];
    std::snprintf(name, sizeof name, "reference-%016llx.txt", static_cast<unsigned long long>(h));
    return name;
}

bool usable_reference(const Puzzle& p, const KernelReport& r) {
    if (!r.done || r.cases.size() != p.cases.size()) return false;
    return std::all_of(r.cases.begin(), r.cases.end(), [](const CaseReport& c) { return c.finished && c.clean; });
}

const Reference& reference_for(const Toolchain& tc, const Puzzle& p, const CheckOptions& o) {
    const std::string key = p.folder.string() + "\n" + p.solution;
    {
        std::lock_guard<std::mutex> lock(g_reference_mutex);
        auto it = g_references.find(key);
        if (it != g_references.end()) return it->second;
    }
    Reference ref;
    const fs::path root = o.work_root.empty() ? default_work_root() : o.work_root;
    const std::string cached = reference_cache_name(tc, p);
    try {
        ref.report = parse_report(core::read_file_in_folder(root.string(), cached, std::int64_t{256} << 20, "reference run"));
        if (usable_reference(p, ref.report)) {
            std::lock_guard<std::mutex> lock(g_reference_mutex);
            return g_references.emplace(key, std::move(ref)).first->second;
        }
    } catch (const std::exception&) {
        // Not cached yet (or unreadable): run it.
    }
    ref = Reference{};
    const fs::path work = make_scratch(root);
    const CompileResult c = compile_kernel(tc, p, p.solution, work / "reference", o.cancelled);
    if (!c.ok) {
        ref.error = "the puzzle's own solution.cu does not compile: " + c.sentence;
    } else {
        CheckOptions ro = o;
        ro.time_limit_ms = std::max(o.time_limit_ms, 20000);
        ChildResult child;
        ref.report = run_job(tc, make_job(p, c.library.string(), ro.time_limit_ms, false), work / "reference", ro, child);
        if (child.cancelled) ref.error = "cancelled";
        else if (!ref.report.done) ref.error = "the puzzle's own solution.cu did not finish: " + ref.report.fatal + child.output;
        for (std::size_t i = 0; i < ref.report.cases.size(); ++i) {
            const CaseReport& cr = ref.report.cases[i];
            if (!cr.finished || cr.clean || !ref.error.empty()) continue;
            std::vector<int> unused;
            const std::string name = i < p.cases.size() ? " on case \"" + case_order_name(p, i) + "\"" : "";
            ref.error = "the puzzle's own solution.cu fails" + name + ": " + with_lines(cr.message, {}, unused);
        }
        if (ref.error.empty() && usable_reference(p, ref.report)) {
            (void)core::write_file_in_folder(root.string(), cached, {child.report});  // a cache: a failed write costs a rerun
        }
    }
    std::error_code ec;
    fs::remove_all(work, ec);
    std::lock_guard<std::mutex> lock(g_reference_mutex);
    if (ref.error == "cancelled") {
        static Reference cancelled;
        cancelled.error = "cancelled";
        return cancelled;
    }
    return g_references.emplace(key, std::move(ref)).first->second;
}

// [SECTION] sentences

// Code addresses -> lines of kernel.cu, through addr2line (the sites are return addresses: the
// call's own line is one byte earlier).
std::map<std::uintptr_t, int> lines_of(const Toolchain& tc, const fs::path& library, std::uintptr_t base,
                                       const std::vector<std::uintptr_t>& sites) {
    std::map<std::uintptr_t, int> out;
    if (tc.addr2line.empty() || sites.empty() || base == 0) return out;
    ChildOptions c;
    // -a: each answer starts with its address; -i: with the functions inlined there, innermost
    // first, so a check inside an inlined helper of student_cuda.h still finds the kernel's line.
    std::vector<std::string> argv = {tc.addr2line.string(), "-a", "-i", "-e", library.string()};
    std::vector<std::uintptr_t> asked;
    for (std::uintptr_t s : sites) {
        if (s <= base) continue;
        char text[32];
        std::snprintf(text, sizeof text, "0x%lx", static_cast<unsigned long>(s - base - 1));
        argv.push_back(text);
        asked.push_back(s);
    }
    if (asked.empty()) return out;
    c.argv = confined_argv(tc, library.parent_path(), argv, false);
    c.time_limit_ms = 10000;
    const ChildResult r = run_child(c);
    std::istringstream in(r.output);
    std::string line;
    static const std::regex re(R"(^(.*):(\d+)(?: \(discriminator \d+\))?$)");
    int index = -1;
    while (std::getline(in, line)) {
        if (line.rfind("0x", 0) == 0) {
            ++index;
            continue;
        }
        std::smatch m;
        if (index < 0 || index >= static_cast<int>(asked.size()) || out.count(asked[static_cast<std::size_t>(index)])) continue;
        if (std::regex_match(line, m, re) && fs::path(m[1].str()).filename() == "kernel.cu") {
            out[asked[static_cast<std::size_t>(index)]] = std::stoi(m[2]);
        }
    }
    return out;
}

// "{{site:0x...}}" -> " (line 12)"; the lines found go to `lines`.
std::string with_lines(const std::string& message, const std::map<std::uintptr_t, int>& lines, std::vector<int>& found) {
    std::string out;
    std::size_t pos = 0;
    while (true) {
        const std::size_t at = message.find(" {{site:", pos);
        if (at == std::string::npos) break;
        out += message.substr(pos, at - pos);
        const std::size_t end = message.find("}}", at);
        const auto site = static_cast<std::uintptr_t>(std::strtoull(message.c_str() + at + 8, nullptr, 16));
        if (auto it = lines.find(site); it != lines.end()) {
            out += " (line " + std::to_string(it->second) + ")";
            found.push_back(it->second);
        }
        pos = end == std::string::npos ? message.size() : end + 2;
    }
    out += message.substr(pos);
    // "the __syncthreads() on line 6" names its line itself.
    static const std::regex barrier_line(R"(__syncthreads\(\) on line (\d+))");
    for (std::sregex_iterator it(out.begin(), out.end(), barrier_line), end; it != end; ++it) found.push_back(std::stoi((*it)[1]));
    return out;
}

std::string value_text(const std::byte* p, ElemType e) {
    char text[48];
    // 0xFFFFFFFF is the runner's poison for device memory nobody wrote (a float NaN no arithmetic
    // produces): "-nan" would hide that the kernel never stored there.
    static const std::byte poison[4] = {std::byte{0xff}, std::byte{0xff}, std::byte{0xff}, std::byte{0xff}};
    if (e == ElemType::F32 && std::memcmp(p, poison, 4) == 0) return "never written";
    if (e == ElemType::F32) {
        float f;
        std::memcpy(&f, p, 4);
        std::snprintf(text, sizeof text, "%g", static_cast<double>(f));
    } else {
        int32_t i;
        std::memcpy(&i, p, 4);
        std::snprintf(text, sizeof text, "%d", i);
    }
    return text;
}

// Compares one case's outputs; fills the outcome's counts and first mismatch.
void compare(const Puzzle& p, const JobCase& k, const CaseReport& got, const CaseReport& want, CaseOutcome& o) {
    for (std::size_t b = 0; b < k.buffers.size(); ++b) {
        if (!k.buffers[b].output) continue;
        const auto& g = b < got.outputs.size() ? got.outputs[b] : std::vector<std::byte>{};
        const auto& w = b < want.outputs.size() ? want.outputs[b] : std::vector<std::byte>{};
        const int64_t n = k.buffers[b].count;
        o.elements += n;
        if (static_cast<int64_t>(g.size()) < n * 4 || static_cast<int64_t>(w.size()) < n * 4) {
            o.elements_wrong += n;
            if (o.mismatch.empty()) o.mismatch = "'" + k.buffers[b].name + "' did not come back";
            continue;
        }
        for (int64_t i = 0; i < n; ++i) {
            const std::byte* gp = &g[static_cast<std::size_t>(i) * 4];
            const std::byte* wp = &w[static_cast<std::size_t>(i) * 4];
            bool same;
            if (k.buffers[b].elem == ElemType::F32) {
                float gf, wf;
                std::memcpy(&gf, gp, 4);
                std::memcpy(&wf, wp, 4);
                same = (std::isnan(gf) && std::isnan(wf)) ||
                       std::fabs(gf - wf) <= p.tolerance * std::max(1.0f, std::fabs(wf));
            } else {
                same = std::memcmp(gp, wp, 4) == 0;
            }
            if (same) continue;
            if (o.mismatch.empty()) {
                o.mismatch = k.buffers[b].name + "[" + std::to_string(i) + "] is " + value_text(gp, k.buffers[b].elem) +
                             ", expected " + value_text(wp, k.buffers[b].elem);
            }
            ++o.elements_wrong;
        }
    }
}

std::string case_label(const Case& c) {
    std::string vars;
    for (const auto& [k, v] : c.vars) vars += (vars.empty() ? "" : ", ") + k + " = " + std::to_string(v);
    return std::string(c.visible ? "the example" : "hidden case") + " \"" + c.name + "\" (" + vars + ")";
}

// The same mistake usually fails several cases: say it once, with how many.
void add_defect(std::vector<Defect>& defects, Defect d) {
    std::vector<int> lines = d.lines;
    std::sort(lines.begin(), lines.end());
    lines.erase(std::unique(lines.begin(), lines.end()), lines.end());
    d.lines = lines;
    for (Defect& e : defects) {
        if (e.kind == d.kind && e.lines == d.lines) {
            ++e.repeats;
            return;
        }
    }
    defects.push_back(std::move(d));
}

GpuRun run_on_gpu(const Toolchain& tc, const Puzzle& p, const std::string& source, const fs::path& work,
                  const CheckOptions& o, const KernelJob& job, const KernelReport& reference) {
    GpuRun g;
    g.tried = true;
    const CompileResult c = compile_kernel_gpu(tc, p, source, work, o.gpu_arch, o.cancelled);
    g.compile_seconds = c.seconds;
    if (!c.ok) {
        g.sentence = "Not run on the GPU: " + c.sentence + ".";
        return g;
    }
    if (const std::string why = write_job(job, work / "job"); !why.empty()) {
        g.sentence = "Not run on the GPU: " + why + ".";
        return g;
    }
    ChildOptions co;
    co.argv = confined_argv(tc, work, {c.library.string(), (work / "job").string()}, true);
    co.cwd = work;
    co.time_limit_ms = o.time_limit_ms + 10000;  // the driver's start-up is part of it
    co.report_fd = true;
    co.cancelled = o.cancelled;
    const ChildResult child = run_child(co);
    const KernelReport rep = parse_report(child.report);
    g.device = rep.gpu;
    if (!rep.fatal.empty()) {
        g.sentence = "Not run on the GPU: " + rep.fatal + ".";
        return g;
    }
    if (child.timed_out || !rep.done) {
        g.sentence = child.timed_out ? "Stopped on the GPU: the kernel did not finish in time."
                                     : "The GPU run ended early" +
                                           (child.signal ? std::string(" (") + strsignal(child.signal) + ")" : std::string()) + ".";
        return g;
    }
    std::size_t differing = 0;
    for (std::size_t j = 0; j < job.cases.size(); ++j) {
        if (j >= rep.cases.size() || !rep.cases[j].clean) {
            g.sentence = "On the GPU (" + rep.gpu + "): " +
                         (j < rep.cases.size() ? rep.cases[j].message : std::string("a case did not run")) + ".";
            return g;
        }
        if (j >= reference.cases.size()) continue;
        CaseOutcome out;
        compare(p, job.cases[j], rep.cases[j], reference.cases[j], out);
        differing += out.elements_wrong > 0 ? 1 : 0;
    }
    g.ran = true;
    g.outputs_match = differing == 0;
    g.example_ns = rep.cases.empty() ? 0 : rep.cases.front().gpu_ns;
    g.sentence = "On the GPU (" + rep.gpu + "): " +
                 (g.outputs_match ? std::string("the same outputs on every case")
                                  : std::to_string(differing) + " cases' outputs differ from the reference") +
                 (g.example_ns > 0 ? "; the example's kernel took " + std::to_string(g.example_ns / 1000) + "." +
                                         std::to_string(g.example_ns / 100 % 10) + " us (median of 5 launches)"
                                   : std::string()) +
                 ".";
    return g;
}

}  // namespace

fs::path default_work_root() {
    const std::string cache = core::user_cache_folder();
    return (cache.empty() ? fs::temp_directory_path() / "gpulab" : fs::path(cache)) / "kernels";
}

std::vector<std::string> validate_puzzle(const Toolchain& tc, const Puzzle& p, const CheckOptions& o) {
    std::vector<std::string> problems;
    const auto summary_of = [](const CheckResult& r) {
        std::string s = r.summary;
        for (std::size_t i = 1; i < r.defects.size(); ++i) s += "; " + std::string(defect_kind_name(r.defects[i].kind));
        return s;
    };
    const CheckResult ref = check_submission(tc, p, p.solution, o);
    if (!ref.passed) problems.push_back(p.id + ": solution.cu does not pass: " + summary_of(ref));
    const CheckResult skel = check_submission(tc, p, p.skeleton, o);
    if (!skel.compiled) problems.push_back(p.id + ": skeleton.cu does not compile: " + skel.compile.sentence);
    for (const fs::path& w : p.wrong) {
        std::ifstream in(w);
        std::ostringstream text;
        text << in.rdbuf();
        const std::string source = text.str();
        const std::string first = source.substr(0, source.find('\n'));
        const std::string prefix = "// expect: ";
        DefectKind want{};
        if (first.rfind(prefix, 0) != 0 || !defect_kind_from_name(first.substr(prefix.size()), want)) {
            problems.push_back(w.string() + ": the first line must be \"// expect: <kind>\" with a kind such as race, "
                               "out of bounds, wrong answer");
            continue;
        }
        const CheckResult r = check_submission(tc, p, source, o);
        const bool caught = std::any_of(r.defects.begin(), r.defects.end(), [&](const Defect& d) { return d.kind == want; });
        if (r.passed || !caught) {
            problems.push_back(w.string() + ": expected " + defect_kind_name(want) + ", got " +
                               (r.passed ? std::string("a pass") : summary_of(r)));
        }
    }
    return problems;
}

void forget_references() {
    std::lock_guard<std::mutex> lock(g_reference_mutex);
    g_references.clear();
}

KernelJob make_job(const Puzzle& p, const std::string& library, int time_limit_ms, bool trace) {
    KernelJob job;
    job.library = library;
    job.kernel = p.kernel;
    job.time_limit_ms = time_limit_ms;
    job.trace_first_case = trace;
    for (std::size_t ci : case_order(p)) {
        const Case& c = p.cases[ci];
        std::mt19937_64 rng(seed_for(p.id, ci));
        JobCase k;
        for (int d = 0; d < 3; ++d) {
            k.grid[d] = d < static_cast<int>(p.grid.size()) ? static_cast<unsigned>(evaluate(p.grid[static_cast<std::size_t>(d)], c.vars).value.value_or(1)) : 1;
            k.block[d] = d < static_cast<int>(p.block.size()) ? static_cast<unsigned>(evaluate(p.block[static_cast<std::size_t>(d)], c.vars).value.value_or(1)) : 1;
        }
        for (const Param& q : p.params) {
            JobArg a;
            if (q.pointer) {
                for (const BufferSpec& s : p.buffers) {
                    if (s.name != q.name) continue;
                    JobBuffer b;
                    b.name = s.name;
                    b.elem = q.elem;
                    b.count = evaluate(s.count, c.vars).value.value_or(1);
                    b.output = s.output;
                    fill(b, s.fill, rng);
                    a.kind = JobArg::Kind::Buffer;
                    a.buffer = static_cast<int>(k.buffers.size());
                    k.buffers.push_back(std::move(b));
                }
            } else if (q.elem == ElemType::F32) {
                a.kind = JobArg::Kind::Float;
                a.f = static_cast<double>(c.vars.at(q.name));
            } else {
                a.kind = JobArg::Kind::Int;
                a.i = c.vars.at(q.name);
            }
            k.args.push_back(a);
        }
        job.cases.push_back(std::move(k));
    }
    return job;
}

CheckResult check_submission(const Toolchain& tc, const Puzzle& p, const std::string& source, const CheckOptions& o) {
    CheckResult r;
    const auto say = [&](const std::string& s) {
        if (o.progress) o.progress(s);
    };
    if (!tc.usable()) {
        r.summary = tc.missing;
        return r;
    }
    const fs::path root = o.work_root.empty() ? default_work_root() : o.work_root;
    const fs::path work = make_scratch(root);
    if (work.empty()) {
        r.summary = "Could not make a scratch folder in " + root.string() + ": is the disk full or the folder read-only?";
        return r;
    }
    say("compiling...");
    r.compile = compile_kernel(tc, p, source, work, o.cancelled, o.police);
    r.compiled = r.compile.ok;
    const auto finish = [&]() -> CheckResult& {
        std::error_code ec;
        if (!o.keep_work) fs::remove_all(work, ec);
        return r;
    };
    if (!r.compile.ok) {
        Defect d;
        d.kind = r.compile.refused ? DefectKind::Forbidden : DefectKind::CompileError;
        d.message = r.compile.sentence;
        for (const Diagnostic& g : r.compile.diagnostics)
            if (g.error && g.line > 0) d.lines.push_back(g.line);
        add_defect(r.defects, d);
        r.summary = r.compile.sentence;
        for (std::size_t ci : case_order(p)) {  // every case, none run: a grader's score is out of all of them
            CaseOutcome out;
            out.name = p.cases[ci].name;
            out.visible = p.cases[ci].visible;
            r.cases.push_back(std::move(out));
        }
        return finish();
    }
    say("running the reference solution...");
    const Reference& ref = reference_for(tc, p, o);
    if (!ref.error.empty()) {
        r.summary = ref.error == "cancelled" ? "Cancelled" : "This puzzle is broken: " + ref.error;
        return finish();
    }
    const KernelJob job = make_job(p, r.compile.library.string(), o.time_limit_ms, o.trace);
    say("running " + std::to_string(job.cases.size()) + " cases in the simulator...");
    ChildResult child;
    const KernelReport rep = run_job(tc, job, work, o, child);
    r.run_seconds = child.seconds;
    r.run_cpu_seconds = child.cpu_seconds;
    r.printed = child.output;
    // The simulator's stack-overflow sentence is gpulab's, not the kernel's: it goes to the defect.
    if (const std::size_t at = r.printed.find("gpulab: the simulated kernel "); at != std::string::npos &&
        r.printed.find(kStackOverflowSaid, at) != std::string::npos) {
        const std::size_t end = r.printed.find('\n', at);
        r.printed.erase(at, end == std::string::npos ? std::string::npos : end + 1 - at);
    }
    // Sites -> lines, all at once.
    std::vector<std::uintptr_t> sites;
    for (const CaseReport& c : rep.cases) sites.insert(sites.end(), c.sites.begin(), c.sites.end());
    if (rep.stopped_site != 0) sites.push_back(rep.stopped_site);
    const auto lines = lines_of(tc, r.compile.library, rep.library_base, sites);

    const std::vector<std::size_t> order = case_order(p);  // make_job's order
    for (std::size_t j = 0; j < order.size(); ++j) {
        const Case& c = p.cases[order[j]];
        CaseOutcome out;
        out.name = c.name;
        out.visible = c.visible;
        out.inputs = job.cases[j];
        for (auto& b : out.inputs.buffers) b.data.clear();  // the views re-fill from the seed when they need it
        if (j < ref.report.cases.size()) out.expected = ref.report.cases[j].outputs;
        if (j < rep.cases.size() && rep.cases[j].finished) {
            out.ran = true;
            out.report = rep.cases[j];
            if (!out.report.clean) {
                Defect d;
                d.kind = out.report.kind;
                d.where = case_label(c);
                d.message = with_lines(out.report.message, lines, d.lines);
                add_defect(r.defects, d);
            } else if (j < ref.report.cases.size()) {
                compare(p, job.cases[j], out.report, ref.report.cases[j], out);
                if (out.elements_wrong > 0) {
                    Defect d;
                    d.kind = DefectKind::WrongAnswer;
                    d.where = case_label(c);
                    const int64_t blocks = int64_t{job.cases[j].grid[0]} * job.cases[j].grid[1] * job.cases[j].grid[2];
                    d.message = out.mismatch + " (" +
                                std::to_string(out.elements_wrong) + " of " + std::to_string(out.elements) +
                                " elements differ" + (blocks > 1 ? "; " + block_order_note(blocks) : "") + ").";
                    add_defect(r.defects, d);
                } else if (p.limit_divergence && c.visible && out.report.divergent_warps > ref.report.cases[j].divergent_warps) {
                    Defect d;
                    d.kind = DefectKind::Divergence;
                    d.where = case_label(c);
                    d.message = "The answer is right, but " + std::to_string(out.report.divergent_warps) + " of " +
                                std::to_string(out.report.warps) + " warps diverged (their lanes took different paths); "
                                "the reference needs only " + std::to_string(ref.report.cases[j].divergent_warps) +
                                ". Counted at the branches of your source: a short ternary (c ? a : b) or if with simple "
                                "operands is usually compiled into a select on a GPU and does not diverge there, so "
                                "write the choice without a branch to be sure.";
                    add_defect(r.defects, d);
                } else {
                    out.passed = true;
                }
            }
        }
        r.cases.push_back(std::move(out));
    }
    // How the child ended, when it did not reach its end.
    if (!rep.done) {
        Defect d;
        const std::string limit = std::to_string(o.time_limit_ms / 1000) + " s";
        if (child.cancelled) {
            r.summary = "Cancelled";
            return finish();
        } else if (rep.timed_out || child.timed_out) {
            d.kind = DefectKind::Timeout;
            std::string at;
            if (auto it = lines.find(rep.stopped_site); it != lines.end()) {
                at = " at line " + std::to_string(it->second);
                d.lines.push_back(it->second);
            }
            d.message = "Stopped after " + limit + ": the kernel did not finish" +
                        (rep.stopped_where.empty() ? std::string(".") : "; " + rep.stopped_where + " was running" + at + ".");
            // A block that waits for another one may wait forever or not, by the blocks' order.
            int64_t most_blocks = 0;
            for (const JobCase& k : job.cases) most_blocks = std::max(most_blocks, int64_t{k.grid[0]} * k.grid[1] * k.grid[2]);
            if (most_blocks > 1) d.message += " (" + block_order_note(most_blocks) + ")";
        } else if (child.output.find(kStackOverflowSaid) != std::string::npos) {
            // The simulator said it (on stderr) before the runner's crash report gave the line.
            d.kind = DefectKind::StackOverflow;
            std::string at;
            if (auto it = lines.find(rep.stopped_site); rep.crash_signal != 0 && it != lines.end()) {
                at = " Line " + std::to_string(it->second) + ": the function whose frame did not fit.";
                d.lines.push_back(it->second);
            }
            const std::size_t from = child.output.find("gpulab: the simulated kernel ");
            std::string said = from == std::string::npos ? std::string() : child.output.substr(from + 8);
            said = said.substr(0, said.find('\n'));
            d.message = (said.empty() ? std::string("A CUDA thread needed more than its stack") : said) + at;
        } else if (rep.crash_signal != 0) {
            d.kind = DefectKind::Crash;
            const int sig = rep.crash_signal;
            const std::string what = sig == SIGFPE ? "an arithmetic fault, such as an integer division by zero"
                                     : sig == SIGSEGV || sig == SIGBUS ? "a memory access the checks did not see"
                                                                       : "an illegal instruction";
            std::string at;
            if (auto it = lines.find(rep.stopped_site); it != lines.end()) {
                at = " at line " + std::to_string(it->second);
                d.lines.push_back(it->second);
            }
            d.message = "The kernel crashed with " + what + (rep.stopped_where.empty() ? "" : " in " + rep.stopped_where) + at +
                        " (" + strsignal(sig) + ").";
        } else if (!rep.forbidden.empty()) {
            d.kind = DefectKind::Forbidden;
            const std::string& call = rep.forbidden;
            const std::string what = call == "openat" || call == "open" || call == "creat" ? "open a file for writing"
                                     : call == "socket" || call == "connect"                ? "open a network connection"
                                     : call == "clone" || call == "clone3" || call == "fork" || call == "vfork" ? "start a new process or thread"
                                     : call == "execve" ? "run another program"
                                                        : "make the system call " + call;
            d.message = "Stopped: the kernel tried to " + what + " (" + call + "); a kernel here may only compute.";
        } else if (child.output_capped) {
            d.kind = DefectKind::OutputLimit;
            d.message = "Stopped: the kernel printed more than 64 KiB.";
        } else if (!rep.fatal.empty()) {
            d.kind = DefectKind::Crash;
            d.message = "The kernel could not run: " + rep.fatal;
        } else {
            d.kind = DefectKind::Crash;
            const std::string said = child.output.find("gpulab: ") != std::string::npos
                                         ? child.output.substr(child.output.find("gpulab: ") + 8)
                                         : "";
            if (child.signal == SIGXCPU) {
                d.kind = DefectKind::Timeout;
                d.message = "Stopped after " + limit + " of CPU time: the kernel did not finish.";
            } else {
                d.message = "The kernel crashed" +
                            (child.signal != 0 ? std::string(" (") + strsignal(child.signal) + ")" : std::string()) +
                            (said.empty() ? std::string(".") : ": " + said.substr(0, said.find('\n')));
            }
        }
        // The case that was running when it ended.
        for (std::size_t j = 0; j < r.cases.size(); ++j) {
            if (!r.cases[j].ran) {
                d.where = case_label(p.cases[order[j]]);
                break;
            }
        }
        add_defect(r.defects, d);
    }
    r.passed = r.defects.empty() && !r.cases.empty() &&
               std::all_of(r.cases.begin(), r.cases.end(), [](const CaseOutcome& c) { return c.passed; });
    // On the GPU too, only after every check passed: a GPU says nothing of where a bad write went.
    if (r.passed && o.gpu_arch > 0) {
        say("compiling for the GPU with nvcc...");
        r.gpu = run_on_gpu(tc, p, source, work / "gpu", o, job, ref.report);
    }
    int passed = 0;
    for (const CaseOutcome& c : r.cases) passed += c.passed ? 1 : 0;
    if (r.passed) {
        r.summary = "Passed: all " + std::to_string(r.cases.size()) + " cases, no defects.";
    } else if (!r.defects.empty()) {
        const Defect& d = r.defects.front();
        r.summary = std::string(defect_kind_name(d.kind)) + ": " + d.message;
        r.summary[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(r.summary[0])));
    }
    return finish();
}

}  // namespace gpulab::puzzles
