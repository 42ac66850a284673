// Windows Subsystem for Linux 2: the supported way to run gpulab on a Windows laptop. What differs
// there, said once in `gpulab info` instead of leaving a student to decode a CUDA error:
//   - the NVIDIA driver is the Windows one; Linux programs reach it as /usr/lib/wsl/lib/libcuda.so.1
//     (no Linux NVIDIA driver may be installed inside WSL);
//   - windows open through WSLg, whose OpenGL is Mesa's d3d12 driver: CUDA cannot share buffers with
//     it, so pictures reach the screen by host upload (which gpulab handles).
// Verified by tests/test_wsl.cpp with stand-in /proc and /usr/lib/wsl folders.
#pragma once

#include <string>

namespace gpulab::core {

struct WslInfo {
    bool wsl = false;       // running under WSL2 (or WSL1)
    bool driver_present = false;  // <wsl_lib>/libcuda.so.1 exists
    std::string note;       // one or two sentences for `gpulab info`; empty when not WSL
};

// Reads the kernel release (WSL kernels carry "microsoft" in it) and looks for the Windows driver's
// CUDA library. The paths are parameters so tests can point them at stand-ins.
WslInfo detect_wsl(const std::string& osrelease_path = "/proc/sys/kernel/osrelease",
                   const std::string& wsl_lib_dir = "/usr/lib/wsl/lib");

}  // namespace gpulab::core
