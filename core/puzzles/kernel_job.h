// What the app asks gpulab-kernel-runner to do, and what it answers: the two sides of the child
// process that runs a student's kernel (kernels/puzzles/kernel_runner_main.cpp). The job is a folder
// the parent writes before starting the child (job.txt and one .bin per filled buffer); the report
// is text lines the child writes to file descriptor 3 as it goes, so a child that is killed half
// way still leaves what it finished. Plain C++; both sides use these functions, so they cannot
// drift apart. Verified by tests/test_puzzles.cpp (round trips) and the puzzle tests.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "defect.h"
#include "puzzle.h"

namespace gpulab::puzzles {

struct JobBuffer {
    std::string name;
    ElemType elem = ElemType::F32;
    int64_t count = 0;
    bool filled = false;          // false: left as cudaMalloc leaves it (poisoned, never written)
    bool output = false;          // sent back after the launch
    std::vector<std::byte> data;  // count * 4 bytes when filled
};

struct JobArg {
    enum class Kind { Buffer, Int, Float } kind = Kind::Int;
    int buffer = -1;
    int64_t i = 0;
    double f = 0.0;
};

struct JobCase {
    unsigned grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
    std::vector<JobBuffer> buffers;
    std::vector<JobArg> args;
};

struct KernelJob {
    std::string library;          // the compiled kernel (.so)
    std::string kernel;           // its name, for messages
    int time_limit_ms = 5000;     // for the whole job, every case
    bool trace_first_case = false;  // record block 0 of case 0 (who touched what)
    std::vector<JobCase> cases;
};

// Writes `job` into `folder` (created); "" or the sentence that says why it could not.
std::string write_job(const KernelJob& job, const std::filesystem::path& folder);
// Reads a job folder back; "" or the reason.
std::string read_job(const std::filesystem::path& folder, KernelJob& job);

// One access of the traced block (sim::TraceEvent, with the buffer's name resolved).
struct TraceAccess {
    int32_t thread = 0, interval = 0;
    bool shared = false, store = false;
    int32_t buffer = -1;       // index into the case's buffers (global), -1 for shared
    int64_t element = 0;       // offset / 4
};

struct CaseReport {
    bool finished = false;        // the launch returned (clean or with a defect)
    bool clean = false;           // no check failed
    DefectKind kind = DefectKind::WrongAnswer;
    std::string message;          // with "{{site:0x...}}" tokens where code addresses are known
    std::vector<std::uintptr_t> sites;  // the code addresses in message, in order
    int64_t threads = 0, blocks = 0, barriers = 0;
    int64_t shared_requests = 0, shared_wavefronts = 0, global_requests = 0, global_sectors = 0, global_bytes = 0;
    int64_t warps = 0, divergent_warps = 0;
    int64_t wall_ns = 0;
    std::vector<std::vector<std::byte>> outputs;  // per buffer of the case (empty when not output)
    std::vector<TraceAccess> trace;
    int trace_intervals = 0;
    int64_t gpu_ns = 0;           // on a GPU (gpu_harness.cuh): the kernel's time, median of 5
};

struct KernelReport {
    std::uintptr_t library_base = 0;  // where the kernel's shared object was loaded
    std::vector<CaseReport> cases;
    bool done = false;                // the child reached its end
    // The child's own end, when not `done`: a timeout (with where), a forbidden system call, ...
    bool timed_out = false;
    std::string stopped_where;        // "block (3,0,0) thread (17,0,0)"
    std::uintptr_t stopped_site = 0;  // code address the kernel was at
    std::string forbidden;            // the system call a confined kernel tried ("openat", "socket")
    int crash_signal = 0;             // a signal the kernel raised (SIGFPE: an integer division by zero)
    std::string fatal;                // a sentence from the child (sandbox setup failed, ...)
    std::string gpu;                  // on a GPU: the device's name
};

// The report protocol: one line per record.
std::string report_line_base(std::uintptr_t base);
std::string report_line_case(int index, const CaseReport& r);  // several lines: result, outputs, trace
std::string report_line_timeout(const std::string& where, std::uintptr_t site);
std::string report_line_forbidden(const std::string& syscall);
// A crash: the signal, where (as for a timeout) and the code address (stopped_where, stopped_site).
std::string report_line_crash(int signal, const std::string& where, std::uintptr_t site);
std::string report_line_fatal(const std::string& sentence);
std::string report_line_done();
// Parses what the child wrote (possibly cut off); never throws.
KernelReport parse_report(const std::string& text);

// "{{site:0x...}}" tokens of a message, in order.
std::vector<std::uintptr_t> site_tokens(const std::string& message);

}  // namespace gpulab::puzzles
