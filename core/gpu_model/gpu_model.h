// What a lesson may say about a GPU it cannot see: per-compute-capability limits (threads, blocks,
// registers and FP32 lanes per SM), how many blocks of a kernel an SM can hold, and how many waves
// a grid takes. Plain C++ so the views, the lesson-text test and the CPU-only build share one
// source; on a GPU machine the views ask the device instead (cudaDeviceProp,
// cudaOccupancyMaxActiveBlocksPerMultiprocessor) and use these only for the example.
//
// Sources: CUDA C++ Programming Guide, "Compute Capabilities" (technical specifications per compute
// capability; arithmetic-instruction throughput for 32-bit floating-point add, multiply and
// multiply-add, i.e. FP32 lanes per SM). Register counts of our kernels are what nvcc 13 reported
// (`-Xptxas -v`), see kTiledConvRegisters.
//
// Verified by tests/test_gpu_model.cpp (the table against the guide's figures, the occupancy of the
// tiled convolution on an H100, wave counts) and tests/test_lesson_numbers.cpp (every such number
// a lesson file states).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gpulab::core {

// [SECTION] per compute capability
int max_threads_per_sm(int cc_major, int cc_minor);
int max_blocks_per_sm(int cc_major, int cc_minor);
inline constexpr int kRegistersPerSm = 65536;        // every compute capability CUDA 13 supports
inline constexpr int kRegisterAllocationUnit = 256;  // registers are handed out per warp, in these units
// FP32 lanes ("CUDA cores") per SM: 64 on 6.0, 7.x and 8.0; 128 on 5.x, 6.1/6.2, 8.6 and later
// (GA10x, Ada, Hopper, Blackwell). An H100 SXM5: 132 x 128 = 16,896; an RTX 3070: 46 x 128 = 5,888.
int fp32_lanes_per_sm(int cc_major, int cc_minor);

// [SECTION] the example GPU: what the views show, labelled, where there is no device
struct ExampleGpu {
    const char* name = "NVIDIA H100 SXM5 (example)";
    int sm_count = 132;  // the SXM5 module; the PCIe card has 114
    int cc_major = 9, cc_minor = 0;
};
inline constexpr ExampleGpu kExampleGpu{};

// Registers per thread of conv2d_tiled_kernel (kernels/conv2d/conv2d.cu) as nvcc 13 reported them with
// `-Xptxas -v` (the table is in gpu_model.cpp; 32 on an H100). A different compiler may allocate a few
// more or fewer, so views label an occupancy derived from it as an estimate.
int tiled_conv_registers(int cc_major, int cc_minor);

// [SECTION] occupancy and waves
// Blocks of `threads_per_block` threads using `registers_per_thread` registers that one SM holds at
// once, by the thread, block and register limits (shared memory is not counted: the lesson's
// kernels use a few KiB). The same arithmetic as the CUDA occupancy calculator.
int resident_blocks_per_sm(int cc_major, int cc_minor, int threads_per_block, int registers_per_thread);

struct Waves {
    int64_t per_wave = 0;  // sm_count x blocks_per_sm
    int64_t waves = 0;     // ceil(blocks / per_wave)
};
Waves waves_of(int64_t blocks, int sm_count, int blocks_per_sm);

// Blocks of the tiled convolution (16 x 16 outputs each) for a P x Q output of `planes` planes.
int64_t tiled_conv_blocks(int64_t out_h, int64_t out_w, int64_t planes);

// [SECTION] inside one SM: resident warps, warp schedulers and an illustrative issue schedule
// "All at once" means all resident, not all in the same cycle. The CUDA C++ Programming Guide,
// "Hardware Implementation" > "Hardware Multithreading": each warp's execution context (program
// counter, registers) stays on the SM for the warp's whole life, so switching between warps costs
// nothing, and at every instruction issue a warp scheduler picks a warp that is ready for its next
// instruction. "Compute Capabilities" gives the schedulers per SM: 4 on 5.x, 6.1/6.2, 7.x, 8.x and
// 9.0 (each with a quarter of the SM's FP32 lanes), 2 on 6.0 (GP100); Blackwell's SMs (10.x, 12.x)
// keep four partitions. Verified by tests/test_gpu_model_sm.cpp.
inline constexpr int kWarpSize = 32;
int warp_schedulers_per_sm(int cc_major, int cc_minor);
// Warps an SM holds with `blocks_per_sm` resident blocks of `threads_per_block` threads: a block's
// last warp counts whole even when part-filled. 8 blocks of 256 threads: 64 warps.
int resident_warps_per_sm(int blocks_per_sm, int threads_per_block);

// One cycle of an illustrative schedule, not a trace of any GPU: warp w belongs to scheduler
// w % schedulers (an SM spreads a block's warps over its partitions); every warp runs the same
// loop of `run` instructions, the last of which is a global load whose result it waits
// `latency` cycles for. Each cycle each scheduler issues at most one instruction, from the warp
// it issued last if that one is still ready, else from the ready warp that has waited longest
// ("greedy then oldest"), as the textbooks draw it; scheduler s starts 7 x s cycles late, so the
// rows do not move in lock step. Real latencies are longer and real
// schedulers' policies are not published; the picture shows the idea: many warps resident, a
// few issuing, the rest waiting for memory or for their turn.
enum class WarpState : uint8_t { Issued, Ready, Waiting };
struct IssueModel {
    int run = 4;       // instructions per loop, the last one a load
    int latency = 40;  // cycles until a load's result arrives (shortened for the picture)
};
std::vector<WarpState> illustrative_warp_states(int warps, int schedulers, int64_t cycle, IssueModel model = {});

}  // namespace gpulab::core

namespace gpulab::core {

// The GPU whose memory bandwidth the "at least this long on a GPU" model assumes: an H100 SXM5,
// 3.35 TB/s of HBM3 (NVIDIA's datasheet figure), the same example GPU the lessons name.
inline constexpr double kModelGpuBandwidthGBps = 3350.0;
inline constexpr const char* kModelGpuName = "H100 SXM5";

// The least time a memory-bound kernel moving `bytes` needs at `gbps` GB/s (1e9 bytes per second):
// a roofline-style lower bound, never a measurement. 0 for no bytes or no bandwidth.
int64_t bandwidth_bound_ns(int64_t bytes, double gbps);

// One line for a simulated run: the sector traffic its warps requested and the floor a GPU's memory
// bandwidth sets from the data's own bytes (`unique_bytes`: re-reads of the same bytes, such as a
// convolution's halo, an L2 cache serves, so the traffic itself is no lower bound):
// "at least 2.50 us on an H100 SXM5 (published spec; arithmetic, not a measurement): its data is
// 8.00 MiB at 3350 GB/s; requested 8.00 MiB in 32-byte sectors". The floor and its label first,
// since the views cut the line's end to fit. Empty when nothing was counted. The views pass the GPU
// their estimates model (app/views/recorded_gpu.h), so one panel never names two GPUs.
std::string bandwidth_model_line(int64_t moved_bytes, int64_t unique_bytes, std::string_view gpu_name = kModelGpuName,
                                 double gbps = kModelGpuBandwidthGBps);

// The few words a student reads for a GPU backend that cannot run, in place of the driver's error
// code (which the UI keeps in a tooltip): "no NVIDIA GPU driver on this computer" for
// cudaErrorInsufficientDriver, "no NVIDIA GPU on this computer" for cudaErrorNoDevice, "this gpulab
// was built without CUDA" for a CPU-only build, also inside "no CUDA device (...)". Empty for any
// other reason, which is then shown as it is.
std::string plain_gpu_reason(const std::string& reason);

// The one sentence the app says about a machine without a usable GPU, with what stands in for it:
// "No NVIDIA GPU driver on this computer: GPU rows show the simulated kernel". Empty where
// plain_gpu_reason is (an unexpected reason is shown as it is).
std::string no_gpu_sentence(const std::string& reason);

}  // namespace gpulab::core
