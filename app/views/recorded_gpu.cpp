// Finding the recorded GPU run: see recorded_gpu.h.
#include "recorded_gpu.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <vector>

#include "gpu_model/gpu_model.h"
#include "render/resources.h"

namespace gpulab::app {

namespace {

struct Loaded {
    std::unique_ptr<core::GpuRecording> recording;
    std::string problem;
};

Loaded load_once() {
    Loaded out;
    const char* env = std::getenv("GPULAB_RECORDING");
    try {
        if (env && *env) {
            if (std::string(env) == "off") {
                out.problem = "GPULAB_RECORDING=off: no recorded GPU run is shown";
                return out;
            }
            out.recording = std::make_unique<core::GpuRecording>(core::load_recording(env));
            return out;
        }
        const std::filesystem::path root = data_root();
        const std::filesystem::path dir = root.empty() ? root : root / "assets" / "recorded";
        std::error_code ec;
        std::vector<std::filesystem::path> folders;
        if (!dir.empty())
            for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
                if (it->is_directory(ec) && !it->is_symlink(ec)) folders.push_back(it->path());
        std::sort(folders.begin(), folders.end());
        for (const auto& f : folders) {
            try {
                auto rec = std::make_unique<core::GpuRecording>(core::load_recording(f));
                // A shipped folder is a real GPU's; a test fixture there is a packaging mistake.
                if (!rec->provenance.not_a_gpu.empty()) continue;
                out.recording = std::move(rec);
                return out;
            } catch (const std::exception& e) {
                out.problem = e.what();
            }
        }
        if (out.problem.empty()) out.problem = "no recorded GPU run is installed (assets/recorded/ is empty)";
    } catch (const std::exception& e) {
        out.problem = e.what();
    }
    return out;
}

const Loaded& loaded() {
    static const Loaded l = load_once();
    return l;
}

}  // namespace

const core::GpuRecording* shipped_recording() { return loaded().recording.get(); }
std::string recording_problem() { return loaded().problem; }

const core::PublishedGpu& estimated_gpu() {
    const core::GpuRecording* rec = shipped_recording();
    if (rec && rec->provenance.gpu.find("H100") != std::string::npos) return core::kH100;
    return core::kH200;
}

std::string estimated_gpu_floor_line(std::int64_t moved_bytes, std::int64_t unique_bytes) {
    const core::PublishedGpu& gpu = estimated_gpu();
    return core::bandwidth_model_line(moved_bytes, unique_bytes, gpu.name, gpu.memory_gbps);
}

}  // namespace gpulab::app
