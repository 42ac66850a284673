// libFuzzer target for read_npy (core/io/image_io.cpp). The input is written to a memfd and read back
// through /proc/self/fd/N, so the fuzzer drives the same path as a file on disk: the regular-file
// and size checks, the header, the shape, and the data length. Any exception other than InputError,
// any crash, leak or allocation past -rss_limit_mb is a bug.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "io/image_io.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const int fd = memfd_create("fuzz.npy", MFD_CLOEXEC);
    static const std::string path = "/proc/self/fd/" + std::to_string(fd);
    if (fd < 0 || ftruncate(fd, 0) != 0) return 0;
    if (size > 0 && pwrite(fd, data, size, 0) != static_cast<ssize_t>(size)) return 0;
    try {
        const gpulab::core::Tensor t = gpulab::core::read_npy(path);
        // Whatever was accepted is consistent: as many floats as the shape says.
        if (static_cast<int64_t>(t.data.size()) != gpulab::core::element_count(t.shape)) __builtin_trap();
    } catch (const gpulab::core::InputError&) {
    }
    return 0;
}
