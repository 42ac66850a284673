#include "wsl.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>

namespace gpulab::core {

WslInfo detect_wsl(const std::string& osrelease_path, const std::string& wsl_lib_dir) {
    WslInfo w;
    std::ifstream f(osrelease_path);
    std::string release;
    std::getline(f, release);
    std::transform(release.begin(), release.end(), release.begin(), [](unsigned char c) { return std::tolower(c); });
    w.wsl = release.find("microsoft") != std::string::npos || release.find("wsl") != std::string::npos;
    if (!w.wsl) return w;
    std::error_code ec;
    const std::string libcuda = wsl_lib_dir + "/libcuda.so.1";
    w.driver_present = std::filesystem::exists(libcuda, ec);
    w.note = w.driver_present
                 ? "WSL2: the NVIDIA driver is Windows' own, reached through " + libcuda +
                       " (install no Linux NVIDIA driver inside WSL)"
                 : "WSL2 without " + libcuda +
                       ": install or update the NVIDIA driver on Windows (not inside WSL) to use the GPU";
    w.note += "; windows open through WSLg, whose OpenGL is Mesa's d3d12 driver, so CUDA-GL interop is not "
              "possible and pictures reach the screen by host upload";
    return w;
}

}  // namespace gpulab::core
