#include "stored_results.h"

#include <sys/stat.h>

#include <atomic>
#include <cstdlib>

#include "compare/compare_import.h"
#include "gpu_backends.h"
#include "measure/machine_info.h"

namespace gpulab::app {

namespace {
std::atomic<bool> g_enabled{false}, g_readable{true};
}

const core::StoreIdentity& app_store_identity() {
    static const core::StoreIdentity me = [] {
        core::StoreIdentity id;
        id.version = GPULAB_VERSION;
        // This binary's size and modification time: a rebuild, even of the same version, may
        // measure differently, so its results start afresh.
        struct stat st {};
        if (::stat("/proc/self/exe", &st) == 0)
            id.build = std::string(GPULAB_VERSION) + ", " + std::to_string(st.st_size) + " bytes, " +
                       std::to_string(static_cast<long long>(st.st_mtim.tv_sec)) + "." +
                       std::to_string(st.st_mtim.tv_nsec);
        else
            id.build = std::string(GPULAB_VERSION) + ", unknown binary";
        const core::MachineInfo& m = core::host_machine();
        id.machine = m.hostname + ", " + m.cpu_model + ", " + std::to_string(m.hardware_threads) + " threads";
        // On the store's writer thread, which may wait for the GPU probe where a frame may not.
        // A test option: stand in for another computer (tests/prerun_tests.cmake imports its results).
        if (const char* other = std::getenv("GPULAB_TEST_MACHINE"); other && *other) {
            id.machine = other;
            id.machine_label = [name = std::string(other)] { return name; };
            return id;
        }
        id.machine_label = [] {
            const gpu::GpuProbe& g = gpu::probe();
            return core::machine_label(core::host_machine().cpu_model, g.device_ok ? g.name : std::string());
        };
        return id;
    }();
    return me;
}

void enable_stored_results(bool on, bool read) {
    g_enabled = on;
    g_readable = read;
}
bool stored_results_enabled() { return g_enabled; }
bool stored_results_readable() { return g_readable; }

core::ResultStore* stored_results() {
    if (!g_enabled) return nullptr;
    core::ResultStore& store = core::shared_result_store(app_store_identity());
    return store.enabled() ? &store : nullptr;
}

}  // namespace gpulab::app
