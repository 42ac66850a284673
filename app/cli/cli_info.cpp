// `gpulab info`: the machine and every backend, each with its availability and reason verbatim.
#include <cstdio>

#include "shell/backend_set.h"
#include "cli.h"
#include "puzzles/sandbox.h"
#include "measure/format.h"
#include "interop/gl_interop.h"
#include "gpu_backends.h"
#include "measure/machine_info.h"
#include "render/offscreen_context.h"
#include "render/resources.h"
#include "views/recorded_gpu.h"
#include "backends/simd/simd_math.h"
#include "measure/wsl.h"

namespace gpulab::app {

int cmd_info() {
    const core::MachineInfo& m = core::host_machine();
    std::printf("gpulab %s\n\n", GPULAB_VERSION);
    std::printf("CPU        %s, %d hardware threads\n", m.cpu_model.c_str(), m.hardware_threads);
    std::string isas;
    for (cpu::SimdIsa isa : cpu::usable_simd_isas()) isas += (isas.empty() ? "" : ", ") + std::string(cpu::simd_isa_name(isa));
    std::printf("SIMD       %s; this CPU can run %s (GPULAB_ISA=avx512|avx2|baseline picks one)\n",
                cpu::isa_summary().c_str(), isas.c_str());
    std::printf("OS         %s\n", m.os.c_str());
    if (const core::WslInfo wsl = core::detect_wsl(); wsl.wsl) std::printf("WSL        %s\n", wsl.note.c_str());
    const std::string data_problem = data_root_problem();
    std::printf("Data       %s\n", data_problem.empty() ? data_root().string().c_str() : data_problem.c_str());

    const gpu::GpuProbe& g = gpu::probe();
    if (g.device_ok) {
        std::printf("GPU        %s, compute capability %d.%d, %d SMs, %s (%s free)\n", g.name.c_str(), g.cc_major,
                    g.cc_minor, g.sm_count, core::format_bytes(static_cast<double>(g.total_memory)).c_str(),
                    core::format_bytes(static_cast<double>(g.free_memory)).c_str());
    } else {
        std::printf("GPU        none usable: %s\n", g.reason.c_str());
    }
    std::printf("CUDA       %s\n", gpu::version_summary().c_str());
    {
        const puzzles::SandboxStatus& sb = puzzles::sandbox_status();
        std::printf("Puzzles    %s\n", sb.confined ? ("submissions compiled and run in bubblewrap namespaces (" + sb.bwrap.string() +
                                                       ") under seccomp and limits").c_str()
                                                   : sb.sentence.c_str());
    }
    std::printf("cuDNN      %s\n", g.cudnn_ok ? g.cudnn_version.c_str() : g.cudnn_reason.c_str());
    // The GPU run the lessons draw beside this computer's (views/recorded_gpu.h), or why there is none.
    if (const core::GpuRecording* rec = shipped_recording())
        std::printf("Recorded   %s (%zu measurements, %s)\n", rec->source().c_str(), rec->files.size(),
                    rec->folder.string().c_str());
    else
        std::printf("Recorded   none: %s\n", recording_problem().c_str());

    std::string why;
    auto context = OffscreenContext::create(why);
    if (context) {
        std::printf("OpenGL     %s\n", context->description().c_str());
        gpu::InteropCheck interop = gpu::check_gl_interop();
        std::printf("Display    %s\n", interop.reason.c_str());
    } else {
        std::printf("OpenGL     no offscreen context: %s\n", why.c_str());
        std::printf("Display    host upload (no GL context to check interop)\n");
    }

    std::printf("\nBackends\n");
    core::BackendList backends = make_all_backends();
    for (const auto& b : backends) {
        core::Availability a = b->availability();
        std::printf("  %-14s %-11s %s\n", std::string(b->name()).c_str(), a.ok ? "available" : "unavailable",
                    a.ok ? std::string(b->description()).c_str() : a.reason.c_str());
    }
    return kExitOk;
}

}  // namespace gpulab::app
