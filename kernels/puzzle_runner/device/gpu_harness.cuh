// The host side of a student's kernel on a real GPU: gpulab compiles build_gpu.cu (the student's
// kernel.cu, a generated `gpulab_launch_gpu`, then this file) with nvcc into a program that reads
// the same job folder as gpulab-kernel-runner, runs every case on the GPU, and writes the same
// report lines to descriptor 3 (core/puzzles/kernel_job.h's protocol), plus the device's name and
// each case's kernel time. Only ever run after the simulator found the kernel clean (the checks
// first; the GPU does not say where an out-of-bounds write went). Self-contained: installed with
// student_cuda.h, it may not include gpulab's sources. Every CUDA call is checked; a failure is a
// "fatal" line (no device) or the case's message (the kernel's launch or run failed).
#pragma once

#include <cuda_runtime.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

void gpulab_launch_gpu(dim3 grid, dim3 block, void* const* args);

namespace gpulab_harness {

struct Buffer {
    std::string name;
    long long count = 0;
    bool filled = false, output = false;
    std::vector<unsigned char> data;
};
struct Arg {
    int kind = 0;  // 0 buffer, 1 int, 2 float
    int buffer = -1;
    long long i = 0;
    double f = 0.0;
};
struct Case {
    unsigned grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
    std::vector<Buffer> buffers;
    std::vector<Arg> args;
};

inline void say(const std::string& line) {
    const char* p = line.data();
    std::size_t n = line.size();
    while (n > 0) {
        const ssize_t w = write(3, p, n);
        if (w <= 0) return;
        p += w;
        n -= static_cast<std::size_t>(w);
    }
}

inline std::string escape(const std::string& s) {
    std::string out;
    for (char c : s) out += c == '\n' ? std::string("\\n") : c == '\\' ? std::string("\\\\") : std::string(1, c);
    return out;
}

// The job.txt written by core/puzzles/kernel_job.cpp (its format, read again here).
inline bool read_job(const std::string& folder, std::vector<Case>& cases) {
    std::ifstream in(folder + "/job.txt");
    std::string line;
    if (!std::getline(in, line) || line != "gpulab-job 1") return false;
    Case* c = nullptr;
    while (std::getline(in, line)) {
        std::istringstream s(line);
        std::string key;
        s >> key;
        if (key == "case") {
            cases.emplace_back();
            c = &cases.back();
        } else if (key == "end") {
            c = nullptr;
        } else if (c == nullptr) {
            continue;  // library, kernel, time_ms, trace: the simulator's
        } else if (key == "grid") {
            s >> c->grid[0] >> c->grid[1] >> c->grid[2];
        } else if (key == "block") {
            s >> c->block[0] >> c->block[1] >> c->block[2];
        } else if (key == "buffer") {
            Buffer b;
            std::string elem, file;
            int filled = 0, output = 0;
            s >> b.name >> elem >> b.count >> filled >> output >> file;
            b.filled = filled != 0;
            b.output = output != 0;
            if (b.count < 1 || b.count > (1ll << 26)) return false;
            if (b.filled) {
                std::ifstream data(folder + "/" + file, std::ios::binary);
                b.data.resize(static_cast<std::size_t>(b.count) * 4);
                data.read(reinterpret_cast<char*>(b.data.data()), static_cast<std::streamsize>(b.data.size()));
                if (!data) return false;
            }
            c->buffers.push_back(std::move(b));
        } else if (key == "arg") {
            Arg a;
            std::string kind, value;
            s >> kind >> value;
            a.kind = kind == "buffer" ? 0 : kind == "int" ? 1 : 2;
            if (a.kind == 0) a.buffer = std::atoi(value.c_str());
            else if (a.kind == 1) a.i = std::atoll(value.c_str());
            else a.f = std::strtod(value.c_str(), nullptr);
            if (a.kind == 0 && (a.buffer < 0 || a.buffer >= static_cast<int>(c->buffers.size()))) return false;
            c->args.push_back(a);
        }
    }
    return !cases.empty();
}

inline std::string hex(const std::vector<unsigned char>& bytes) {
    static const char digits[] = "0123456789abcdef";
    std::string s(bytes.size() * 2, '0');
    for (std::size_t i = 0; i < bytes.size(); ++i) {
        s[2 * i] = digits[bytes[i] >> 4];
        s[2 * i + 1] = digits[bytes[i] & 15];
    }
    return s;
}

// One case: its inputs uploaded (an unfilled buffer set to 0xFF bytes, as the simulator poisons
// it), one launch whose outputs come back, then five more timed with events (inputs uploaded again
// before each, outside the timing). "" when it ran, else the CUDA error, said.
inline std::string run_case(int index, Case& c) {
    std::vector<void*> device(c.buffers.size(), nullptr);
    const auto fail = [&](const char* what, cudaError_t e) {
        for (void* p : device) cudaFree(p);
        return std::string(what) + ": " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")";
    };
    for (std::size_t b = 0; b < c.buffers.size(); ++b) {
        if (cudaError_t e = cudaMalloc(&device[b], static_cast<std::size_t>(c.buffers[b].count) * 4); e != cudaSuccess)
            return fail("cudaMalloc", e);
    }
    const auto upload = [&]() -> cudaError_t {
        for (std::size_t b = 0; b < c.buffers.size(); ++b) {
            const std::size_t bytes = static_cast<std::size_t>(c.buffers[b].count) * 4;
            cudaError_t e = c.buffers[b].filled ? cudaMemcpy(device[b], c.buffers[b].data.data(), bytes, cudaMemcpyHostToDevice)
                                                : cudaMemset(device[b], 0xff, bytes);
            if (e != cudaSuccess) return e;
        }
        return cudaSuccess;
    };
    struct Slot {
        void* ptr;
        int i;
        float f;
    };
    std::vector<Slot> slots(c.args.size());
    std::vector<void*> args(c.args.size());
    for (std::size_t k = 0; k < c.args.size(); ++k) {
        if (c.args[k].kind == 0) {
            slots[k].ptr = device[static_cast<std::size_t>(c.args[k].buffer)];
            args[k] = &slots[k].ptr;
        } else if (c.args[k].kind == 1) {
            slots[k].i = static_cast<int>(c.args[k].i);
            args[k] = &slots[k].i;
        } else {
            slots[k].f = static_cast<float>(c.args[k].f);
            args[k] = &slots[k].f;
        }
    }
    const dim3 grid(c.grid[0], c.grid[1], c.grid[2]), block(c.block[0], c.block[1], c.block[2]);
    if (cudaError_t e = upload(); e != cudaSuccess) return fail("uploading the inputs", e);
    gpulab_launch_gpu(grid, block, args.data());
    if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return fail("the launch was refused", e);
    if (cudaError_t e = cudaDeviceSynchronize(); e != cudaSuccess) return fail("the kernel failed on the GPU", e);
    std::string out;
    for (std::size_t b = 0; b < c.buffers.size(); ++b) {
        if (!c.buffers[b].output) continue;
        std::vector<unsigned char> host(static_cast<std::size_t>(c.buffers[b].count) * 4);
        if (cudaError_t e = cudaMemcpy(host.data(), device[b], host.size(), cudaMemcpyDeviceToHost); e != cudaSuccess)
            return fail("reading the outputs back", e);
        out += "output " + std::to_string(index) + " " + std::to_string(b) + " " + hex(host) + "\n";
    }
    std::vector<float> ms;
    cudaEvent_t start, stop;
    if (cudaEventCreate(&start) == cudaSuccess && cudaEventCreate(&stop) == cudaSuccess) {
        for (int r = 0; r < 5; ++r) {
            if (upload() != cudaSuccess) break;
            cudaEventRecord(start);
            gpulab_launch_gpu(grid, block, args.data());
            cudaEventRecord(stop);
            if (cudaEventSynchronize(stop) != cudaSuccess) break;
            float t = 0.0f;
            if (cudaEventElapsedTime(&t, start, stop) == cudaSuccess) ms.push_back(t);
        }
        cudaEventDestroy(start);
        cudaEventDestroy(stop);
    }
    for (void* p : device) cudaFree(p);
    say("case " + std::to_string(index) + " 1 1 0 0 0 0 0 0 0 0 0 0 0 0\n" + out);
    if (!ms.empty()) {
        std::sort(ms.begin(), ms.end());
        say("gputime " + std::to_string(index) + " " + std::to_string(static_cast<long long>(ms[ms.size() / 2] * 1e6)) + "\n");
    }
    return "";
}

}  // namespace gpulab_harness

int main(int argc, char** argv) {
    using namespace gpulab_harness;
    if (argc != 2) return 2;
    int devices = 0;
    if (cudaError_t e = cudaGetDeviceCount(&devices); e != cudaSuccess || devices == 0) {
        say("fatal no CUDA device here (" + std::string(e != cudaSuccess ? cudaGetErrorName(e) : "none found") + ")\n");
        return 4;
    }
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, 0) == cudaSuccess) say("gpu " + escape(prop.name) + "\n");
    std::vector<Case> cases;
    if (!read_job(argv[1], cases)) {
        say("fatal the job folder could not be read\n");
        return 2;
    }
    for (std::size_t i = 0; i < cases.size(); ++i) {
        const std::string error = run_case(static_cast<int>(i), cases[i]);
        if (!error.empty()) {
            // Finished, not clean, kind 12 = DefectKind::Crash (core/puzzles/defect.h), no counters.
            say("case " + std::to_string(i) + " 1 0 12 0 0 0 0 0 0 0 0 0 0 0\n");
            say("message " + std::to_string(i) + " " + escape(error) + "\n");
            break;  // after a fault the context is unusable: the rest would fail the same way
        }
    }
    say("done\n");
    return 0;
}
