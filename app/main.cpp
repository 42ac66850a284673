// Interim entry point while the app lands.
#include <cstdio>

#include "gpu_backends.h"

int main() {
    std::printf("gpulab %s: %s\n", GPULAB_VERSION, gpulab::gpu::version_summary().c_str());
    return 0;
}
